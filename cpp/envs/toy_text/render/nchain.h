// NChain's frames. gym 0.19 draws none, so this is our own plain picture: the n states as a row
// of kNChainCell-pixel cells joined by a line, each a ring, the current one filled
// (tests/envs/toy_text/test_catch_nchain.py reads the state back from a frame).
#pragma once

#include <cstdint>

#include "envs/toy_text/render/common.h"

namespace envpool::toy_text::render {

inline constexpr int kNChainCell = 48;
inline constexpr Color kNChainBack{236, 236, 230};
inline constexpr Color kNChainLit{232, 120, 60};

inline void DrawNChain(uint8_t* rgb, int n, int64_t state) {
  const int c = kNChainCell;
  Canvas canvas(rgb, n * c, c);
  canvas.Fill(kNChainBack);
  canvas.FillRect(c / 2, c / 2 - 1, (n - 1) * c, 3, kInk);
  for (int i = 0; i < n; ++i) {
    canvas.FilledCircle(i * c + c / 2, c / 2, c / 2 - 6, kInk);
    canvas.FilledCircle(i * c + c / 2, c / 2, c / 2 - 10, i == state ? kNChainLit : kNChainBack);
  }
}

}  // namespace envpool::toy_text::render
