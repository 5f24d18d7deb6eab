// ConnectFour-v3: PettingZoo's classic connect_four_v3 (PettingZoo 1.27.0), env() with its
// default wrappers, as a turn-based two-agent env; see board_game.h for the agents, spaces,
// illegal moves and the state vector.
//
// Agents "player_0" (moves first, piece 1) and "player_1" (piece 2). The board is 6 rows x 7
// columns, row 0 on top, flat in row-major order as PettingZoo keeps it: action c drops the
// mover's piece into column c, on the lowest empty cell (PettingZoo scans cells 41 .. 0 of that
// column); column c is legal while its top cell (cell c) is empty. After the move only the
// mover's pieces are checked for four in a row (horizontal, vertical, both diagonals): a win
// gives the mover +1 and the other -1; otherwise a board with no empty cell is a draw (0 both).
//
// State: [cell_0 .. cell_41, to_move, over] (board_game.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "envs/classic_games/board_game.h"
#include "envs/classic_games/render/boards.h"

namespace envpool::classic_games {

struct ConnectFourRules {
  static constexpr int kRows = 6;
  static constexpr int kCols = 7;
  static constexpr int kNumActions = 7;
  static constexpr const char* kName = "ConnectFour";
  static constexpr int kRenderFps = 2;  // PettingZoo's connect_four metadata["render_fps"]

  static std::vector<std::string> AgentNames() { return {"player_0", "player_1"}; }

  // Frames (render/boards.h): PettingZoo's kwarg screen_scaling, the frame's (height, width).
  static void AddRenderConfig(Config& config) { config.Set("screen_scaling", int64_t{9}); }
  static std::pair<int, int> FrameSize(const Config& config) {
    return render::ConnectFourSize(config.Get<int64_t>("screen_scaling"));
  }
  using Pictures = render::ConnectFourPictures;
  static Pictures LoadPictures() { return render::LoadConnectFourPictures(); }
  static void Draw(const int8_t* board, std::pair<int, int> size, const Pictures& pictures, uint8_t* rgb) {
    render::DrawConnectFour(board, size.first, size.second, pictures, rgb);
  }

  static MoveOutcome Play(std::array<int8_t, 42>& board, int mover, int action) {
    const int8_t piece = static_cast<int8_t>(mover + 1);
    for (int r = kRows - 1; r >= 0; --r) {
      int8_t& cell = board[static_cast<std::size_t>(r * kCols + action)];
      if (cell == 0) {
        cell = piece;
        break;
      }
    }
    MoveOutcome outcome;
    if (FourInARow(board, piece)) {
      outcome.over = true;
      outcome.reward[mover] = 1.0;
      outcome.reward[1 - mover] = -1.0;
      return outcome;
    }
    for (int8_t v : board) {
      if (v == 0) return outcome;
    }
    outcome.over = true;  // a draw
    return outcome;
  }

 private:
  static bool FourInARow(const std::array<int8_t, 42>& board, int8_t piece) {
    auto at = [&](int r, int c) { return board[static_cast<std::size_t>(r * kCols + c)] == piece; };
    // Directions (dr, dc): right, down, down-right, up-right.
    static constexpr int kDirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {-1, 1}};
    for (const auto& d : kDirs) {
      for (int r = 0; r < kRows; ++r) {
        for (int c = 0; c < kCols; ++c) {
          const int r3 = r + 3 * d[0], c3 = c + 3 * d[1];
          if (r3 < 0 || r3 >= kRows || c3 >= kCols) continue;
          if (at(r, c) && at(r + d[0], c + d[1]) && at(r + 2 * d[0], c + 2 * d[1]) && at(r3, c3)) return true;
        }
      }
    }
    return false;
  }
};

using ConnectFour = BoardGame<ConnectFourRules>;

}  // namespace envpool::classic_games
