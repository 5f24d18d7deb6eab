// The classic-control tasks (gymnasium's classic_control, bit for bit): id, time limit, reward
// threshold. A new env of this family: its header here, the #include and its Task<> entry.
// Aliases are the reference EnvPool's other spellings of a task (its phys2d/ ids, which
// gymnasium gives to its JAX versions of these envs).
#include <cmath>
#include <cstdint>

#include "core/registry.h"
#include "envs/classic_control/acrobot.h"
#include "envs/classic_control/cartpole.h"
#include "envs/classic_control/mountain_car.h"
#include "envs/classic_control/mountain_car_continuous.h"
#include "envs/classic_control/pendulum.h"

namespace envpool::classic_control {

std::vector<TaskSpec> Tasks() {
  return {
      Task<CartPole>("CartPole-v0", 200, 195.0).WithAliases({"phys2d/CartPole-v0"}),
      Task<CartPole>("CartPole-v1", 500, 475.0).WithAliases({"phys2d/CartPole-v1"}),
      Task<MountainCar>("MountainCar-v0", 200, -110.0),
      Task<MountainCarContinuous>("MountainCarContinuous-v0", 999, 90.0),
      Task<Pendulum>("Pendulum-v0", 200, NAN, {{"version", int64_t{0}}}).WithAliases({"phys2d/Pendulum-v0"}),
      Task<Pendulum>("Pendulum-v1", 200),
      Task<Acrobot>("Acrobot-v1", 500, -100.0),
  };
}

}  // namespace envpool::classic_control
