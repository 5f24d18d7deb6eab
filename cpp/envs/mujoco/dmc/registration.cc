// dm_control's suite (dm-control 1.0.50's suite.ALL_TASKS), under the reference EnvPool's ids
// (<Domain><Task>-v1) and kwargs (task_name, frame_skip) plus dm_control's own task and
// environment kwargs (dmc_env.h). Every suite task runs 1000 steps with its defaults.
#include "envs/mujoco/registration.h"

#include "core/registry.h"
#include "envs/mujoco/dmc/acrobot.h"
#include "envs/mujoco/dmc/ball_in_cup.h"
#include "envs/mujoco/dmc/cartpole.h"
#include "envs/mujoco/dmc/cheetah.h"
#include "envs/mujoco/dmc/dog.h"
#include "envs/mujoco/dmc/finger.h"
#include "envs/mujoco/dmc/fish.h"
#include "envs/mujoco/dmc/hopper.h"
#include "envs/mujoco/dmc/humanoid.h"
#include "envs/mujoco/dmc/lqr.h"
#include "envs/mujoco/dmc/manipulator.h"
#include "envs/mujoco/dmc/pendulum.h"
#include "envs/mujoco/dmc/point_mass.h"
#include "envs/mujoco/dmc/quadruped.h"
#include "envs/mujoco/dmc/reacher.h"
#include "envs/mujoco/dmc/stacker.h"
#include "envs/mujoco/dmc/swimmer.h"
#include "envs/mujoco/dmc/walker.h"

namespace envpool::mujoco::dmc {

namespace {

// "ball_in_cup" -> "BallInCup".
std::string Camel(const std::string& snake) {
  std::string out;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
    } else {
      out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    }
  }
  return out;
}

template <typename E>
void Add(std::vector<TaskSpec>& tasks, const std::string& domain, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    tasks.push_back(Task<E>(Camel(domain) + Camel(name) + "-v1", 1000, NAN, {{"task_name", std::string(name)}}));
  }
}

}  // namespace

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> t;
  Add<Acrobot>(t, "acrobot", {"swingup", "swingup_sparse"});
  Add<BallInCup>(t, "ball_in_cup", {"catch"});
  Add<Cartpole>(t, "cartpole", {"balance", "balance_sparse", "swingup", "swingup_sparse", "three_poles", "two_poles"});
  Add<Cheetah>(t, "cheetah", {"run"});
  Add<Dog>(t, "dog", {"fetch", "run", "stand", "trot", "walk"});
  Add<Finger>(t, "finger", {"spin", "turn_easy", "turn_hard"});
  Add<Fish>(t, "fish", {"swim", "upright"});
  Add<Hopper>(t, "hopper", {"hop", "stand"});
  Add<Humanoid>(t, "humanoid", {"run", "run_pure_state", "stand", "walk"});
  Add<HumanoidCMU>(t, "humanoid_CMU", {"run", "stand", "walk"});
  // LQR: dm_control's time limit is infinite (episodes end when the state reaches the origin).
  for (const char* name : {"lqr_2_1", "lqr_6_2"}) {
    t.push_back(Task<Lqr>(Camel("lqr") + Camel(name) + "-v1", 0, NAN, {{"task_name", std::string(name)}}));
  }
  Add<Manipulator>(t, "manipulator", {"bring_ball", "bring_peg", "insert_ball", "insert_peg"});
  Add<Pendulum>(t, "pendulum", {"swingup"});
  Add<PointMass>(t, "point_mass", {"easy", "hard"});
  Add<Quadruped>(t, "quadruped", {"escape", "fetch", "run", "walk"});
  Add<Reacher>(t, "reacher", {"easy", "hard"});
  Add<Stacker>(t, "stacker", {"stack_2", "stack_4"});
  Add<Swimmer>(t, "swimmer", {"swimmer6", "swimmer15"});
  Add<Walker>(t, "walker", {"run", "stand", "walk"});
  return t;
}

}  // namespace envpool::mujoco::dmc
