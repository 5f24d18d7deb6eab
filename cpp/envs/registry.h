// The task registry: every task id the package offers, read by the C++ pool and, through
// the bindings, by Python (envpool.list_all_envs, gymnasium registration, the CLI).
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/spec.h"

namespace envpool {

struct TaskSpec {
  std::string id;                  // "CartPole-v1"
  int max_episode_steps = 0;       // gymnasium's TimeLimit for this id (0: none)
  double reward_threshold = NAN;   // gymnasium's registered threshold (NaN: none)
  Config defaults;                 // the env's kwargs with this id's defaults
  std::function<EnvSpec(const Config&)> spec;
  std::function<std::unique_ptr<Env>(const Config&)> make;
};

// Registry entry for env class E under `id`; `overrides` change E's default kwargs for this id.
template <typename E>
TaskSpec Task(std::string id, int max_episode_steps, double reward_threshold = NAN, Config overrides = {}) {
  Config defaults = E::DefaultConfig();
  for (const auto& [key, value] : overrides.values()) defaults.Set(key, value);
  return TaskSpec{std::move(id), max_episode_steps, reward_threshold, std::move(defaults),
                  [](const Config& c) { return E::Spec(c); },
                  [](const Config& c) -> std::unique_ptr<Env> { return std::make_unique<E>(c); }};
}

// All registered tasks, in registration order.
const std::vector<TaskSpec>& AllTasks();

// The task with this id; throws std::invalid_argument naming close matches when there is none.
const TaskSpec& FindTask(const std::string& id);

}  // namespace envpool
