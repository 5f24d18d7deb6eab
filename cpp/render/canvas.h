// A small software rasterizer for Env::Render: draws into an RGB buffer (height x width x 3
// bytes, row-major), the frame layout of render_mode="rgb_array".
//
// The primitives follow the pixel rules of the pygame calls gymnasium's renderers use, so
// that our frames look like theirs for the same state:
//
//  * coordinates that pygame.gfxdraw / pygame.draw receive as floats are truncated toward
//    zero (Trunc), as pygame does;
//  * FilledPolygon is a scanline fill at integer rows with half-open edge spans and spans
//    rounded inward (gfxdraw.filled_polygon's rule);
//  * FilledCircle is the midpoint circle filled with horizontal spans (gfxdraw.filled_circle);
//  * AALine / AAPolygon are Wu anti-aliased lines between integer points (gfxdraw.aapolygon);
//    AALineF the same between float points (pygame.draw.aalines); AACircle an anti-aliased
//    ring (gfxdraw.aacircle, approximated);
//  * Line is Bresenham with both end points (pygame.draw.line, width 1);
//  * PygameCircle / PygameCircleOutline are pygame.draw.circle filled / with width 1, pixel for
//    pixel as pygame-ce 2.5 draws them (PygameInt: how it takes a float radius);
//  * FillCoverage blends a colour by the supersampled coverage of an arbitrary shape (for
//    smooth-scaled sprites such as Pendulum's arrow).
//
// gymnasium draws with y pointing up and flips the surface at the end; renderers here do the
// same: draw in "surface" coordinates (row y = y), then FlipVertical().
//
// Everything clips at the canvas border.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace envpool::render {

struct Color {
  uint8_t r, g, b;
};

inline constexpr Color kWhite{255, 255, 255};
inline constexpr Color kBlack{0, 0, 0};

// A point in drawing coordinates (float, before pygame's truncation).
struct Vec2 {
  double x, y;
};

// An integer pixel position.
struct Pixel {
  int x, y;
};

// pygame.math.Vector2(p).rotate_rad(angle): counter-clockwise in a y-up frame.
inline Vec2 Rotate(Vec2 p, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {p.x * c - p.y * s, p.x * s + p.y * c};
}

// Coordinates are kept within +-kMaxCoord (far outside any canvas) so that the integer
// arithmetic below cannot overflow whatever state an env is put in.
inline constexpr int kMaxCoord = 1 << 24;

// How pygame turns a float coordinate into a pixel index: int(), i.e. toward zero (saturated
// at +-kMaxCoord; NaN gives 0).
inline int Trunc(double v) {
  if (v != v) return 0;
  return static_cast<int>(std::clamp(v, static_cast<double>(-kMaxCoord), static_cast<double>(kMaxCoord)));
}
inline Pixel Trunc(Vec2 p) { return {Trunc(p.x), Trunc(p.y)}; }

// pygame's (int) of a float argument outside Trunc's range: C's conversion, which on x86-64
// gives INT_MIN for NaN and values beyond int (so such a circle's radius draws nothing).
inline int PygameInt(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int>::min();
  return static_cast<int>(v);
}

class Canvas {
 public:
  Canvas(uint8_t* rgb, int width, int height) : rgb_(rgb), width_(width), height_(height) {}

  int width() const { return width_; }
  int height() const { return height_; }

  void Fill(Color c) {
    for (int i = 0, n = width_ * height_; i < n; ++i) Put(i, c);
  }

  void SetPixel(int x, int y, Color c) {
    if (Inside(x, y)) Put(y * width_ + x, c);
  }

  // Mixes `c` into the pixel with weight/255 (0 keeps the pixel), in 8-bit fixed point as
  // gfxdraw blends anti-aliased pixels (so even weight 255 leaves a trace of the old colour).
  void BlendPixel(int x, int y, Color c, int weight) {
    if (!Inside(x, y) || weight <= 0) return;
    const int alpha = (255 * std::min(weight, 255)) >> 8;
    uint8_t* p = rgb_ + 3 * (static_cast<std::size_t>(y) * width_ + x);
    const uint8_t src[3] = {c.r, c.g, c.b};
    // (src - dst) * alpha / 256 rounded down (an arithmetic shift of a possibly negative value).
    for (int k = 0; k < 3; ++k) p[k] = static_cast<uint8_t>(p[k] + FloorDiv256((src[k] - p[k]) * alpha));
  }

  // The w x h rectangle with top-left corner (x, y).
  void FillRect(int x, int y, int w, int h, Color c) {
    if (w <= 0) return;
    for (int row = y; row < y + h; ++row) HLine(x, x + w - 1, row, c);
  }

  // Pixels x1..x2 (inclusive, either order) of row y.
  void HLine(int x1, int x2, int y, Color c) {
    if (y < 0 || y >= height_) return;
    if (x1 > x2) std::swap(x1, x2);
    x1 = std::max(x1, 0);
    x2 = std::min(x2, width_ - 1);
    for (int x = x1; x <= x2; ++x) Put(y * width_ + x, c);
  }

  // Pixels y1..y2 (inclusive, either order) of column x.
  void VLine(int x, int y1, int y2, Color c) {
    if (x < 0 || x >= width_) return;
    if (y1 > y2) std::swap(y1, y2);
    y1 = std::max(y1, 0);
    y2 = std::min(y2, height_ - 1);
    for (int y = y1; y <= y2; ++y) Put(y * width_ + x, c);
  }

  // A one-pixel line with both end points (Bresenham).
  void Line(int x0, int y0, int x1, int y1, Color c) {
    const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
      SetPixel(x0, y0, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }

  // Wu's anti-aliased line between integer points. The start point is drawn solid, the end
  // point only when `endpoint` (polygon outlines leave it to the next edge). Axis-parallel
  // lines are solid spans including both ends.
  void AALine(int x0, int y0, int x1, int y1, Color c, bool endpoint = false) {
    if (!ClipLine(x0, y0, x1, y1)) return;
    if (x0 == x1) return VLine(x0, y0, y1, c);
    if (y0 == y1) return HLine(x0, x1, y0, c);
    SetPixel(x0, y0, c);
    if (endpoint) SetPixel(x1, y1, c);
    // Walk from the end with the smaller y, one pixel per step along the major axis; the
    // 32-bit accumulator holds the fractional minor-axis position, its top 8 bits the weight
    // of the pixel beyond the line.
    int ax = x0, ay = y0, bx = x1, by = y1;
    if (ay > by) {
      std::swap(ax, bx);
      std::swap(ay, by);
    }
    const int xdir = bx >= ax ? 1 : -1;
    const uint32_t dx = static_cast<uint32_t>(std::abs(bx - ax));
    const uint32_t dy = static_cast<uint32_t>(by - ay);
    uint32_t acc = 0;
    if (dy > dx) {
      const uint32_t step = ((dx << 16) / dy) << 16;
      int x = ax, y = ay;
      for (uint32_t i = 1; i < dy; ++i) {
        const uint32_t before = acc;
        acc += step;
        if (acc <= before) x += xdir;  // the accumulator wrapped: move one column
        ++y;
        const int w = static_cast<int>(acc >> 24);
        BlendPixel(x, y, c, 255 - w);
        BlendPixel(x + xdir, y, c, w);
      }
    } else {
      const uint32_t step = ((dy << 16) / dx) << 16;
      int x = ax, y = ay;
      for (uint32_t i = 1; i < dx; ++i) {
        const uint32_t before = acc;
        acc += step;
        if (acc <= before) ++y;
        x += xdir;
        const int w = static_cast<int>(acc >> 24);
        BlendPixel(x, y, c, 255 - w);
        BlendPixel(x, y + 1, c, w);
      }
    }
  }

  // Wu's anti-aliased line between float points, as pygame.draw.aaline weighs it: along the
  // major axis pixel i covers [i, i + 1) of the segment [a, b + 1); across it the line's
  // position at i is split between the two nearest pixels.
  void AALineF(Vec2 a, Vec2 b, Color c) {
    const bool steep = std::abs(b.y - a.y) > std::abs(b.x - a.x);
    if (steep) {
      std::swap(a.x, a.y);
      std::swap(b.x, b.y);
    }
    if (a.x > b.x) std::swap(a, b);
    const double dx = b.x - a.x;
    const double gradient = dx == 0 ? 0.0 : (b.y - a.y) / dx;
    auto plot = [&](int major, int minor, double w) {
      const int weight = static_cast<int>(std::lround(255 * w));
      if (steep) {
        BlendPixel(minor, major, c, weight);
      } else {
        BlendPixel(major, minor, c, weight);
      }
    };
    const int first = Trunc(std::floor(a.x));
    const int last = Trunc(std::floor(b.x)) + 1;
    for (int x = first; x <= last; ++x) {
      const double along = std::min(b.x + 1, x + 1.0) - std::max(a.x, static_cast<double>(x));
      if (along <= 0) continue;
      const double y = a.y + gradient * (x - a.x);
      const int yi = Trunc(std::floor(y));
      const double frac = y - yi;
      plot(x, yi, (1 - frac) * along);
      plot(x, yi + 1, frac * along);
    }
  }

  // A polygon (any shape, even-odd rule) filled at integer rows: a pixel (x, y) is inside
  // when x lies between a pair of edge crossings of row y, crossings rounded inward to the
  // nearest pixel. Edges count on [y_low, y_high) so shared vertices are not counted twice,
  // except on the last row where the closing edges count on (y_low, y_high].
  void FilledPolygon(const std::vector<Pixel>& pts, Color c) {
    const std::size_t n = pts.size();
    if (n < 3) return;
    int miny = pts[0].y, maxy = pts[0].y;
    for (const Pixel& p : pts) {
      miny = std::min(miny, p.y);
      maxy = std::max(maxy, p.y);
    }
    std::vector<int64_t>& xs = crossings_;
    for (int y = std::max(miny, 0); y <= std::min(maxy, height_ - 1); ++y) {
      xs.clear();
      for (std::size_t i = 0; i < n; ++i) {
        Pixel p = pts[(i + n - 1) % n], q = pts[i];
        if (p.y == q.y) continue;
        if (p.y > q.y) std::swap(p, q);
        if ((y >= p.y && y < q.y) || (y == maxy && y > p.y && y <= q.y)) {
          // x of the crossing in 16.16 fixed point, as an integer scanline filler does it.
          const int64_t t = (int64_t{65536} * (y - p.y)) / (q.y - p.y);
          xs.push_back(t * (q.x - p.x) + int64_t{65536} * p.x);
        }
      }
      std::sort(xs.begin(), xs.end());
      for (std::size_t i = 0; i + 1 < xs.size(); i += 2) {
        HLine(RoundFixed(xs[i] + 1), RoundFixed(xs[i + 1] - 1), y, c);
      }
    }
  }

  // The closed outline of a polygon in anti-aliased lines.
  void AAPolygon(const std::vector<Pixel>& pts, Color c) {
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const Pixel& p = pts[i];
      const Pixel& q = pts[(i + 1) % pts.size()];
      AALine(p.x, p.y, q.x, q.y, c);
    }
  }

  // What gymnasium does for every solid shape: an anti-aliased outline, then the fill; the
  // float corners are truncated to pixels first.
  void Polygon(const std::vector<Vec2>& corners, Color c) {
    std::vector<Pixel>& pts = pixels_;
    pts.clear();
    for (const Vec2& v : corners) pts.push_back(Trunc(v));
    AAPolygon(pts, c);
    FilledPolygon(pts, c);
  }

  // A disc of integer radius r: the rows of the midpoint circle joined by spans.
  void FilledCircle(int cx, int cy, int r, Color c) {
    if (r < 0) return;
    if (r == 0) return SetPixel(cx, cy, c);
    int x = 0, y = r, d = 1 - r;
    int last_y = -1, last_x = -1;
    while (x <= y) {
      if (y != last_y) {  // rows cy +- y, half width x
        HLine(cx - x, cx + x, cy + y, c);
        if (y > 0) HLine(cx - x, cx + x, cy - y, c);
        last_y = y;
      }
      if (x != last_x && x != y) {  // rows cy +- x, half width y
        HLine(cx - y, cx + y, cy + x, c);
        if (x > 0) HLine(cx - y, cx + y, cy - x, c);
        last_x = x;
      }
      if (d < 0) {
        d += 2 * x + 3;
      } else {
        d += 2 * (x - y) + 5;
        --y;
      }
      ++x;
    }
  }

  // An anti-aliased one-pixel ring of radius r (pixels weighted by their distance to it).
  void AACircle(int cx, int cy, int r, Color c) {
    for (int y = cy - r - 1; y <= cy + r + 1; ++y) {
      for (int x = cx - r - 1; x <= cx + r + 1; ++x) {
        const double d = std::hypot(x - cx, y - cy);
        const double w = 1.0 - std::abs(d - r);
        if (w > 0) BlendPixel(x, y, c, static_cast<int>(std::lround(255 * w)));
      }
    }
  }

  // gfxdraw's aacircle + filled_circle pair.
  void Disc(int cx, int cy, int r, Color c) {
    AACircle(cx, cy, r, c);
    FilledCircle(cx, cy, r, c);
  }

  // Blends `c` into pixels x0..x1-1, y0..y1-1 by the fraction of a samples x samples grid
  // inside each pixel for which inside(px, py) holds, with (px, py) the sample's position in
  // pixel units relative to (x0, y0) (so a sprite can be described in its own frame).
  template <typename InsideFn>
  void FillCoverage(int x0, int y0, int x1, int y1, InsideFn inside, Color c, int samples = 4) {
    const int total = samples * samples;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        if (!Inside(x, y)) continue;
        int hits = 0;
        for (int sy = 0; sy < samples; ++sy) {
          for (int sx = 0; sx < samples; ++sx) {
            hits += inside(x - x0 + (sx + 0.5) / samples, y - y0 + (sy + 0.5) / samples) ? 1 : 0;
          }
        }
        if (hits) BlendPixel(x, y, c, (255 * hits + total / 2) / total);
      }
    }
  }

  // pygame.draw.circle(surface, c, (cx, cy), r), filled (width 0, or width >= r), as pygame-ce
  // 2.5 draws it: the midpoint circle around the corner shared by pixels (cx - 1, cy - 1) and
  // (cx, cy), its rows joined by spans [cx - h, cx + h - 1]. Nothing for r < 1.
  void PygameCircle(int cx, int cy, int r, Color c) {
    if (!CircleMayShow(cx, cy, r)) return;
    if (CircleCovers(cx, cy, r)) return Fill(c);  // a huge disc: every pixel is inside
    const auto span = [&](int64_t x1, int64_t x2, int64_t y) {
      if (y < 0 || y >= height_) return;
      HLine(static_cast<int>(std::clamp<int64_t>(x1, -1, width_)),
            static_cast<int>(std::clamp<int64_t>(x2, -1, width_)), static_cast<int>(y), c);
    };
    PygameCircleSteps(r, [&](int64_t x, int64_t y, bool rows_at_y) {
      if (rows_at_y) {  // pygame draws the rows +-y once per y: when y is about to step down
        span(cx - x, cx + x - 1, cy + y - 1);
        span(cx - x, cx + x - 1, cy - y);
      }
      span(cx - y, cx + y - 1, cy + x - 1);
      span(cx - y, cx + y - 1, cy - x);
    });
  }

  // pygame.draw.circle(surface, c, (cx, cy), r, 1): the one-pixel ring of the same circle, eight
  // symmetric points per step (r == 1: the filled circle, as pygame clamps width to r).
  void PygameCircleOutline(int cx, int cy, int r, Color c) {
    if (r == 1) return PygameCircle(cx, cy, r, c);
    if (!CircleMayShow(cx, cy, r) || CircleCovers(cx, cy, r)) return;  // covering: the ring is off the canvas
    const auto dot = [&](int64_t x, int64_t y) {
      if (x >= 0 && y >= 0 && x < width_ && y < height_) Put(static_cast<int>(y) * width_ + static_cast<int>(x), c);
    };
    PygameCircleSteps(r, [&](int64_t x, int64_t y, bool) {
      dot(cx + x - 1, cy + y - 1);
      dot(cx - x, cy + y - 1);
      dot(cx + x - 1, cy - y);
      dot(cx - x, cy - y);
      dot(cx + y - 1, cy + x - 1);
      dot(cx + y - 1, cy - x);
      dot(cx - y, cy + x - 1);
      dot(cx - y, cy - x);
    });
  }

  // Mirrors the image top to bottom (pygame.transform.flip(surf, False, True)).
  void FlipVertical() {
    const std::size_t row = 3 * static_cast<std::size_t>(width_);
    std::vector<uint8_t> tmp(row);
    for (int top = 0, bottom = height_ - 1; top < bottom; ++top, --bottom) {
      uint8_t* a = rgb_ + top * row;
      uint8_t* b = rgb_ + bottom * row;
      std::memcpy(tmp.data(), a, row);
      std::memcpy(a, b, row);
      std::memcpy(b, tmp.data(), row);
    }
  }

 private:
  bool Inside(int x, int y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }
  void Put(int index, Color c) {
    uint8_t* p = rgb_ + 3 * static_cast<std::size_t>(index);
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  // Cohen-Sutherland: cuts the segment to the canvas (as gfxdraw does before an anti-aliased
  // line, which moves its end points and so its slope); false when nothing is left.
  bool ClipLine(int& x0, int& y0, int& x1, int& y1) const {
    const int right = width_ - 1, bottom = height_ - 1;
    auto code = [&](int x, int y) {
      return (x < 0 ? 1 : 0) | (x > right ? 2 : 0) | (y < 0 ? 4 : 0) | (y > bottom ? 8 : 0);
    };
    for (int round = 0; round < 8; ++round) {  // each round moves one end onto an edge
      int c0 = code(x0, y0);
      const int c1 = code(x1, y1);
      if ((c0 | c1) == 0) return true;
      if (c0 & c1) return false;
      if (c0 == 0) {  // move the outside end into x0, y0
        std::swap(x0, x1);
        std::swap(y0, y1);
        c0 = c1;
      }
      if (c0 & 3) {
        const int edge = (c0 & 1) ? 0 : right;
        const double m = x1 != x0 ? static_cast<double>(y1 - y0) / (x1 - x0) : 1.0;
        y0 = Trunc(y0 + static_cast<double>(Trunc((edge - x0) * m)));
        x0 = edge;
      } else {
        const int edge = (c0 & 4) ? 0 : bottom;
        if (x1 != x0)
          x0 = Trunc(x0 + static_cast<double>(Trunc((edge - y0) / (static_cast<double>(y1 - y0) / (x1 - x0)))));
        y0 = edge;
      }
    }
    return false;  // rounding kept an end outside: nothing worth drawing
  }
  // The steps of pygame-ce's midpoint circle of radius r (draw_circle_filled and
  // draw_circle_bresenham_thin share them): while x < y, y steps down when the decision value f
  // is >= 0, then x steps up; visit(x, y, f >= 0) sees the values after the step.
  template <typename Visit>
  static void PygameCircleSteps(int r, Visit visit) {
    int64_t f = 1 - int64_t{r}, ddf_y = -2 * int64_t{r};
    int64_t x = 0, y = r;
    while (x < y) {
      if (f >= 0) {
        --y;
        ddf_y += 2;
        f += ddf_y;
      }
      ++x;
      f += 2 * x + 1;
      visit(x, y, f >= 0);
    }
  }
  // pygame's early return: a circle of radius r >= 1 whose centre lies within r of the canvas.
  bool CircleMayShow(int cx, int cy, int r) const {
    return r >= 1 && cx <= int64_t{width_} + r && cx >= -int64_t{r} && cy <= int64_t{height_} + r && cy >= -int64_t{r};
  }
  // Whether every pixel of the canvas lies well inside the circle (2 pixels from its edge, more
  // than the midpoint circle ever strays), so the disc covers the canvas and the ring misses it.
  bool CircleCovers(int cx, int cy, int r) const {
    const double far_x = std::max(std::abs(static_cast<double>(cx)), std::abs(static_cast<double>(cx) - width_));
    const double far_y = std::max(std::abs(static_cast<double>(cy)), std::abs(static_cast<double>(cy) - height_));
    return std::hypot(far_x, far_y) <= static_cast<double>(r) - 2.0;
  }
  // A 16.16 fixed-point value rounded to the nearest integer (halves up).
  static int RoundFixed(int64_t v) { return static_cast<int>((v >> 16) + ((v & 32768) >> 15)); }
  static int FloorDiv256(int v) { return v >= 0 ? v / 256 : -((-v + 255) / 256); }

  uint8_t* rgb_;
  int width_;
  int height_;
  std::vector<int64_t> crossings_;
  std::vector<Pixel> pixels_;
};

// Points inside a polygon by the even-odd rule (for FillCoverage shapes).
inline bool PointInPolygon(const Vec2* pts, int n, double x, double y) {
  bool in = false;
  for (int i = 0, j = n - 1; i < n; j = i++) {
    if ((pts[i].y > y) != (pts[j].y > y) &&
        x < (pts[j].x - pts[i].x) * (y - pts[i].y) / (pts[j].y - pts[i].y) + pts[i].x) {
      in = !in;
    }
  }
  return in;
}

}  // namespace envpool::render
