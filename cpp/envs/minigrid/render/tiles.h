// MiniGrid's tile renderer (minigrid 3.2.0: Grid.render_tile, WorldObj.render, utils/rendering.py),
// pixel for pixel. A tile is drawn on a canvas of 3 x tile_size pixels a side (subdivs 3), each
// shape filled where its test passes at the pixel's centre (fill_coords), the agent's triangle on
// top, the highlight blended in, then downsampled 3 x 3 -> 1 by numpy's mean and truncated to
// uint8 when minigrid copies the tile into its frame.
//
// Exactness: the shape tests repeat minigrid's arithmetic, including its float32 parts.
// point_in_line and point_in_triangle keep their points in float32 numpy arrays: differences of
// float32 points and their dot products (dir, dist, dot00/dot01/dot11, inv_denom) are float32;
// anything mixed with the query point (a Python float) is float64. numpy's dot of two 2-vectors
// is the plain sum of the two products (OpenBLAS's ddot/sdot tail loop, no fused multiply-add;
// the build has -ffp-contract=off so ours fuses nothing either). Colours that are floats in
// minigrid (a floor's COLORS / 2, a locked door's 0.45 * COLORS) truncate when stored, as numpy's
// float -> uint8 assignment does; highlight_img blends in float64 and truncates; the downsample
// averages each row of three subpixels, then the three row means, in that order.
//
// Tiles are a pure function of (object encoding, agent direction or none, highlight), as the key
// of minigrid's class-level tile_cache, so one TileSet per tile size serves every env of the
// process: each tile is drawn once, on first use, and a frame is then one copy per cell.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/minigrid/grid.h"

namespace envpool::minigrid {

// TILE_PIXELS: MiniGridEnv's tile_size (render()'s frames).
inline constexpr int kTilePixels = 32;

namespace render {

struct Rgb {
  uint8_t r, g, b;
};

// COLORS, indexed by Color.
inline constexpr Rgb kColors[6] = {{255, 0, 0},    {0, 255, 0},   {0, 0, 255},
                                   {112, 39, 195}, {255, 255, 0}, {100, 100, 100}};

// A float colour (scale * COLORS[c]) stored into a uint8 image: numpy truncates.
inline Rgb Scaled(const Rgb& c, double scale) {
  return {static_cast<uint8_t>(scale * c.r), static_cast<uint8_t>(scale * c.g), static_cast<uint8_t>(scale * c.b)};
}
// COLORS[c] / 2 (Floor).
inline Rgb Halved(const Rgb& c) {
  return {static_cast<uint8_t>(c.r / 2.0), static_cast<uint8_t>(c.g / 2.0), static_cast<uint8_t>(c.b / 2.0)};
}

// point_in_rect.
struct Rect {
  double xmin, xmax, ymin, ymax;
  bool operator()(double x, double y) const { return x >= xmin && x <= xmax && y >= ymin && y <= ymax; }
};

// point_in_circle.
struct Circle {
  double cx, cy, r;
  bool operator()(double x, double y) const { return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r; }
};

// point_in_line: within r of the segment p0 p1 (p0, p1 float32; dir, dist float32).
class Line {
 public:
  Line(double x0, double y0, double x1, double y1, double r)
      : p0x_(static_cast<float>(x0)),
        p0y_(static_cast<float>(y0)),
        xmin_(std::min(x0, x1) - r),
        xmax_(std::max(x0, x1) + r),
        ymin_(std::min(y0, y1) - r),
        ymax_(std::max(y0, y1) + r),
        r_(r) {
    float dx = static_cast<float>(x1) - p0x_;
    float dy = static_cast<float>(y1) - p0y_;
    dist_ = std::sqrt(dx * dx + dy * dy);
    dirx_ = dx / dist_;
    diry_ = dy / dist_;
  }
  bool operator()(double x, double y) const {
    if (x < xmin_ || x > xmax_ || y < ymin_ || y > ymax_) return false;  // minigrid's early escape
    const double pqx = x - p0x_, pqy = y - p0y_;
    double a = pqx * dirx_ + pqy * diry_;
    a = std::min(std::max(a, 0.0), static_cast<double>(dist_));  // np.clip(a, 0, dist)
    const double px = p0x_ + a * dirx_, py = p0y_ + a * diry_;
    const double ex = x - px, ey = y - py;
    return std::sqrt(ex * ex + ey * ey) <= r_;
  }

 private:
  float p0x_, p0y_;
  double xmin_, xmax_, ymin_, ymax_, r_;
  float dirx_ = 0, diry_ = 0, dist_ = 0;
};

// point_in_triangle(a, b, c) by barycentric coordinates (a, b, c float32).
class Triangle {
 public:
  Triangle(double ax, double ay, double bx, double by, double cx, double cy)
      : ax_(static_cast<float>(ax)), ay_(static_cast<float>(ay)) {
    v0x_ = static_cast<float>(cx) - ax_;
    v0y_ = static_cast<float>(cy) - ay_;
    v1x_ = static_cast<float>(bx) - ax_;
    v1y_ = static_cast<float>(by) - ay_;
    dot00_ = v0x_ * v0x_ + v0y_ * v0y_;
    dot01_ = v0x_ * v1x_ + v0y_ * v1y_;
    dot11_ = v1x_ * v1x_ + v1y_ * v1y_;
    inv_denom_ = 1.0f / (dot00_ * dot11_ - dot01_ * dot01_);
  }
  bool operator()(double x, double y) const {
    const double v2x = x - ax_, v2y = y - ay_;
    const double dot02 = v0x_ * v2x + v0y_ * v2y;
    const double dot12 = v1x_ * v2x + v1y_ * v2y;
    const double u = (dot11_ * dot02 - dot01_ * dot12) * inv_denom_;
    const double v = (dot00_ * dot12 - dot01_ * dot02) * inv_denom_;
    return u >= 0 && v >= 0 && (u + v) < 1;
  }

 private:
  float ax_, ay_;
  float v0x_, v0y_, v1x_, v1y_;
  float dot00_, dot01_, dot11_, inv_denom_;
};

// rotate_fn(fn, cx, cy, theta): fn at the point turned by -theta about (cx, cy).
template <typename Fn>
struct Rotated {
  Fn fn;
  double cx, cy, cos_t, sin_t;  // cos(-theta), sin(-theta)
  Rotated(Fn f, double cx_, double cy_, double theta)
      : fn(f), cx(cx_), cy(cy_), cos_t(std::cos(-theta)), sin_t(std::sin(-theta)) {}
  bool operator()(double x, double y) const {
    x = x - cx;
    y = y - cy;
    const double x2 = cx + x * cos_t - y * sin_t;
    const double y2 = cy + y * cos_t + x * sin_t;
    return fn(x2, y2);
  }
};

// A square RGB canvas of `size` pixels a side.
class Canvas {
 public:
  explicit Canvas(int size) : size_(size), px_(static_cast<std::size_t>(size) * size * 3, 0) {}

  // fill_coords: every pixel whose centre passes `fn` takes colour c.
  template <typename Fn>
  void Fill(const Fn& fn, const Rgb& c) {
    for (int y = 0; y < size_; ++y) {
      const double yf = (y + 0.5) / size_;
      for (int x = 0; x < size_; ++x) {
        const double xf = (x + 0.5) / size_;
        if (!fn(xf, yf)) continue;
        uint8_t* p = &px_[(static_cast<std::size_t>(y) * size_ + x) * 3];
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
      }
    }
  }

  // highlight_img(img, white, 0.30): img + 0.30 * (255 - img) in float64, truncated.
  void Highlight() {
    for (auto& v : px_) v = static_cast<uint8_t>(v + 0.30 * static_cast<double>(255 - v));
  }

  // downsample(img, 3), stored as uint8 (truncated): `out` is (size / 3)^2 RGB pixels.
  void Downsample(uint8_t* out) const {
    const int n = size_ / 3;
    for (int ty = 0; ty < n; ++ty) {
      for (int tx = 0; tx < n; ++tx) {
        for (int ch = 0; ch < 3; ++ch) {
          double rows = 0.0;
          for (int r = 0; r < 3; ++r) {
            const uint8_t* p = &px_[((static_cast<std::size_t>(3 * ty + r)) * size_ + 3 * tx) * 3 + ch];
            const double sum = static_cast<double>(p[0]) + p[3] + p[6];
            rows = r == 0 ? sum / 3.0 : rows + sum / 3.0;
          }
          out[(static_cast<std::size_t>(ty) * n + tx) * 3 + ch] = static_cast<uint8_t>(rows / 3.0);
        }
      }
    }
  }

 private:
  int size_;
  std::vector<uint8_t> px_;
};

inline constexpr Rgb kBlack{0, 0, 0};

// WorldObj.render of each object kind.
inline void DrawObj(Canvas& img, const Obj& obj) {
  if (obj.empty()) return;
  const Rgb c = kColors[obj.color];
  switch (obj.type) {
    case kWall:
    case kGoal:
      img.Fill(Rect{0, 1, 0, 1}, c);
      break;
    case kFloor:
      img.Fill(Rect{0.031, 1, 0.031, 1}, Halved(c));
      break;
    case kLava:
      img.Fill(Rect{0, 1, 0, 1}, Rgb{255, 128, 0});
      for (int i = 0; i < 3; ++i) {  // little waves
        const double ylo = 0.3 + 0.2 * i;
        const double yhi = 0.4 + 0.2 * i;
        img.Fill(Line(0.1, ylo, 0.3, yhi, 0.03), kBlack);
        img.Fill(Line(0.3, yhi, 0.5, ylo, 0.03), kBlack);
        img.Fill(Line(0.5, ylo, 0.7, yhi, 0.03), kBlack);
        img.Fill(Line(0.7, yhi, 0.9, ylo, 0.03), kBlack);
      }
      break;
    case kDoor:
      if (obj.state == kOpen) {
        img.Fill(Rect{0.88, 1.00, 0.00, 1.00}, c);
        img.Fill(Rect{0.92, 0.96, 0.04, 0.96}, kBlack);
      } else if (obj.state == kLocked) {
        img.Fill(Rect{0.00, 1.00, 0.00, 1.00}, c);
        img.Fill(Rect{0.06, 0.94, 0.06, 0.94}, Scaled(c, 0.45));
        img.Fill(Rect{0.52, 0.75, 0.50, 0.56}, c);  // key slot
      } else {
        img.Fill(Rect{0.00, 1.00, 0.00, 1.00}, c);
        img.Fill(Rect{0.04, 0.96, 0.04, 0.96}, kBlack);
        img.Fill(Rect{0.08, 0.92, 0.08, 0.92}, c);
        img.Fill(Rect{0.12, 0.88, 0.12, 0.88}, kBlack);
        img.Fill(Circle{0.75, 0.50, 0.08}, c);  // handle
      }
      break;
    case kKey:
      img.Fill(Rect{0.50, 0.63, 0.31, 0.88}, c);  // vertical quad
      img.Fill(Rect{0.38, 0.50, 0.59, 0.66}, c);  // teeth
      img.Fill(Rect{0.38, 0.50, 0.81, 0.88}, c);
      img.Fill(Circle{0.56, 0.28, 0.190}, c);  // ring
      img.Fill(Circle{0.56, 0.28, 0.064}, kBlack);
      break;
    case kBall:
      img.Fill(Circle{0.5, 0.5, 0.31}, c);
      break;
    case kBox:
      img.Fill(Rect{0.12, 0.88, 0.12, 0.88}, c);  // outline
      img.Fill(Rect{0.18, 0.82, 0.18, 0.82}, kBlack);
      img.Fill(Rect{0.16, 0.84, 0.47, 0.53}, c);  // horizontal slit
      break;
    default:
      break;
  }
}

// Grid.render_tile(obj, agent_dir (-1: None), highlight, tile_size) into `out` (tile^2 RGB).
inline void DrawTile(uint8_t* out, int tile, const Obj& obj, int agent_dir, bool highlight) {
  Canvas img(3 * tile);
  img.Fill(Rect{0, 0.031, 0, 1}, Rgb{100, 100, 100});  // grid lines: left and top edges
  img.Fill(Rect{0, 1, 0, 0.031}, Rgb{100, 100, 100});
  DrawObj(img, obj);
  if (agent_dir >= 0) {
    const Triangle agent(0.12, 0.19, 0.87, 0.50, 0.12, 0.81);
    img.Fill(Rotated<Triangle>(agent, 0.5, 0.5, 0.5 * std::numbers::pi * agent_dir), Rgb{255, 0, 0});
  }
  if (highlight) img.Highlight();
  img.Downsample(out);
}

}  // namespace render

// The tiles of one tile size, each drawn on first use (thread-safe: envs render and build RGB
// observations on the pool's threads) and kept for the life of the process.
class TileSet {
 public:
  explicit TileSet(int tile) : tile_(tile) {}
  TileSet(const TileSet&) = delete;
  TileSet& operator=(const TileSet&) = delete;

  int tile() const { return tile_; }

  // The tile of `obj` with the agent facing agent_dir on it (-1: no agent), highlighted or not:
  // tile^2 RGB pixels, row-major.
  const uint8_t* Get(const Obj& obj, int agent_dir, bool highlight) const {
    const std::size_t slot =
        ((static_cast<std::size_t>(obj.type) * 6 + obj.color) * 3 + obj.state) * 10 + (agent_dir + 1) * 2 + highlight;
    std::call_once(once_[slot], [&] {
      tiles_[slot] = std::make_unique<uint8_t[]>(static_cast<std::size_t>(tile_) * tile_ * 3);
      render::DrawTile(tiles_[slot].get(), tile_, obj, agent_dir, highlight);
    });
    return tiles_[slot].get();
  }

  // Copies the tile into a frame `row_bytes` wide at cell (i, j).
  void Put(uint8_t* frame, std::size_t row_bytes, int i, int j, const Obj& obj, int agent_dir, bool highlight) const {
    const uint8_t* src = Get(obj, agent_dir, highlight);
    const std::size_t tile_bytes = static_cast<std::size_t>(tile_) * 3;
    uint8_t* dst = frame + static_cast<std::size_t>(j) * tile_ * row_bytes + static_cast<std::size_t>(i) * tile_bytes;
    for (int r = 0; r < tile_; ++r) std::memcpy(dst + r * row_bytes, src + r * tile_bytes, tile_bytes);
  }

  // The process's TileSet for `tile` pixels (made once; never freed, so that no env outlives it).
  static const TileSet& Of(int tile) {
    static std::mutex mu;
    static auto* sets = new std::map<int, std::unique_ptr<TileSet>>();
    std::lock_guard<std::mutex> lock(mu);
    auto& set = (*sets)[tile];
    if (!set) set = std::make_unique<TileSet>(tile);
    return *set;
  }

 private:
  // Objects: type 0..10 x colour 0..5 x state 0..2; agent: none or 4 directions; highlight.
  static constexpr std::size_t kSlots = 11 * 6 * 3 * 5 * 2;
  int tile_;
  mutable std::array<std::once_flag, kSlots> once_;
  mutable std::array<std::unique_ptr<uint8_t[]>, kSlots> tiles_;
};

}  // namespace envpool::minigrid
