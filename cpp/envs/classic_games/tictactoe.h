// TicTacToe-v3: PettingZoo's classic tictactoe_v3 (PettingZoo 1.27.0), env() with its default
// wrappers, as a turn-based two-agent env; see board_game.h for the agents, spaces, illegal moves
// and the state vector.
//
// Agents "player_1" (X, moves first) and "player_2" (O). The board is PettingZoo's flat list of
// 9 squares: action a marks square a, and the observation shows square a at
// observation[slot, a / 3, a % 3] (PettingZoo's squares.reshape(3, 3); its docs draw square a in
// column a / 3, row a % 3 of the picture). After every move the lines are checked as its
// Board.game_status does: the 8 lines in order (the three triples 0-1-2, 3-4-5, 6-7-8, then
// 0-3-6, 1-4-7, 2-5-8, 0-4-8, 2-4-6), the first line of three 1s or three 2s wins for player_1 or
// player_2 (+1 the winner, -1 the other); a full board without one is a draw (0 both).
//
// State: [square_0 .. square_8, to_move, over] (board_game.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "envs/classic_games/board_game.h"
#include "envs/classic_games/render/boards.h"

namespace envpool::classic_games {

struct TicTacToeRules {
  static constexpr int kRows = 3;
  static constexpr int kCols = 3;
  static constexpr int kNumActions = 9;
  static constexpr const char* kName = "TicTacToe";
  static constexpr int kRenderFps = 1;  // PettingZoo's tictactoe metadata["render_fps"]

  static std::vector<std::string> AgentNames() { return {"player_1", "player_2"}; }

  // Frames (render/boards.h): PettingZoo's kwarg screen_height, the frame's side.
  static void AddRenderConfig(Config& config) { config.Set("screen_height", int64_t{1000}); }
  static std::pair<int, int> FrameSize(const Config& config) {
    const int side = render::TicTacToeSide(config.Get<int64_t>("screen_height"));
    return {side, side};
  }
  using Pictures = render::TicTacToePictures;
  static Pictures LoadPictures() { return render::LoadTicTacToePictures(); }
  static void Draw(const int8_t* board, std::pair<int, int> size, const Pictures& pictures, uint8_t* rgb) {
    render::DrawTicTacToe(board, size.first, pictures, rgb);
  }

  static MoveOutcome Play(std::array<int8_t, 9>& board, int mover, int action) {
    static constexpr int kLines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                         {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};
    board[static_cast<std::size_t>(action)] = static_cast<int8_t>(mover + 1);
    MoveOutcome outcome;
    for (const auto& line : kLines) {
      const int8_t v = board[static_cast<std::size_t>(line[0])];
      if (v != 0 && board[static_cast<std::size_t>(line[1])] == v && board[static_cast<std::size_t>(line[2])] == v) {
        const int winner = v - 1;
        outcome.over = true;
        outcome.reward[winner] = 1.0;
        outcome.reward[1 - winner] = -1.0;
        return outcome;
      }
    }
    for (int8_t v : board) {
      if (v == 0) return outcome;
    }
    outcome.over = true;  // a draw
    return outcome;
  }
};

using TicTacToe = BoardGame<TicTacToeRules>;

}  // namespace envpool::classic_games
