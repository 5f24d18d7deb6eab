// gymnasium-robotics' tasks (the MuJoCo family's third sub-family): each sub-family's list.
#include "envs/mujoco/robotics/registration.h"

#include "envs/mujoco/registration.h"

namespace envpool::mujoco::robotics {

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> tasks = maze::Tasks();
  for (auto& task : fetch::Tasks()) tasks.push_back(std::move(task));
  for (auto& task : hand::Tasks()) tasks.push_back(std::move(task));
  for (auto& task : adroit::Tasks()) tasks.push_back(std::move(task));
  for (auto& task : kitchen::Tasks()) tasks.push_back(std::move(task));
  return tasks;
}

}  // namespace envpool::mujoco::robotics
