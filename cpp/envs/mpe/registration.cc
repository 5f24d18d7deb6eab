// The multi-agent particle environments (mpe2's simple_spread_v3, simple_tag_v3 and
// simple_adversary_v3, bit for bit). No pool time limit: the envs truncate themselves after
// max_cycles steps, as mpe2 does. A new scenario: its header here, the #include and its
// Task<> entry.
#include "core/registry.h"
#include "envs/mpe/simple_adversary.h"
#include "envs/mpe/simple_spread.h"
#include "envs/mpe/simple_tag.h"

namespace envpool::mpe {

std::vector<TaskSpec> Tasks() {
  return {
      Task<SimpleSpread>("SimpleSpread-v3", 0),
      Task<SimpleTag>("SimpleTag-v3", 0),
      Task<SimpleAdversary>("SimpleAdversary-v3", 0),
  };
}

}  // namespace envpool::mpe
