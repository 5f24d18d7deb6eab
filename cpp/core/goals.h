// Goal-conditioned tasks (gymnasium-robotics' GoalEnv): their Dict(observation, achieved_goal,
// desired_goal) observations are ordinary obs arrays; what they add is the reward function HER
// relabels goals with, compute_reward(achieved_goal, desired_goal, info), and its siblings
// compute_terminated / compute_truncated, each a function of the goals and the env's kwargs.
//
// A task registers its three functions here under its id (GoalTask<E> in a family's
// registration.cc); the bindings reach them through a pool (PyPool::GoalCompute), which applies
// the kwargs of the env asked for. The envs' own Step calls the same functions, so a relabelled
// reward is the step reward bit for bit. Kept apart from TaskSpec so that the plugin ABI (its
// sizeof) is unchanged.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"

namespace envpool {

struct GoalFunctions {
  // Elements of one achieved_goal / desired_goal.
  int goal_size = 0;
  // Each writes one value per row of n goal rows (row i at achieved + i * goal_size): the reward,
  // or 1 / 0 for terminated / truncated. `config`: the kwargs of the env it is computed for.
  using Batch = std::function<void(const Config& config, const double* achieved, const double* desired, std::size_t n,
                                   double* out)>;
  Batch reward, terminated, truncated;
  // The kwargs the functions read (empty: any may matter): envs whose configs differ only in
  // others (their maps, frame sizes) share one compute_reward.
  std::vector<std::string> config_keys = {};
};

namespace detail {
struct GoalRegistry {
  std::mutex mutex;
  std::map<std::string, GoalFunctions> by_id;  // a task's own id (aliases resolve through FindTask)
};
inline GoalRegistry& Goals() {
  static GoalRegistry registry;
  return registry;
}
}  // namespace detail

// Registers the goal functions of task `task_id` (its own id, not an alias). Thread-safe.
inline void RegisterGoalFunctions(const std::string& task_id, GoalFunctions functions) {
  if (functions.goal_size <= 0 || !functions.reward || !functions.terminated || !functions.truncated) {
    throw std::invalid_argument("goal functions of " + task_id + " are incomplete");
  }
  auto& r = detail::Goals();
  std::lock_guard lock(r.mutex);
  r.by_id[task_id] = std::move(functions);
}

// The goal functions of the task `task_id` names (an id or an alias), or nullptr when it is not
// goal-conditioned. The pointer stays valid: entries are never removed.
inline const GoalFunctions* FindGoalFunctions(const std::string& task_id) {
  const std::string& id = FindTask(task_id).id;
  auto& r = detail::Goals();
  std::lock_guard lock(r.mutex);
  auto it = r.by_id.find(id);
  return it == r.by_id.end() ? nullptr : &it->second;
}

// Registry entry for a goal-conditioned env class E: Task<E>, and E's static
//   static int GoalSize(const Config&);  (the same for every config of the id)
//   static void ComputeReward(const Config&, const double* achieved, const double* desired,
//                             std::size_t n, double* out);
// and ComputeTerminated / ComputeTruncated of the same signature, registered under `id`; and
// optionally static std::vector<std::string> GoalConfigKeys() (GoalFunctions::config_keys).
template <typename E>
TaskSpec GoalTask(std::string id, int max_episode_steps, double reward_threshold = NAN, Config overrides = {}) {
  TaskSpec task = Task<E>(std::move(id), max_episode_steps, reward_threshold, std::move(overrides));
  GoalFunctions functions{E::GoalSize(task.defaults), &E::ComputeReward, &E::ComputeTerminated, &E::ComputeTruncated};
  if constexpr (requires { E::GoalConfigKeys(); }) functions.config_keys = E::GoalConfigKeys();
  RegisterGoalFunctions(task.id, std::move(functions));
  return task;
}

}  // namespace envpool
