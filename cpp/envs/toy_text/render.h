// Frames of the toy-text tasks (FrozenLake, CliffWalking, Taxi, Blackjack), drawn without
// image files.
//
// The scenes follow the layout and colours of gymnasium's toy-text renderers (window sizes,
// cell sizes, where each item sits and how big it is, the palette: facts taken from
// gymnasium's toy_text/*.py layout constants, MIT licence). The items themselves are our own
// simple geometric drawings made with canvas.h primitives: the walker is a head, body and
// legs; the flag a pole and a pennant; the taxi a rounded body with windows and wheels,
// turned to its heading; the passenger a small figure; the house a wall under a roof; the
// cards rounded rectangles with a rank in our own 3 x 5 pixel font and a suit built from
// circles and polygons. The frames therefore resemble gymnasium's at a glance but differ
// in the sprites; tests/envs/toy_text/test_render.py measures and bounds how far.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "render/canvas.h"

namespace envpool::toy_text::render {

// The shared drawing primitives (Canvas, Color, Vec2, ...) by their plain names, as in the
// scenes of every family.
using namespace envpool::render;

inline constexpr Color kInk{56, 58, 70};
inline constexpr Color kRed{202, 102, 92};
inline constexpr Color kGlass{198, 224, 242};
inline constexpr int kArt = 4;  // gymnasium's layout grid: 4 screen pixels

// Python's round() (halves to even) for layout arithmetic.
inline int RoundHalfEven(double v) { return static_cast<int>(std::nearbyint(v)); }

// ---- drawing helpers -------------------------------------------------------------------------

// A w x h rectangle with corners rounded by radius r.
inline void FillRoundRect(Canvas& canvas, int x, int y, int w, int h, int r, Color c) {
  if (w <= 0 || h <= 0) return;
  r = std::max(0, std::min({r, (w - 1) / 2, (h - 1) / 2}));
  canvas.FillRect(x + r, y, w - 2 * r, h, c);
  canvas.FillRect(x, y + r, w, h - 2 * r, c);
  if (r == 0) return;
  canvas.FilledCircle(x + r, y + r, r, c);
  canvas.FilledCircle(x + w - 1 - r, y + r, r, c);
  canvas.FilledCircle(x + r, y + h - 1 - r, r, c);
  canvas.FilledCircle(x + w - 1 - r, y + h - 1 - r, r, c);
}

// A filled ellipse inscribed in the w x h rectangle at (x, y) (pixel centres inside).
inline void FillEllipse(Canvas& canvas, int x, int y, int w, int h, Color c) {
  const double rx = w / 2.0, ry = h / 2.0;
  for (int j = 0; j < h; ++j) {
    for (int i = 0; i < w; ++i) {
      const double dx = (i + 0.5 - rx) / rx, dy = (j + 0.5 - ry) / ry;
      if (dx * dx + dy * dy <= 1.0) canvas.SetPixel(x + i, y + j, c);
    }
  }
}

// A box on the canvas in which shapes are placed by fractions of its width and height, so
// one drawing serves every scale (FrozenLake's cells shrink on big maps).
struct Box {
  Canvas& canvas;
  int x, y, w, h;

  int X(double f) const { return x + static_cast<int>(std::lround(f * w)); }
  int Y(double f) const { return y + static_cast<int>(std::lround(f * h)); }
  // The rectangle between fractions (x0, y0) and (x1, y1), at least one pixel each way.
  void Rect(double x0, double y0, double x1, double y1, Color c) const {
    const int px = X(x0), py = Y(y0);
    canvas.FillRect(px, py, std::max(1, X(x1) - px), std::max(1, Y(y1) - py), c);
  }
  // A disc at fraction (cx, cy) with radius `r` as a fraction of the box width.
  void Disc(double cx, double cy, double r, Color c) const {
    canvas.FilledCircle(X(cx), Y(cy), std::max(0, static_cast<int>(std::lround(r * w))), c);
  }
  void Poly(std::initializer_list<Vec2> pts, Color c) const {
    std::vector<Pixel> px;
    for (const Vec2& p : pts) px.push_back({X(p.x), Y(p.y)});
    canvas.FilledPolygon(px, c);
  }
};

// ---- our 3 x 5 pixel font --------------------------------------------------------------------

// Rows of a glyph, top first; bit 2 is the left column. Digits (square) and the letters the
// scenes use (with rounded bowls).
inline const uint8_t* Glyph(char ch) {
  static constexpr uint8_t kDigits[10][5] = {
      {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
      {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 2, 2, 2}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
  };
  struct Letter {
    char ch;
    uint8_t rows[5];
  };
  static constexpr Letter kLetters[] = {
      {'A', {2, 5, 7, 5, 5}}, {'B', {6, 5, 6, 5, 6}}, {'C', {3, 4, 4, 4, 3}}, {'D', {6, 5, 5, 5, 6}},
      {'E', {7, 4, 6, 4, 7}}, {'G', {3, 4, 5, 5, 3}}, {'J', {1, 1, 1, 5, 2}}, {'K', {5, 5, 6, 5, 5}},
      {'L', {4, 4, 4, 4, 7}}, {'P', {6, 5, 6, 4, 4}}, {'Q', {2, 5, 5, 6, 3}}, {'R', {6, 5, 6, 5, 5}},
      {'S', {3, 4, 2, 1, 6}}, {'U', {5, 5, 5, 5, 3}}, {'Y', {5, 5, 2, 2, 2}}, {':', {0, 2, 0, 2, 0}},
  };
  static constexpr uint8_t kBlank[5] = {0, 0, 0, 0, 0};
  if (ch >= '0' && ch <= '9') return kDigits[ch - '0'];
  for (const Letter& l : kLetters) {
    if (l.ch == ch) return l.rows;
  }
  return kBlank;
}

// `text` with the top-left corner at (x, y), font pixels of px screen pixels, one blank column
// between glyphs (a glyph advances 4 font pixels).
inline void DrawText(Canvas& canvas, int x, int y, std::string_view text, int px, Color color) {
  for (char ch : text) {
    const uint8_t* rows = Glyph(ch);
    for (int r = 0; r < 5; ++r) {
      for (int c = 0; c < 3; ++c) {
        if (rows[r] & (4 >> c)) canvas.FillRect(x + c * px, y + r * px, px, px, color);
      }
    }
    x += 4 * px;
  }
}

inline int TextWidth(std::string_view text, int px) {
  return text.empty() ? 0 : (4 * static_cast<int>(text.size()) - 1) * px;
}

// One glyph stretched over a w x h block (the S / G corner letters).
inline void DrawLetter(Canvas& canvas, int x, int y, int w, int h, char ch, Color color) {
  const uint8_t* rows = Glyph(ch);
  for (int j = 0; j < h; ++j) {
    const int r = j * 5 / h;
    for (int i = 0; i < w; ++i) {
      if (rows[r] & (4 >> (i * 3 / w))) canvas.SetPixel(x + i, y + j, color);
    }
  }
}

// ---- shared figures --------------------------------------------------------------------------

// The walker of FrozenLake and CliffWalking in the w x h box at (x, y) (40 x 36 natively): a
// round head with two eyes, a body with arms, two legs.
inline void DrawWalker(Canvas& canvas, int x, int y, int w, int h) {
  const Box b{canvas, x, y, w, h};
  const Color face{208, 210, 216};
  b.Rect(0.30, 0.80, 0.42, 1.00, kInk);  // legs
  b.Rect(0.58, 0.80, 0.70, 1.00, kInk);
  b.Rect(0.18, 0.56, 0.82, 0.66, kInk);  // arms
  b.Rect(0.30, 0.50, 0.70, 0.84, kInk);  // body
  b.Disc(0.50, 0.28, 0.25, kInk);        // head
  b.Disc(0.50, 0.28, 0.19, face);
  b.Rect(0.38, 0.22, 0.45, 0.34, kInk);  // eyes
  b.Rect(0.55, 0.22, 0.62, 0.34, kInk);
}

// The goal flag in the w x h box at (x, y) (24 x 32 natively): a pole and a red pennant.
inline void DrawFlag(Canvas& canvas, int x, int y, int w, int h) {
  const Box b{canvas, x, y, w, h};
  b.Rect(0.0, 0.0, 0.17, 1.0, kInk);
  b.Poly({{0.17, 0.0}, {1.0, 0.19}, {0.17, 0.38}}, kRed);
}

// ---- FrozenLake ------------------------------------------------------------------------------

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

// ---- CliffWalking ----------------------------------------------------------------------------

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

// ---- Taxi ------------------------------------------------------------------------------------

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

// ---- Blackjack -------------------------------------------------------------------------------

inline constexpr int kBlackjackWidth = 384;
inline constexpr int kBlackjackHeight = 376;

// A suit symbol (gymnasium's suit letters C, D, H, S) with its top-left corner at (x, y): 20
// pixels wide, 20 (diamond, heart) or 24 (club, spade, with their stems) tall.
inline void DrawSuit(Canvas& canvas, int x, int y, char suit, Color c) {
  switch (suit) {
    case 'D':  // a rhombus
      canvas.FilledPolygon({{x + 10, y}, {x + 19, y + 10}, {x + 10, y + 20}, {x + 1, y + 10}}, c);
      break;
    case 'H':  // two circles over a triangle
      canvas.FilledCircle(x + 5, y + 6, 5, c);
      canvas.FilledCircle(x + 14, y + 6, 5, c);
      canvas.FilledPolygon({{x, y + 7}, {x + 20, y + 7}, {x + 10, y + 19}}, c);
      break;
    case 'S':  // an upside-down heart on a stem
      canvas.FilledPolygon({{x + 10, y}, {x + 20, y + 11}, {x, y + 11}}, c);
      canvas.FilledCircle(x + 5, y + 12, 5, c);
      canvas.FilledCircle(x + 14, y + 12, 5, c);
      canvas.FilledPolygon({{x + 10, y + 13}, {x + 15, y + 24}, {x + 5, y + 24}}, c);
      break;
    default:  // club: three circles on a stem
      canvas.FilledCircle(x + 10, y + 5, 5, c);
      canvas.FilledCircle(x + 5, y + 13, 5, c);
      canvas.FilledCircle(x + 14, y + 13, 5, c);
      canvas.FilledPolygon({{x + 10, y + 10}, {x + 15, y + 24}, {x + 5, y + 24}}, c);
      break;
  }
}

// A card (80 x 112 pixels) at (x, y): a white rounded card with a grey edge, the rank at the
// top left and the suit in the middle; or the red back with an inner frame.
inline void DrawCard(Canvas& canvas, int x, int y, char rank, char suit, bool back) {
  FillRoundRect(canvas, x, y, 80, 112, 4, {150, 152, 160});
  if (back) {
    const Color face{200, 116, 106}, frame{176, 94, 86};
    FillRoundRect(canvas, x + 4, y + 4, 72, 104, 4, face);
    FillRoundRect(canvas, x + 12, y + 12, 56, 88, 3, frame);
    canvas.FillRect(x + 16, y + 16, 48, 80, face);
    return;
  }
  FillRoundRect(canvas, x + 4, y + 4, 72, 104, 4, {253, 253, 251});
  const Color ink = (suit == 'D' || suit == 'H') ? Color{190, 80, 74} : kInk;
  DrawText(canvas, x + 8, y + 8, std::string_view(&rank, 1), kArt, ink);
  DrawSuit(canvas, x + 28, y + 52, suit, ink);
}

// gymnasium's blackjack draw_table layout: the dealer's showing card (`rank` 'A', '2'..'9',
// 'J', 'Q' or 'K' of `suit`) and value, the hidden card, the player's sum and the usable-ace
// label.
inline void DrawBlackjack(uint8_t* rgb, int player_sum, int dealer_value, bool usable_ace, char rank, char suit) {
  Canvas canvas(rgb, kBlackjackWidth, kBlackjackHeight);
  canvas.Fill({196, 216, 158});
  auto centred_x = [](int width) { return (kBlackjackWidth - width) / 2 / kArt * kArt; };
  DrawText(canvas, 40, 32, "DEALER:", kArt, kInk);
  DrawText(canvas, 40 + TextWidth("DEALER:", kArt) + 12, 32, std::to_string(dealer_value), kArt, kInk);
  DrawCard(canvas, 96, 72, rank, suit, false);
  DrawCard(canvas, 208, 72, rank, suit, true);
  DrawText(canvas, 40, 208, "PLAYER", kArt, kInk);
  const std::string sum = std::to_string(player_sum);
  DrawText(canvas, centred_x(TextWidth(sum, 3 * kArt)), 248, sum, 3 * kArt, kInk);
  if (usable_ace) DrawText(canvas, centred_x(TextWidth("USABLE ACE", kArt)), 328, "USABLE ACE", kArt, kInk);
}

}  // namespace envpool::toy_text::render
