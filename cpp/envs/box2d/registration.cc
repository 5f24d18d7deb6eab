// The Box2D tasks (gymnasium's box2d family, bit for bit on the same Box2D 2.3): id, time limit,
// reward threshold, and the kwargs of gymnasium's registered variants. Compiled only where
// cmake/box2d.cmake built the library (ENVPOOL_WITH_BOX2D).
#include "core/registry.h"
#include "envs/box2d/bipedal_walker.h"
#include "envs/box2d/lunar_lander.h"
#include "envs/builtin_tasks.h"

namespace envpool::box2d {

std::vector<TaskSpec> Tasks() {
  return {
      Task<LunarLander>("LunarLander-v3", 1000, 200.0),
      Task<LunarLander>("LunarLanderContinuous-v3", 1000, 200.0, {{"continuous", true}}),
      Task<BipedalWalker>("BipedalWalker-v3", 1600, 300.0),
      Task<BipedalWalker>("BipedalWalkerHardcore-v3", 2000, 300.0, {{"hardcore", true}}),
  };
}

}  // namespace envpool::box2d
