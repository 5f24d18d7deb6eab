// gymnasium-robotics 1.4.2's Fetch tasks: the v4 ids, sparse and Dense (reward_type "dense"),
// each with gymnasium-robotics' 50-step time limit, and the legacy mujoco_py v1 ids as aliases
// of the v4 ones (as the reference EnvPool 1.2.7 registers them: mujoco_py cannot run here).
// GoalTask: compute_reward & co. on the pool are the tasks' own (FetchEnv::ComputeReward).
#include "envs/mujoco/robotics/registration.h"

#include "core/goals.h"
#include "core/registry.h"
#include "envs/mujoco/robotics/fetch/fetch_env.h"

namespace envpool::mujoco::robotics::fetch {

namespace {

template <FetchTask T>
void AddPair(std::vector<TaskSpec>& tasks, const std::string& name) {
  tasks.push_back(GoalTask<FetchEnv<T>>(name + "-v4", 50).WithAliases({name + "-v1"}));
  tasks.push_back(GoalTask<FetchEnv<T>>(name + "Dense-v4", 50, NAN, Config{{"reward_type", std::string("dense")}})
                      .WithAliases({name + "Dense-v1"}));
}

}  // namespace

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> tasks;
  AddPair<FetchTask::kReach>(tasks, "FetchReach");
  AddPair<FetchTask::kPush>(tasks, "FetchPush");
  AddPair<FetchTask::kSlide>(tasks, "FetchSlide");
  AddPair<FetchTask::kPickAndPlace>(tasks, "FetchPickAndPlace");
  return tasks;
}

}  // namespace envpool::mujoco::robotics::fetch
