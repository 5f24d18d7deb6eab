// The frame of gymnasium's TaxiEnv (render_mode="rgb_array"): its layout and palette, our own
// sprites (render/common.h says which and why).
#pragma once

#include <cstdint>
#include <string_view>

#include "envs/toy_text/render/common.h"

namespace envpool::toy_text::render {

inline constexpr int kTaxiWidth = 536;
inline constexpr int kTaxiHeight = 456;

// The taxi in its 36 x 56 (north / south) or 56 x 36 (east / west) box at (x, y), facing
// `orientation` (0 south, 1 north, 2 east, 3 west): a rounded body (yellow, green with a
// passenger aboard) with a windscreen at the front, a rear window, a roof sign and four
// wheels. The parts are laid out facing north, across u (0..36) and along v (0..56 from the
// front), then turned.
inline void DrawTaxiCar(Canvas& canvas, int x, int y, int orientation, Color body) {
  auto part = [&](int u0, int v0, int u1, int v1, int radius, Color c) {
    int px, py, pw, ph;  // screen rectangle
    switch (orientation) {
      case 0:  // south: front at the bottom
        px = x + u0, py = y + 56 - v1, pw = u1 - u0, ph = v1 - v0;
        break;
      case 2:  // east: front at the right
        px = x + 56 - v1, py = y + u0, pw = v1 - v0, ph = u1 - u0;
        break;
      case 3:  // west: front at the left
        px = x + v0, py = y + u0, pw = v1 - v0, ph = u1 - u0;
        break;
      default:  // north
        px = x + u0, py = y + v0, pw = u1 - u0, ph = v1 - v0;
    }
    FillRoundRect(canvas, px, py, pw, ph, radius, c);
  };
  part(0, 8, 6, 20, 2, kInk);  // wheels
  part(30, 8, 36, 20, 2, kInk);
  part(0, 36, 6, 48, 2, kInk);
  part(30, 36, 36, 48, 2, kInk);
  part(3, 2, 33, 54, 8, kInk);  // body, outlined
  part(6, 5, 30, 51, 6, body);
  part(9, 12, 27, 21, 2, kGlass);  // windscreen
  part(9, 40, 27, 46, 2, kGlass);  // rear window
  part(13, 27, 23, 33, 1, kRed);   // roof sign
}

// The waiting passenger in its 16 x 24 box at (x, y): head, body and legs.
inline void DrawPassenger(Canvas& canvas, int x, int y) {
  canvas.FilledCircle(x + 8, y + 4, 4, kInk);
  FillRoundRect(canvas, x + 3, y + 9, 10, 9, 2, kInk);
  canvas.FillRect(x + 4, y + 17, 3, 7, kInk);
  canvas.FillRect(x + 9, y + 17, 3, 7, kInk);
}

// The house in its 80 x 96 box at (x, y): a red hip roof over a wall with four windows and a
// door.
inline void DrawHouse(Canvas& canvas, int x, int y) {
  canvas.FilledPolygon({{x + 20, y}, {x + 60, y}, {x + 80, y + 24}, {x, y + 24}}, kInk);
  canvas.FilledPolygon({{x + 22, y + 4}, {x + 58, y + 4}, {x + 74, y + 22}, {x + 6, y + 22}}, kRed);
  canvas.FillRect(x, y + 24, 80, 72, kInk);
  canvas.FillRect(x + 4, y + 28, 72, 68, {205, 166, 94});
  for (int wy : {34, 56}) {
    for (int wx : {16, 48}) {
      canvas.FillRect(wx + x, wy + y, 16, 14, kInk);
      canvas.FillRect(wx + x + 3, wy + y + 3, 10, 8, kGlass);
    }
  }
  canvas.FillRect(x + 32, y + 74, 16, 22, kInk);
  canvas.FillRect(x + 35, y + 77, 10, 19, {122, 86, 58});
}

// gymnasium's TaxiEnv._render_gui layout: taxi at (row, col), passenger at stand `pass` (4:
// in the taxi), destination stand `dest`, and the taxi's heading `orientation` (the last
// move action: 0 south, 1 north, 2 east, 3 west).
inline void DrawTaxi(uint8_t* rgb, int row, int col, int pass, int dest, int orientation) {
  Canvas canvas(rgb, kTaxiWidth, kTaxiHeight);
  canvas.Fill({250, 250, 246});
  constexpr int kGridX = 48, kGridY = 128, kCellW = 88, kCellH = 56;
  constexpr int kStands[4][2] = {{0, 0}, {0, 4}, {4, 0}, {4, 3}};
  // The yard: cells on a grid of lines, a fence around it and the inner walls.
  canvas.FillRect(kGridX, kGridY, 5 * kCellW, 5 * kCellH, {212, 210, 202});
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 5; ++c) {
      canvas.FillRect(kGridX + c * kCellW + 4, kGridY + r * kCellH + 4, kCellW - 4, kCellH - 4, {233, 231, 225});
    }
  }
  canvas.FillRect(36, 116, 464, 8, kInk);
  canvas.FillRect(36, 408, 464, 8, kInk);
  canvas.FillRect(36, 116, 8, 304, kInk);
  canvas.FillRect(488, 116, 8, 304, kInk);
  canvas.FillRect(220, 132, 8, 108, kInk);  // between columns 1 and 2, rows 0-1
  canvas.FillRect(132, 300, 8, 116, kInk);  // between columns 0 and 1, rows 3-4
  canvas.FillRect(308, 300, 8, 116, kInk);  // between columns 2 and 3, rows 3-4
  // The four stands R, G, Y, B.
  const Color stand_colors[4] = {kRed, {152, 184, 110}, {232, 196, 88}, {116, 150, 198}};
  const char stand_letters[4] = {'R', 'G', 'Y', 'B'};
  for (int i = 0; i < 4; ++i) {
    const int x = kGridX + kStands[i][1] * kCellW, y = kGridY + kStands[i][0] * kCellH;
    canvas.FillRect(x + 4, y + 4, 80, 48, stand_colors[i]);
    DrawText(canvas, x + 38, y + 18, std::string_view(&stand_letters[i], 1), kArt, {250, 250, 246});
  }
  DrawHouse(canvas, 403, 36);
  auto cell_x = [&](int c) { return kGridX + c * kCellW; };
  auto cell_y = [&](int r) { return kGridY + r * kCellH; };
  // The destination: an ink frame around its stand.
  {
    const int x = cell_x(kStands[dest][1]), y = cell_y(kStands[dest][0]);
    canvas.FillRect(x + 4, y + 4, 80, 8, kInk);
    canvas.FillRect(x + 4, y + 44, 80, 8, kInk);
    canvas.FillRect(x + 4, y + 12, 8, 32, kInk);
    canvas.FillRect(x + 76, y + 12, 8, 32, kInk);
  }
  if (pass < 4) DrawPassenger(canvas, cell_x(kStands[pass][1]) + 35, cell_y(kStands[pass][0]) + 19);
  const Color body = pass == 4 ? Color{152, 184, 110} : Color{232, 196, 88};
  if (orientation < 2) {
    DrawTaxiCar(canvas, cell_x(col) + 25, cell_y(row), orientation, body);
  } else {
    DrawTaxiCar(canvas, cell_x(col) + 15, cell_y(row) + 9, orientation, body);
  }
}

}  // namespace envpool::toy_text::render
