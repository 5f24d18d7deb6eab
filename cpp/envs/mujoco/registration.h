// The MuJoCo family's task lists, which registration.cc joins into mujoco::Tasks(): each
// sub-family (gymnasium's v5 tasks in gym/, dm_control's suite in dmc/, gymnasium-robotics'
// in robotics/) registers its own.
#pragma once

#include <vector>

#include "core/registry.h"

namespace envpool::mujoco::gym {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::mujoco::gym
namespace envpool::mujoco::dmc {
std::vector<TaskSpec> Tasks();
}  // namespace envpool::mujoco::dmc
namespace envpool::mujoco::robotics {
std::vector<TaskSpec> Tasks();  // gymnasium-robotics' (robotics/registration.cc)
}  // namespace envpool::mujoco::robotics
