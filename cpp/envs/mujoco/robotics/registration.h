// gymnasium-robotics' task lists, one per sub-family (each in its folder's registration.cc),
// which registration.cc joins into robotics::Tasks().
#pragma once

#include <vector>

#include "core/registry.h"

namespace envpool::mujoco::robotics::maze {
std::vector<TaskSpec> Tasks();  // PointMaze (maze/registration.cc)
}  // namespace envpool::mujoco::robotics::maze
namespace envpool::mujoco::robotics::fetch {
std::vector<TaskSpec> Tasks();  // Fetch Reach / Push / Slide / PickAndPlace (fetch/registration.cc)
}  // namespace envpool::mujoco::robotics::fetch
namespace envpool::mujoco::robotics::hand {
std::vector<TaskSpec> Tasks();  // Shadow Hand Reach / Manipulate Block, Egg, Pen (hand/registration.cc)
}  // namespace envpool::mujoco::robotics::hand
namespace envpool::mujoco::robotics::adroit {
std::vector<TaskSpec> Tasks();  // Adroit hand Door / Hammer / Pen / Relocate (adroit/registration.cc)
}  // namespace envpool::mujoco::robotics::adroit
namespace envpool::mujoco::robotics::kitchen {
std::vector<TaskSpec> Tasks();  // FrankaKitchen-v1 (kitchen/registration.cc)
}  // namespace envpool::mujoco::robotics::kitchen
