// The classic two-player board games (PettingZoo's classic tictactoe_v3 and connect_four_v3, with
// their default wrappers), as turn-based multi-agent envs (core/agents.h). A new game of this
// family: its header here, the #include and its Task<> entry.
#include "core/registry.h"
#include "envs/classic_games/connect_four.h"
#include "envs/classic_games/tictactoe.h"

namespace envpool::classic_games {

std::vector<TaskSpec> Tasks() {
  return {
      Task<TicTacToe>("TicTacToe-v3", 0),
      Task<ConnectFour>("ConnectFour-v3", 0),
  };
}

}  // namespace envpool::classic_games
