// Catch's frames. bsuite draws none, so this is our own plain picture of the board: one
// kCatchCell-pixel square per cell, the ball a disc and the paddle a bar in the bottom row
// (tests/envs/toy_text/test_catch_nchain.py reads the state back from a frame).
#pragma once

#include <cstdint>

#include "envs/toy_text/render/common.h"

namespace envpool::toy_text::render {

inline constexpr int kCatchCell = 16;
inline constexpr Color kCatchBoard{24, 26, 40};
inline constexpr Color kCatchBall{250, 214, 70};
inline constexpr Color kCatchPaddle{90, 200, 240};

inline void DrawCatch(uint8_t* rgb, int rows, int cols, int ball_x, int ball_y, int paddle_x) {
  Canvas canvas(rgb, cols * kCatchCell, rows * kCatchCell);
  canvas.Fill(kCatchBoard);
  const int c = kCatchCell;
  canvas.FillRect(paddle_x * c + 1, (rows - 1) * c + c / 2, c - 2, c / 2 - 1, kCatchPaddle);
  canvas.FilledCircle(ball_x * c + c / 2, ball_y * c + c / 2, c / 2 - 3, kCatchBall);
}

}  // namespace envpool::toy_text::render
