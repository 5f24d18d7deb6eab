// The tasks compiled into the package: one family per folder of cpp/envs/, each in its own
// namespace envpool::<family> and listing its tasks in its registration.cc.
#pragma once

#include <vector>

#include "core/registry.h"

namespace envpool {

// Adds every built-in task to the registry (core/registry.h). Idempotent.
void RegisterBuiltinTasks();

}  // namespace envpool

// Each family's tasks (envs/<family>/registration.cc), in the family's own namespace
// envpool::<family>, so that two families can name a class or helper alike.
namespace envpool::classic_control {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::classic_control
namespace envpool::toy_text {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::toy_text
namespace envpool::mpe {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::mpe
namespace envpool::classic_games {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::classic_games
namespace envpool::minigrid {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::minigrid
namespace envpool::procgen {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::procgen
#ifdef ENVPOOL_WITH_BOX2D
namespace envpool::box2d {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::box2d
#endif
#ifdef ENVPOOL_WITH_MUJOCO
namespace envpool::mujoco {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::mujoco
#endif
