// The Box2D tasks (gymnasium's box2d family, bit for bit on the same Box2D 2.3): id, time limit,
// reward threshold, and the kwargs of gymnasium's registered variants. Compiled only where
// cmake/box2d.cmake built the library (box2d/CMakeLists.txt). The v2 aliases are the reference
// EnvPool's: it registers them with the v3 tasks' own config.
#include "core/registry.h"
#include "envs/box2d/bipedal_walker.h"
#include "envs/box2d/car_racing.h"
#include "envs/box2d/lunar_lander.h"

namespace envpool::box2d {

namespace {

// Box2D fills its table of contact factories (b2Contact::s_registers) lazily, at the first
// contact any world creates, unsynchronized: two pool threads meeting their first contacts at
// once would race on it. So one contact is made here, once, while the tasks are registered
// (one thread, at import). Box2D's other globals (b2_gjkCalls, b2_toiTime, ...) are statistics
// that no computation reads.
void InitializeContactRegisters() {
  b2World world(b2Vec2(0.0f, 0.0f));
  b2CircleShape circle;
  circle.m_radius = 1.0f;
  for (int i = 0; i < 2; ++i) {
    b2BodyDef def;
    def.type = b2_dynamicBody;
    world.CreateBody(&def)->CreateFixture(&circle, 1.0f);
  }
  world.Step(0.01f, 1, 1);
}

}  // namespace

std::vector<TaskSpec> Tasks() {
  InitializeContactRegisters();
  return {
      Task<LunarLander>("LunarLander-v3", 1000, 200.0).WithAliases({"LunarLander-v2"}),
      Task<LunarLander>("LunarLanderContinuous-v3", 1000, 200.0, {{"continuous", true}})
          .WithAliases({"LunarLanderContinuous-v2"}),
      Task<BipedalWalker>("BipedalWalker-v3", 1600, 300.0),
      Task<BipedalWalker>("BipedalWalkerHardcore-v3", 2000, 300.0, {{"hardcore", true}}),
      Task<CarRacing>("CarRacing-v3", 1000, 900.0).WithAliases({"CarRacing-v2"}),
  };
}

}  // namespace envpool::box2d
