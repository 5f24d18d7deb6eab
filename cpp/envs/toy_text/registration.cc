// The toy-text tasks (gymnasium's toy_text, bit for bit): id, time limit, reward threshold and
// the kwargs that tell variants apart. A new env of this family: its header here, the #include
// and its Task<> entry. Aliases are the reference EnvPool's other spellings of a task
// (gymnasium gives the tabular/ ids to its JAX versions of these envs).
#include <cmath>

#include "core/registry.h"
#include "envs/toy_text/blackjack.h"
#include "envs/toy_text/catch.h"
#include "envs/toy_text/cliff_walking.h"
#include "envs/toy_text/frozen_lake.h"
#include "envs/toy_text/nchain.h"
#include "envs/toy_text/taxi.h"

namespace envpool::toy_text {

std::vector<TaskSpec> Tasks() {
  return {
      Task<FrozenLake>("FrozenLake-v1", 100, 0.70),
      Task<FrozenLake>("FrozenLake8x8-v1", 200, 0.85, {{"map_name", std::string("8x8")}}),
      Task<CliffWalking>("CliffWalking-v1", 0).WithAliases({"CliffWalking-v0", "tabular/CliffWalking-v0"}),
      Task<CliffWalking>("CliffWalkingSlippery-v1", 0, NAN, {{"is_slippery", true}}),
      Task<Taxi>("Taxi-v4", 200, 8.0).WithAliases({"Taxi-v3"}),
      Task<Blackjack>("Blackjack-v1", 0, NAN, {{"sab", true}}).WithAliases({"tabular/Blackjack-v0"}),
      // bsuite's Catch and old gym's NChain, as the reference EnvPool registers them.
      Task<Catch>("Catch-v0", 0),
      Task<NChain>("NChain-v0", 1000),
  };
}

}  // namespace envpool::toy_text
