// The board games' frames as PettingZoo 1.27.0's render() draws them (render_mode="rgb_array"),
// from PettingZoo's own pictures (sprites.h), in the same float64 arithmetic and int()
// truncations, on a black surface (pygame.Surface's initial pixels):
//
//  * TicTacToe (tictactoe.py, kwarg screen_height = 1000): a screen_height square frame; the
//    board picture scaled to the frame; square i's mark (cross for player_1, circle for
//    player_2) scaled to int(screen_height / 4) and drawn in column x = i / 3, row y = i % 3 at
//    ((screen_height / 3.1) * x + screen_height / 17, (screen_height / 3.145) * y + screen_height / 19).
//  * ConnectFour (connect_four.py, kwarg screen_scaling = 9): a frame 99 * screen_scaling wide
//    and int(86 / 99 * width) high; the board picture scaled to it; cell i's chip (red for
//    player_0, black for player_1) scaled to int(tile * 9 / 13), tile = width * (91 / 99) / 7,
//    at ((i % 7) * tile + tile * 6 / 13, (i / 7) * tile + tile * 6 / 13).
//
// PettingZoo keeps its surface between renders and blits over it. Pixels of the pictures that are
// transparent show what was there: the first frame's black, which stays there as long as marks
// and chips are only added, as in play (TicTacToe's surface is new at every reset; ConnectFour's
// transparent pixels, the board's corners, are never under a chip). These frames are drawn on
// black each time: the same, except after set_state takes marks off a board PettingZoo had drawn.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "envs/classic_games/render/sprites.h"

namespace envpool::classic_games::render {

inline constexpr int64_t kMaxFrameSide = 8192;

// TicTacToe's frame side (screen_height); throws std::invalid_argument out of range.
inline int TicTacToeSide(int64_t screen_height) {
  if (screen_height < 1 || screen_height > kMaxFrameSide) {
    throw std::invalid_argument("TicTacToe: screen_height must be in [1, " + std::to_string(kMaxFrameSide) + "], got " +
                                std::to_string(screen_height));
  }
  return static_cast<int>(screen_height);
}

// ConnectFour's frame (height, width) for screen_scaling; throws std::invalid_argument out of range.
inline std::pair<int, int> ConnectFourSize(int64_t screen_scaling) {
  const int64_t most = kMaxFrameSide / 99;
  if (screen_scaling < 1 || screen_scaling > most) {
    throw std::invalid_argument("ConnectFour: screen_scaling must be in [1, " + std::to_string(most) + "], got " +
                                std::to_string(screen_scaling));
  }
  const int width = static_cast<int>(99 * screen_scaling);
  return {PyInt(86.0 / 99 * width), width};
}

// PettingZoo's pictures of a game (PettingZooImage's, kept for the process's life).
struct TicTacToePictures {
  const Image* board = nullptr;
  const Image* cross = nullptr;
  const Image* circle = nullptr;
};

inline TicTacToePictures LoadTicTacToePictures() {
  return {&PettingZooImage("classic/tictactoe/img/board.png"), &PettingZooImage("classic/tictactoe/img/cross.png"),
          &PettingZooImage("classic/tictactoe/img/circle.png")};
}

// `squares`: PettingZoo's board.squares (0 empty, 1 player_1's cross, 2 player_2's circle).
inline void DrawTicTacToe(const int8_t* squares, int side, const TicTacToePictures& pictures, uint8_t* rgb) {
  std::memset(rgb, 0, 3 * static_cast<std::size_t>(side) * side);
  const double s = side;
  const int tile = PyInt(s / 4);
  BlitScaled(rgb, side, side, *pictures.board, side, side, 0, 0);
  for (int x = 0; x < 3; ++x) {
    for (int y = 0; y < 3; ++y) {
      const int8_t mark = squares[3 * x + y];
      if (mark == 0) continue;
      BlitScaled(rgb, side, side, mark == 1 ? *pictures.cross : *pictures.circle, tile, tile,
                 PyInt((s / 3.1) * x + (s / 17)), PyInt((s / 3.145) * y + (s / 19)));
    }
  }
}

struct ConnectFourPictures {
  const Image* board = nullptr;
  const Image* red = nullptr;
  const Image* black = nullptr;
};

inline ConnectFourPictures LoadConnectFourPictures() {
  return {&PettingZooImage("classic/connect_four/img/Connect4Board.png"),
          &PettingZooImage("classic/connect_four/img/C4RedPiece.png"),
          &PettingZooImage("classic/connect_four/img/C4BlackPiece.png")};
}

// `cells`: PettingZoo's board, 6 rows x 7 columns row-major (0 empty, 1 player_0, 2 player_1).
inline void DrawConnectFour(const int8_t* cells, int height, int width, const ConnectFourPictures& pictures,
                            uint8_t* rgb) {
  std::memset(rgb, 0, 3 * static_cast<std::size_t>(height) * width);
  const double tile = (width * (91.0 / 99)) / 7;
  const int chip = PyInt(tile * (9.0 / 13));
  BlitScaled(rgb, width, height, *pictures.board, width, height, 0, 0);
  for (int i = 0; i < 42; ++i) {
    if (cells[i] == 0) continue;
    BlitScaled(rgb, width, height, cells[i] == 1 ? *pictures.red : *pictures.black, chip, chip,
               PyInt((i % 7) * tile + tile * (6.0 / 13)), PyInt((i / 7) * tile + tile * (6.0 / 13)));
  }
}

}  // namespace envpool::classic_games::render
