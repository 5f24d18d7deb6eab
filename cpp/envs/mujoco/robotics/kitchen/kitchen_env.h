// gymnasium-robotics 1.4.2's FrankaKitchen-v1 (envs/franka_kitchen/kitchen_env.py's KitchenEnv over
// franka_env.py's FrankaRobot, a gymnasium MujocoEnv), native. The model and the robot's joint
// limits and noise amplitudes (franka_config.xml) are the installed wheel's, read at run time.
//
// Upstream, in order:
//   reset: mj_resetData; qpos = kitchen_env.py's init_qpos, qvel 0, mj_forward; the observation
//     (below); every goal task is to be completed again.
//   step: the float64 action clipped to [-1, 1], times 2 (act_rng), clipped to the joints'
//     velocity bounds; ctrl = the last observed (noisy) robot qpos + that * dt, clipped to the
//     position bounds; 40 mj_steps and mj_rnePostConstraint; the observation; the reward is the
//     number of tasks still to complete whose elements lie within 0.3 (norm) of their goal; those
//     are removed (remove_task_when_completed); terminated when every goal task was completed in
//     the episode (terminate_on_tasks_completed).
//   observation: the 9 robot joints' qpos and qvel, then the objects' qpos[9:] and qvel[9:], each
//     plus noise drawn from np_random in that order (robot_noise_ratio, object_noise_ratio times
//     franka_config.xml's amplitudes times U(-1, 1)); the goals are the noiseless qpos elements.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/gym/mujoco_env.h"
#include "envs/mujoco/gym/mujoco_renderer.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/robotics/goal_env.h"
#include "envs/mujoco/state.h"

namespace envpool::mujoco::robotics::kitchen {

// One kitchen task: its qpos elements and goal (kitchen_env.py's OBS_ELEMENT_INDICES / _GOALS).
struct KitchenTask {
  const char* name;
  int first, size;  // qpos[first : first + size]
  std::array<double, 7> goal;
};

inline constexpr int kTaskCount = 7;
inline constexpr std::array<KitchenTask, kTaskCount> kTasks = {{
    {"bottom burner", 11, 2, {-0.88, -0.01}},
    {"top burner", 15, 2, {-0.92, -0.01}},
    {"light switch", 17, 2, {-0.69, -0.05}},
    {"slide cabinet", 19, 1, {0.37}},
    {"hinge cabinet", 20, 2, {0.0, 1.45}},
    {"microwave", 22, 1, {-0.75}},
    {"kettle", 23, 7, {-0.23, 0.75, 1.62, 0.99, 0.0, 0.0, -0.06}},
}};

inline constexpr double kBonusThreshold = 0.3;
inline constexpr int kRobotJoints = 9;
inline constexpr int kFrameSkip = 40;

// kitchen_env.py's init_qpos (the robot's and the objects' initial positions).
inline constexpr std::array<double, 30> kInitQpos = {
    1.48388023e-01,  -1.76848573e00,  1.84390296e00,   -2.47685760e00,  2.60252026e-01,  7.12533105e-01,
    1.59515394e00,   4.79267505e-02,  3.71350919e-02,  -2.66279850e-04, -5.18043486e-05, 3.12877220e-05,
    -4.51199853e-05, -3.90842156e-06, -4.22629655e-05, 6.28065475e-05,  4.04984708e-05,  4.62730939e-04,
    -2.26906415e-04, -4.65501369e-04, -6.44129196e-03, -1.77048263e-03, 1.08009684e-03,  -2.69397440e-01,
    3.50383255e-01,  1.61944683e00,   1.00618764e00,   4.06395120e-03,  -6.62095997e-03, -2.68278933e-04};

// The flat name of a goal entry: "achieved_goal/<task>" or "desired_goal/<task>" (upstream nests
// a dict per task under each; docs/tasks.md says how to read them).
inline std::string GoalKey(const char* which, const char* task) { return std::string(which) + "/" + task; }

// The goal tasks of the tasks_to_complete kwarg, as indices into kTasks in the kwarg's order
// (repeats once); a task the kitchen lacks, or none, is a std::invalid_argument naming it.
inline std::vector<int> ReadGoalTasks(const Config& config) {
  std::vector<int> goal;
  for (const auto& name : config.Get<std::vector<std::string>>("tasks_to_complete")) {
    int found = -1;
    for (int k = 0; k < kTaskCount; ++k) {
      if (name == kTasks[k].name) found = k;
    }
    if (found < 0) {
      std::string all;
      for (const auto& t : kTasks) all += std::string(all.empty() ? "'" : ", '") + t.name + "'";
      throw std::invalid_argument("tasks_to_complete: the kitchen has no task '" + name + "' (its tasks: " + all + ")");
    }
    if (std::find(goal.begin(), goal.end(), found) == goal.end()) goal.push_back(found);
  }
  // Upstream takes an empty list (its episodes then end at their first step); here the
  // observation would lose its Dict form (a lone array is a Box), so it is refused.
  if (goal.empty()) throw std::invalid_argument("tasks_to_complete: give at least one of the kitchen's tasks");
  return goal;
}

// franka_config.xml's per-joint limits and noise amplitudes (utils.read_config_from_node: the
// <qpos{i}> element's pos_bound, vel_bound, pos_noise_amp[0], vel_noise_amp[0]).
struct RobotConfig {
  std::vector<std::array<double, 2>> pos_bound, vel_bound;
  std::vector<double> pos_noise_amp, vel_noise_amp;
};

inline std::vector<double> ConfigValues(const std::string& text, int joint, const char* attribute) {
  const std::string tag = "<qpos" + std::to_string(joint) + " ";
  const std::size_t at = text.find(tag);
  const std::size_t end = at == std::string::npos ? at : text.find('>', at);
  const std::string key = std::string(attribute) + "='";
  const std::size_t value = at == std::string::npos ? at : text.find(key, at);
  if (value == std::string::npos || value > end) {
    throw std::runtime_error("franka_config.xml has no " + std::string(attribute) + " for qpos" +
                             std::to_string(joint));
  }
  const char* p = text.c_str() + value + key.size();
  std::vector<double> out;
  while (*p != '\'' && *p != '\0') {
    char* next = nullptr;
    const double v = std::strtod(p, &next);
    if (next == p) break;
    out.push_back(v);
    p = next;
    while (*p == ' ') ++p;
  }
  if (out.empty()) throw std::runtime_error("franka_config.xml: empty " + std::string(attribute));
  return out;
}

inline RobotConfig ReadRobotConfig(int nv) {
  const std::string text =
      ReadTextFile((RoboticsAssetDir() / "kitchen_franka/franka_assets/franka_config.xml").string());
  RobotConfig c;
  for (int i = 0; i < nv; ++i) {
    const auto pos = ConfigValues(text, i, "pos_bound"), vel = ConfigValues(text, i, "vel_bound");
    if (pos.size() != 2 || vel.size() != 2) throw std::runtime_error("franka_config.xml: bounds need 2 values");
    c.pos_bound.push_back({pos[0], pos[1]});
    c.vel_bound.push_back({vel[0], vel[1]});
    c.pos_noise_amp.push_back(ConfigValues(text, i, "pos_noise_amp")[0]);
    c.vel_noise_amp.push_back(ConfigValues(text, i, "vel_noise_amp")[0]);
  }
  return c;
}

class KitchenEnv : public Env {
 public:
  static Config DefaultConfig() {
    std::vector<std::string> all;
    for (const auto& t : kTasks) all.emplace_back(t.name);
    Config c{{"tasks_to_complete", all},
             {"terminate_on_tasks_completed", true},
             {"remove_task_when_completed", true},
             {"object_noise_ratio", 0.0005},
             {"robot_noise_ratio", 0.01}};
    gym::AddRenderConfig(c, {"distance=2.2", "azimuth=70.0", "elevation=-35.0", "lookat=-0.2 0.5 2.0"});
    return c;
  }

  // Dict: "achieved_goal/<task>" and "desired_goal/<task>" per goal task (float64, the task's
  // element count), "observation" (59,); a float64 Box(-1, 1, (9,)) action; the three task lists
  // as bool masks over kTasks; render_fps 12 (1 / (40 * 0.002), rounded).
  static EnvSpec Spec(const Config& config) {
    const std::vector<int> goal = ReadGoalTasks(config);
    EnvSpec spec;
    for (const char* which : {"achieved_goal", "desired_goal"}) {
      for (int k : goal) {
        spec.obs.push_back(
            ArraySpec::Box(GoalKey(which, kTasks[k].name), DType::kFloat64, {kTasks[k].size}, {-INFINITY}, {INFINITY}));
      }
    }
    spec.obs.push_back(ArraySpec::Box("observation", DType::kFloat64, {59}, {-INFINITY}, {INFINITY}));
    spec.action.push_back(ArraySpec::Box("action", DType::kFloat64, {kRobotJoints}, {-1.0}, {1.0}));
    for (const char* name : {"tasks_to_complete", "step_task_completions", "episode_task_completions"}) {
      spec.info.push_back(ArraySpec::Box(name, DType::kBool, {kTaskCount}, {}, {}));
    }
    std::tie(spec.render_height, spec.render_width) = gym::FrameSize(config);
    spec.render_fps = 12;
    return spec;
  }

  explicit KitchenEnv(const Config& config)
      : goal_(ReadGoalTasks(config)),
        terminate_on_completed_(config.Get<bool>("terminate_on_tasks_completed")),
        remove_when_completed_(config.Get<bool>("remove_task_when_completed")),
        object_noise_ratio_(config.Get<double>("object_noise_ratio")),
        robot_noise_ratio_(config.Get<double>("robot_noise_ratio")),
        model_(LoadModel((RoboticsAssetDir() / "kitchen_franka/kitchen_assets/kitchen_env_model.xml").string())),
        m_(model_.get()),
        renderer_(config, m_) {
    if (m_->nq != 30 || m_->nv != 29 || m_->nu != kRobotJoints) {
      throw std::runtime_error("the kitchen model has an unexpected size (nq 30, nv 29, nu 9 expected)");
    }
    robot_ = ReadRobotConfig(m_->nv);
    data_ = Mj().makeData(m_);
    if (!data_) throw std::runtime_error("MuJoCo could not allocate mjData");
  }
  ~KitchenEnv() override {
    if (data_) Mj().deleteData(data_);
  }
  KitchenEnv(const KitchenEnv&) = delete;
  KitchenEnv& operator=(const KitchenEnv&) = delete;

  void Reset(Rng& rng, Output& out) override {
    const MjApi& mj = Mj();
    mj.resetData(m_, data_);
    std::copy(kInitQpos.begin(), kInitQpos.end(), data_->qpos);
    std::fill(data_->qvel, data_->qvel + m_->nv, 0.0);
    mj.forward(m_, data_);
    WriteObs(rng, out);
    to_complete_.fill(false);
    for (int k : goal_) to_complete_[k] = true;
    episode_.fill(false);
    std::array<bool, kTaskCount> none{};
    WriteInfo(out, none);
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    const double* a = action.Get<double>();
    const double dt = m_->opt.timestep * kFrameSkip;
    for (int i = 0; i < kRobotJoints; ++i) {
      const double scaled = 0.0 + std::clamp(a[i], -1.0, 1.0) * 2.0;  // act_mid + action * act_rng
      const double velocity = std::min(std::max(scaled, robot_.vel_bound[i][0]), robot_.vel_bound[i][1]);
      const double position = last_robot_qpos_[i] + velocity * dt;
      data_->ctrl[i] = std::min(std::max(position, robot_.pos_bound[i][0]), robot_.pos_bound[i][1]);
    }
    const MjApi& mj = Mj();
    for (int k = 0; k < kFrameSkip; ++k) mj.step(m_, data_);
    mj.rnePostConstraint(m_, data_);
    WriteObs(rng, out);
    // compute_reward over the tasks still to complete: one per task within the threshold.
    std::array<bool, kTaskCount> step{};
    int completed = 0;
    for (int k = 0; k < kTaskCount; ++k) {
      if (!to_complete_[k] || !Within(kTasks[k])) continue;
      step[k] = true;
      ++completed;
    }
    for (int k = 0; k < kTaskCount; ++k) {
      if (step[k] && remove_when_completed_) to_complete_[k] = false;
      if (step[k]) episode_[k] = true;
    }
    out.reward() = static_cast<double>(completed);
    bool done = false;
    if (terminate_on_completed_) {
      done = true;
      for (int k : goal_) done = done && episode_[k];
    }
    out.terminated() = done;
    WriteInfo(out, step);
  }

  void Render(uint8_t* rgb) const override { renderer_.Draw(m_, data_, rgb); }

  // FrankaRobot's (MujocoEnv's) get_state / set_state(qpos, qvel), then mj_forward; the tasks
  // still to complete and the last observed robot qpos stay as they are, as upstream.
  std::vector<double> GetState() const override { return ReadState(m_, data_); }
  void SetState(const std::vector<double>& state) override { SetMujocoEnvState(m_, data_, state); }

 private:
  // np.linalg.norm(achieved - goal) < 0.3 (the noiseless qpos elements; x.dot(x), products
  // rounded and added in order for these short vectors).
  bool Within(const KitchenTask& t) const {
    double diff[7];
    for (int j = 0; j < t.size; ++j) diff[j] = data_->qpos[t.first + j] - t.goal[j];
    double dot = 0.0;
    for (int j = 0; j < t.size; ++j) dot += diff[j] * diff[j];
    return std::sqrt(dot) < kBonusThreshold;
  }

  // FrankaRobot._get_obs then KitchenEnv._get_obs: the draws in upstream's order.
  void WriteObs(Rng& rng, Output& out) {
    const int nq = m_->nq, nv = m_->nv;
    double* obs = nullptr;
    std::size_t index = 0;
    for (const char* which : {"achieved_goal", "desired_goal"}) {
      for (int k : goal_) {
        double* dst = out.Obs<double>(index++);
        const KitchenTask& t = kTasks[k];
        const bool achieved = which[0] == 'a';
        for (int j = 0; j < t.size; ++j) dst[j] = achieved ? data_->qpos[t.first + j] : t.goal[j];
      }
    }
    obs = out.Obs<double>(index);
    for (int i = 0; i < kRobotJoints; ++i) {
      obs[i] = data_->qpos[i] + robot_noise_ratio_ * robot_.pos_noise_amp[i] * rng.Uniform(-1.0, 1.0);
      last_robot_qpos_[i] = obs[i];
    }
    for (int i = 0; i < kRobotJoints; ++i) {
      obs[kRobotJoints + i] = data_->qvel[i] + robot_noise_ratio_ * robot_.vel_noise_amp[i] * rng.Uniform(-1.0, 1.0);
    }
    double* objects = obs + 2 * kRobotJoints;
    for (int i = kRobotJoints; i < nq; ++i) {
      objects[i - kRobotJoints] =
          data_->qpos[i] + object_noise_ratio_ * robot_.pos_noise_amp[i - 1] * rng.Uniform(-1.0, 1.0);
    }
    objects += nq - kRobotJoints;
    for (int i = kRobotJoints; i < nv; ++i) {
      objects[i - kRobotJoints] =
          data_->qvel[i] + object_noise_ratio_ * robot_.vel_noise_amp[i] * rng.Uniform(-1.0, 1.0);
    }
  }

  void WriteInfo(Output& out, const std::array<bool, kTaskCount>& step) const {
    std::copy(to_complete_.begin(), to_complete_.end(), out.Info<bool>(0));
    std::copy(step.begin(), step.end(), out.Info<bool>(1));
    std::copy(episode_.begin(), episode_.end(), out.Info<bool>(2));
  }

  std::vector<int> goal_;
  bool terminate_on_completed_, remove_when_completed_;
  double object_noise_ratio_, robot_noise_ratio_;
  std::shared_ptr<const mjModel> model_;
  const mjModel* m_;
  mjData* data_ = nullptr;
  mutable gym::GymRenderer renderer_;
  RobotConfig robot_;
  std::array<double, kRobotJoints> last_robot_qpos_{};
  std::array<bool, kTaskCount> to_complete_{}, episode_{};
};

}  // namespace envpool::mujoco::robotics::kitchen
