// What gymnasium-robotics' goal-conditioned tasks share (gymnasium_robotics.core.GoalEnv): the
// Dict(achieved_goal, desired_goal, observation) observation, the reward_type kwarg, the goal
// distance, and the reading of model files from the installed gymnasium-robotics wheel.
//
// A task declares its observation with AddGoalObs and writes the three arrays through
// GoalObs(out); its reward, terminated and truncated are static functions of (config, goals)
// registered with GoalTask<E> (core/goals.h), which the env's Step calls as well, so
// compute_reward on a pool gives the step's reward bit for bit.
#pragma once

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/env.h"
#include "core/goals.h"
#include "core/spec.h"
#include "envs/package_dirs.h"

namespace envpool::mujoco::robotics {

// Positions of the three arrays in EnvSpec::obs: gymnasium's Dict sorts its keys, so these are
// the Dict's order too.
enum GoalObsField : std::size_t { kAchievedGoal = 0, kDesiredGoal = 1, kObservation = 2 };

// Declares the goal observation: float64 Box(-inf, inf) arrays achieved_goal and desired_goal
// of goal_size values and observation of obs_size values (gymnasium-robotics' spaces).
inline void AddGoalObs(EnvSpec& spec, int obs_size, int goal_size) {
  spec.obs.push_back(ArraySpec::Box("achieved_goal", DType::kFloat64, {goal_size}, {-INFINITY}, {INFINITY}));
  spec.obs.push_back(ArraySpec::Box("desired_goal", DType::kFloat64, {goal_size}, {-INFINITY}, {INFINITY}));
  spec.obs.push_back(ArraySpec::Box("observation", DType::kFloat64, {obs_size}, {-INFINITY}, {INFINITY}));
}

// The three arrays of one output row.
struct GoalObs {
  double* achieved_goal;
  double* desired_goal;
  double* observation;
};
inline GoalObs GoalObsOf(const Output& out) {
  return {out.Obs<double>(kAchievedGoal), out.Obs<double>(kDesiredGoal), out.Obs<double>(kObservation)};
}

// reward_type: "sparse" or "dense" (every gymnasium-robotics task's kwarg).
enum class RewardType { kSparse, kDense };
inline RewardType ParseRewardType(const Config& config) {
  const auto t = config.Get<std::string>("reward_type");
  if (t == "sparse") return RewardType::kSparse;
  if (t == "dense") return RewardType::kDense;
  throw std::invalid_argument("reward_type must be 'sparse' or 'dense', got '" + t + "'");
}

// np.linalg.norm(a - b, axis=-1) of one goal row: numpy squares the differences and adds them
// in order (add.reduce of fewer than 8 values), then takes the square root. The same as
// np.linalg.norm(a - b) without axis (x.dot(x), OpenBLAS adding the rounded products in order
// for short vectors; see gym::Norm).
inline double GoalDistance(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    const double d = a[i] - b[i];
    s += d * d;
  }
  return std::sqrt(s);
}

// The installed gymnasium_robotics package's envs/assets folder; throws saying how to install it.
inline std::filesystem::path RoboticsAssetDir() {
  const std::string dir = InterpreterPackageDir("gymnasium_robotics");
  std::error_code ec;
  const std::filesystem::path assets = std::filesystem::path(dir) / "envs" / "assets";
  if (dir.empty() || !std::filesystem::is_directory(assets, ec)) {
    throw std::runtime_error(
        "gymnasium-robotics tasks read their model files from the gymnasium-robotics package, which is not "
        "installed: pip install --no-deps gymnasium-robotics==1.4.2 (--no-deps: its `mujoco` requirement is "
        "provided by mujoco-core, see docs/tasks.md)");
  }
  return assets;
}

inline std::string ReadTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace envpool::mujoco::robotics
