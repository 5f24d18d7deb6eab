// gymnasium-robotics 1.4.2's FrankaKitchen-v1, with its registry's 280-step time limit.
#include "envs/mujoco/robotics/registration.h"

#include "core/registry.h"
#include "envs/mujoco/robotics/kitchen/kitchen_env.h"

namespace envpool::mujoco::robotics::kitchen {

std::vector<TaskSpec> Tasks() { return {Task<KitchenEnv>("FrankaKitchen-v1", 280)}; }

}  // namespace envpool::mujoco::robotics::kitchen
