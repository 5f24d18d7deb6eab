// gymnasium-robotics 1.4.2's Adroit hand tasks: Door, Hammer, Pen and Relocate, each as its
// registry has them: the sparse ids (AdroitHand<Task>Sparse-v1, reward_type "sparse") and the
// dense ones (AdroitHand<Task>-v1), with its 200-step time limit.
#include "envs/mujoco/robotics/registration.h"

#include "core/registry.h"
#include "envs/mujoco/robotics/adroit/adroit_env.h"

namespace envpool::mujoco::robotics::adroit {

namespace {

template <AdroitTask T>
void AddPair(std::vector<TaskSpec>& tasks, const std::string& name) {
  tasks.push_back(Task<AdroitEnv<T>>(name + "-v1", 200, NAN, Config{{"reward_type", std::string("dense")}}));
  tasks.push_back(Task<AdroitEnv<T>>(name + "Sparse-v1", 200, NAN, Config{{"reward_type", std::string("sparse")}}));
}

}  // namespace

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> tasks;
  AddPair<AdroitTask::kDoor>(tasks, "AdroitHandDoor");
  AddPair<AdroitTask::kHammer>(tasks, "AdroitHandHammer");
  AddPair<AdroitTask::kPen>(tasks, "AdroitHandPen");
  AddPair<AdroitTask::kRelocate>(tasks, "AdroitHandRelocate");
  return tasks;
}

}  // namespace envpool::mujoco::robotics::adroit
