// The frame of gymnasium's FrozenLakeEnv (render_mode="rgb_array"): its layout and palette, our own
// sprites (render/common.h says which and why).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "envs/toy_text/render/common.h"

namespace envpool::toy_text::render {

// gymnasium's window: 64 pixels a cell, at most 512 pixels a side.
inline int FrozenLakeWidth(int ncol) { return std::min(64 * ncol, 512); }
inline int FrozenLakeHeight(int nrow) { return std::min(64 * nrow, 512); }

// A w x h tile: ice with a darker top and left edge; some frozen tiles carry a faint crack
// (`crack` 0 or 1); a hole is a dark pool with a lighter surface and a glint.
inline void DrawFrozenLakeTile(Canvas& canvas, int x, int y, int w, int h, char tile, int crack) {
  const Color ice{198, 224, 242}, edge{174, 205, 230};
  canvas.FillRect(x, y, w, h, ice);
  // The edge is 1/16 of the tile, as many pixels as a nearest-neighbour scale gives it.
  const int ew = (w + 15) / 16, eh = (h + 15) / 16;
  canvas.FillRect(x, y, w, eh, edge);
  canvas.FillRect(x, y, ew, h, edge);
  const Box b{canvas, x, y, w, h};
  if (tile == 'H') {
    const int px = b.X(0.125), py = b.Y(0.125);
    const int pw = b.X(0.875) - px, ph = b.Y(0.875) - py;
    const int r = std::max(1, w / 16);
    FillRoundRect(canvas, px, py, pw, ph, r, {92, 138, 190});     // the water
    canvas.FillRect(px + r, py, pw - 2 * r, eh, {70, 112, 164});  // its shaded far edge
    b.Rect(0.30, 0.45, 0.45, 0.50, {130, 170, 214});              // glints on the water
    b.Rect(0.52, 0.64, 0.66, 0.69, {130, 170, 214});
  } else if (crack >= 0 && crack < 2) {
    const Color line{184, 212, 236};
    if (crack == 0) {
      canvas.Line(b.X(0.25), b.Y(0.62), b.X(0.45), b.Y(0.47), line);
      canvas.Line(b.X(0.62), b.Y(0.72), b.X(0.74), b.Y(0.70), line);
    } else {
      canvas.Line(b.X(0.56), b.Y(0.28), b.X(0.78), b.Y(0.40), line);
      canvas.Line(b.X(0.26), b.Y(0.76), b.X(0.34), b.Y(0.84), line);
    }
  }
}

// gymnasium's FrozenLakeEnv._render_gui layout: `tiles` holds the map row by row (S, F, H,
// G), `s` the player's cell.
inline void DrawFrozenLake(uint8_t* rgb, int nrow, int ncol, const std::string& tiles, int64_t s) {
  const int width = FrozenLakeWidth(ncol), height = FrozenLakeHeight(nrow);
  Canvas canvas(rgb, width, height);
  canvas.Fill(kBlack);  // cells may leave a few pixels uncovered at the right / bottom
  const int cw = width / ncol, ch = height / nrow;
  const double scale = std::min(cw, ch) / 64.0;
  auto overlay = [&](int native) { return std::max(1, RoundHalfEven(native * scale)); };
  const int walker_w = overlay(40), walker_h = overlay(36);
  const int flag_w = overlay(24), flag_h = overlay(32);
  const int letter_w = overlay(12), letter_h = overlay(20);
  const int margin = RoundHalfEven(cw * 0.06);
  for (int r = 0; r < nrow; ++r) {
    for (int c = 0; c < ncol; ++c) {
      const int x = c * cw, y = r * ch;
      const char tile = tiles[static_cast<std::size_t>(r * ncol + c)];
      const int crack = tile == 'F' ? (c * 3 + r * 5) % 7 : -1;
      DrawFrozenLakeTile(canvas, x, y, cw, ch, tile, crack);
      if (tile == 'S') {
        DrawLetter(canvas, x + margin, y + margin, letter_w, letter_h, 'S', kInk);
      } else if (tile == 'G') {
        const int fx = static_cast<int>(x + (cw - flag_w) / 2.0);
        const int fy = y + ch - flag_h - RoundHalfEven(ch * 0.12);
        DrawFlag(canvas, fx, fy, flag_w, flag_h);
        DrawLetter(canvas, x + margin, y + margin, letter_w, letter_h, 'G', kInk);
      }
      // A one-pixel cell outline in (180, 200, 230).
      const Color line{180, 200, 230};
      canvas.HLine(x, x + cw - 1, y, line);
      canvas.HLine(x, x + cw - 1, y + ch - 1, line);
      canvas.VLine(x, y, y + ch - 1, line);
      canvas.VLine(x + cw - 1, y, y + ch - 1, line);
    }
  }
  // The walker, centred on its cell; hidden in a hole.
  const int r = static_cast<int>(s / ncol), c = static_cast<int>(s % ncol);
  if (tiles[static_cast<std::size_t>(s)] != 'H') {
    const int wx = static_cast<int>(c * cw + (cw - walker_w) / 2.0);
    const int wy = static_cast<int>(r * ch + (ch - walker_h) / 2.0);
    DrawWalker(canvas, wx, wy, walker_w, walker_h);
  }
}

}  // namespace envpool::toy_text::render
