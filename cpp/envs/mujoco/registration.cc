// The MuJoCo tasks, compiled when the build found MuJoCo's headers; libmujoco itself is loaded
// when one is made (envs/mujoco/loader.h). Each sub-family lists its own (registration.h).
#include "envs/mujoco/registration.h"

namespace envpool::mujoco {

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> tasks = gym::Tasks();
  for (auto& task : dmc::Tasks()) tasks.push_back(std::move(task));
  for (auto& task : robotics::Tasks()) tasks.push_back(std::move(task));
  return tasks;
}

}  // namespace envpool::mujoco
