// gymnasium-robotics 1.4.2's Shadow Dexterous Hand tasks: HandReach-v3 and the HandManipulate
// Block / Egg / Pen v1 ids (every rotation variant, the touch-sensor ones), sparse and Dense
// (reward_type "dense"), with gymnasium-robotics' time limits (50 and 100 steps); the legacy
// mujoco_py v0 ids as aliases of the modern ones (as the reference EnvPool 1.2.7 registers them:
// mujoco_py cannot run here). GoalTask: compute_reward & co. on the pool are the tasks' own.
#include "envs/mujoco/robotics/registration.h"

#include "core/goals.h"
#include "core/registry.h"
#include "envs/mujoco/robotics/hand/manipulate_env.h"
#include "envs/mujoco/robotics/hand/reach_env.h"

namespace envpool::mujoco::robotics::hand {

namespace {

// The sparse id and its Dense twin, each with its -v0 alias; `version` is the modern suffix.
template <typename E>
void AddPair(std::vector<TaskSpec>& tasks, const std::string& name, const std::string& version, int steps,
             Config kwargs) {
  tasks.push_back(GoalTask<E>(name + version, steps, NAN, kwargs).WithAliases({name + "-v0"}));
  kwargs.Set("reward_type", std::string("dense"));
  tasks.push_back(GoalTask<E>(name + "Dense" + version, steps, NAN, kwargs).WithAliases({name + "Dense-v0"}));
}

// One object's ids: {name}{variant} for the variants gymnasium-robotics registers, plain and with
// _BooleanTouchSensors / _ContinuousTouchSensors where it registers them.
template <HandObject O>
void AddObject(std::vector<TaskSpec>& tasks, const std::string& name,
               const std::vector<std::tuple<std::string, std::string, std::string, bool>>& variants) {
  for (const auto& [variant, position, rotation, touch] : variants) {
    const Config kwargs{{"target_position", position}, {"target_rotation", rotation}};
    const std::string id = "HandManipulate" + name + variant;
    AddPair<HandManipulateEnv<O, false>>(tasks, id, "-v1", 100, kwargs);
    if (!touch) continue;
    Config boolean = kwargs, continuous = kwargs;
    boolean.Set("touch_get_obs", std::string("boolean"));
    continuous.Set("touch_get_obs", std::string("sensordata"));
    AddPair<HandManipulateEnv<O, true>>(tasks, id + "_BooleanTouchSensors", "-v1", 100, boolean);
    AddPair<HandManipulateEnv<O, true>>(tasks, id + "_ContinuousTouchSensors", "-v1", 100, continuous);
  }
}

}  // namespace

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> tasks;
  AddPair<HandReachEnv>(tasks, "HandReach", "-v3", 50, Config{});
  AddObject<HandObject::kBlock>(tasks, "Block",
                                {{"RotateZ", "ignore", "z", true},
                                 {"RotateParallel", "ignore", "parallel", true},
                                 {"RotateXYZ", "ignore", "xyz", true},
                                 {"Full", "random", "xyz", false},
                                 {"", "random", "xyz", true}});
  AddObject<HandObject::kEgg>(
      tasks, "Egg", {{"Rotate", "ignore", "xyz", true}, {"Full", "random", "xyz", false}, {"", "random", "xyz", true}});
  AddObject<HandObject::kPen>(
      tasks, "Pen", {{"Rotate", "ignore", "xyz", true}, {"Full", "random", "xyz", false}, {"", "random", "xyz", true}});
  return tasks;
}

}  // namespace envpool::mujoco::robotics::hand
