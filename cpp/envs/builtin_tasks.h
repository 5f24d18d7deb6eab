// The tasks compiled into the package: one family per folder of cpp/envs/, each listing its
// tasks in its registration.cc.
#pragma once

#include <vector>

#include "core/registry.h"

namespace envpool {

// Adds every built-in task to the registry (core/registry.h). Idempotent.
void RegisterBuiltinTasks();

// Each family's tasks (envs/<family>/registration.cc).
std::vector<TaskSpec> ClassicControlTasks();
std::vector<TaskSpec> ToyTextTasks();
std::vector<TaskSpec> MpeTasks();
std::vector<TaskSpec> ClassicGameTasks();
#ifdef ENVPOOL_WITH_MUJOCO
std::vector<TaskSpec> MujocoTasks();
#endif

}  // namespace envpool
