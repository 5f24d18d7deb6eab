// gymnasium-robotics' tasks (the MuJoCo family's third sub-family): each sub-family's list.
#include "envs/mujoco/robotics/registration.h"

#include "envs/mujoco/registration.h"

namespace envpool::mujoco::robotics {

std::vector<TaskSpec> Tasks() { return maze::Tasks(); }

}  // namespace envpool::mujoco::robotics
