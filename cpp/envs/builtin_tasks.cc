// The built-in tasks. Adding an environment: write cpp/envs/<name>.h, include it here and add
// its Task<> entry (two lines: the #include and the entry).
#include "envs/builtin_tasks.h"

#include "core/registry.h"

#include "envs/acrobot.h"
#include "envs/blackjack.h"
#include "envs/cartpole.h"
#include "envs/cliff_walking.h"
#include "envs/frozen_lake.h"
#include "envs/mountain_car.h"
#include "envs/mountain_car_continuous.h"
#include "envs/pendulum.h"
#include "envs/taxi.h"

#ifdef ENVPOOL_WITH_MUJOCO
#include "envs/mujoco/ant.h"
#include "envs/mujoco/half_cheetah.h"
#include "envs/mujoco/hopper.h"
#include "envs/mujoco/humanoid.h"
#include "envs/mujoco/humanoid_standup.h"
#include "envs/mujoco/inverted_double_pendulum.h"
#include "envs/mujoco/inverted_pendulum.h"
#include "envs/mujoco/pusher.h"
#include "envs/mujoco/reacher.h"
#include "envs/mujoco/swimmer.h"
#include "envs/mujoco/walker2d.h"
#endif

namespace envpool {

void RegisterBuiltinTasks() {
  static const bool registered = [] {
  std::vector<TaskSpec> tasks = {
      Task<CartPole>("CartPole-v0", 200, 195.0),
      Task<CartPole>("CartPole-v1", 500, 475.0),
      Task<MountainCar>("MountainCar-v0", 200, -110.0),
      Task<MountainCarContinuous>("MountainCarContinuous-v0", 999, 90.0),
      Task<Pendulum>("Pendulum-v1", 200),
      Task<Acrobot>("Acrobot-v1", 500, -100.0),
      // Toy text
      Task<FrozenLake>("FrozenLake-v1", 100, 0.70),
      Task<FrozenLake>("FrozenLake8x8-v1", 200, 0.85, {{"map_name", std::string("8x8")}}),
      Task<CliffWalking>("CliffWalking-v1", 0),
      Task<CliffWalking>("CliffWalkingSlippery-v1", 0, NAN, {{"is_slippery", true}}),
      Task<Taxi>("Taxi-v4", 200, 8.0),
      Task<Blackjack>("Blackjack-v1", 0, NAN, {{"sab", true}}),
#ifdef ENVPOOL_WITH_MUJOCO
      // MuJoCo (gymnasium v5; libmujoco is loaded when one is made, see envs/mujoco/loader.h)
      Task<mujoco::Reacher>("Reacher-v5", 50, -3.75),
      Task<mujoco::Pusher>("Pusher-v5", 100, 0.0),
      Task<mujoco::InvertedPendulum>("InvertedPendulum-v5", 1000, 950.0),
      Task<mujoco::InvertedDoublePendulum>("InvertedDoublePendulum-v5", 1000, 9100.0),
      Task<mujoco::HalfCheetah>("HalfCheetah-v5", 1000, 4800.0),
      Task<mujoco::Hopper>("Hopper-v5", 1000, 3800.0),
      Task<mujoco::Swimmer>("Swimmer-v5", 1000, 360.0),
      Task<mujoco::Walker2d>("Walker2d-v5", 1000),
      Task<mujoco::Ant>("Ant-v5", 1000, 6000.0),
      Task<mujoco::Humanoid>("Humanoid-v5", 1000),
      Task<mujoco::HumanoidStandup>("HumanoidStandup-v5", 1000),
#endif
  };
  for (auto& task : tasks) RegisterTask(std::move(task));
  return true;
  }();
  (void)registered;
}

}  // namespace envpool
