// The frame of gymnasium's CliffWalkingEnv (render_mode="rgb_array"): its layout and palette, our own
// sprites (render/common.h says which and why).
#pragma once

#include <cstdint>

#include "envs/toy_text/render/common.h"

namespace envpool::toy_text::render {

inline constexpr int kCliffWalkingWidth = 12 * 64;
inline constexpr int kCliffWalkingHeight = 4 * 64;

// A 64 x 64 cliff cell: an ink rim on top, earth, a darker layer and a dark base, with a
// stone; the two end cells are lit on their outer side (`end`: -1 left, +1 right, 0
// middle; `odd` moves the stone).
inline void DrawCliffTile(Canvas& canvas, int x, int y, int end, bool odd) {
  const Color earth{168, 124, 82}, dark{126, 90, 58}, base{74, 70, 78}, lit{198, 156, 110};
  canvas.FillRect(x, y, 64, 4, kInk);
  canvas.FillRect(x, y + 4, 64, 40, earth);
  canvas.FillRect(x, y + 44, 64, 12, dark);
  canvas.FillRect(x, y + 56, 64, 8, base);
  if (end < 0) {
    canvas.FillRect(x, y, 4, 64, kInk);
    canvas.FillRect(x + 4, y + 4, 8, 60, lit);
  } else if (end > 0) {
    canvas.FillRect(x + 60, y, 4, 64, kInk);
    canvas.FillRect(x + 52, y + 4, 8, 60, lit);
  }
  // A stone in the earth, placed differently on alternate cells.
  canvas.FilledCircle(x + (odd ? 44 : 20), y + 20, 3, dark);
}

// gymnasium's CliffWalkingEnv._render_gui layout for the player in cell `s` (row * 12 + col).
inline void DrawCliffWalking(uint8_t* rgb, int64_t s) {
  Canvas canvas(rgb, kCliffWalkingWidth, kCliffWalkingHeight);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 12; ++c) {
      const int x = c * 64, y = r * 64;
      canvas.FillRect(x, y, 64, 64, {196, 216, 158});
      canvas.FillRect(x, y, 64, kArt, {172, 194, 130});
      canvas.FillRect(x, y, kArt, 64, {172, 194, 130});
      if (r == 3 && c >= 1 && c <= 10) DrawCliffTile(canvas, x, y, c == 1 ? -1 : c == 10 ? 1 : 0, c % 2 == 1);
      if (r == 3 && c == 0) DrawLetter(canvas, x + 8, y + 8, 12, 20, 'S', kInk);
      if (r == 3 && c == 11) {
        DrawLetter(canvas, x + 8, y + 8, 12, 20, 'G', kInk);
        DrawFlag(canvas, x + 28, y + 16, 24, 32);
      }
      if (r * 12 + c == s) DrawWalker(canvas, x + 20, y + 20, 40, 36);
    }
  }
}

}  // namespace envpool::toy_text::render
