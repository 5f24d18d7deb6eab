// The MuJoCo tasks, compiled when the build found MuJoCo's headers; libmujoco itself is loaded
// when one is made (envs/mujoco/loader.h). Each sub-family lists its own (registration.h).
#include "envs/mujoco/registration.h"

namespace envpool::mujoco {

std::vector<TaskSpec> Tasks() { return gym::Tasks(); }

}  // namespace envpool::mujoco
