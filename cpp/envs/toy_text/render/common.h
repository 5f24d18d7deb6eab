// What the toy-text frames (FrozenLake, CliffWalking, Taxi, Blackjack: one header each here)
// share, drawn without image files: the palette, shape helpers, a font and two figures.
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

}  // namespace envpool::toy_text::render
