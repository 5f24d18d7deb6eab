// The task registry: every task id a pool can be made for, read by the C++ pool and, through
// the bindings, by Python (envpool.list_all_envs, gymnasium registration, the CLI).
//
// The registry is open: built-in envs register at module load (RegisterBuiltinTasks, which
// cpp/envs/CMakeLists.txt generates), and anything else (a plugin, a test) can add tasks at run
// time with RegisterTask. Entries are never removed, so a `const TaskSpec&` stays valid for the
// life of the process.
//
// A task may have aliases: other ids that make the same task (the reference EnvPool's spellings,
// such as "LunarLander-v2" for "LunarLander-v3" or "phys2d/CartPole-v1"). An alias is not a second
// entry: FindTask returns its task, AllTasks lists the task once (with its aliases), and no id or
// alias may be taken twice.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/spec.h"

namespace envpool {

struct TaskSpec {
  std::string id;                 // "CartPole-v1"
  int max_episode_steps = 0;      // gymnasium's TimeLimit for this id (0: none)
  double reward_threshold = NAN;  // gymnasium's registered threshold (NaN: none)
  Config defaults;                // the env's kwargs with this id's defaults
  std::function<EnvSpec(const Config&)> spec;
  std::function<std::unique_ptr<Env>(const Config&)> make;
  std::string origin = "built-in";        // where the task came from (built-in, a plugin's name, ...)
  std::vector<std::string> aliases = {};  // other ids that make this task, e.g. {"Taxi-v3"} for "Taxi-v4"

  // This entry with `ids` as its aliases, for a registration list:
  // `Task<Taxi>("Taxi-v4", 200, 8.0).WithAliases({"Taxi-v3"})`.
  TaskSpec WithAliases(std::vector<std::string> ids) && {
    aliases = std::move(ids);
    return std::move(*this);
  }
};

// Registry entry for env class E under `id`; `overrides` change E's default kwargs for this id.
template <typename E>
TaskSpec Task(std::string id, int max_episode_steps, double reward_threshold = NAN, Config overrides = {}) {
  Config defaults = E::DefaultConfig();
  for (const auto& [key, value] : overrides.values()) defaults.Set(key, value);
  return TaskSpec{std::move(id),
                  max_episode_steps,
                  reward_threshold,
                  std::move(defaults),
                  [](const Config& c) { return E::Spec(c); },
                  [](const Config& c) -> std::unique_ptr<Env> { return std::make_unique<E>(c); }};
}

// Adds a task; throws std::invalid_argument if its id or one of its aliases is taken (as an id or
// an alias), or the entry is incomplete. Thread-safe.
const TaskSpec& RegisterTask(TaskSpec task);

// Adds all of `tasks` or, if any is refused (as by RegisterTask, or two share an id), none.
void RegisterTasks(std::vector<TaskSpec> tasks);

// All registered tasks, in registration order (a snapshot: pointers stay valid).
std::vector<const TaskSpec*> AllTasks();

// The task with this id or alias; throws std::invalid_argument naming close matches when there is
// none.
const TaskSpec& FindTask(const std::string& id);

// Per-env configs from a task's defaults and the user's kwargs: `kwargs` maps a key to either
// one value for all envs or one value per env. Throws std::invalid_argument naming an unknown
// key (with the keys closest to it first) or a value of the wrong type or length.
std::vector<Config> MakeConfigs(const TaskSpec& task, int num_envs,
                                const std::vector<std::pair<std::string, std::vector<ConfigValue>>>& kwargs);

}  // namespace envpool
