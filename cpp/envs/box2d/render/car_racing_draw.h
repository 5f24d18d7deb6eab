// The pygame pieces CarRacing's frames are made of, pixel for pixel as pygame-ce 2.5.8 (the
// oracle's renderer) computes them:
//  * Vector2.rotate_rad (its exact right angles when the angle is within 1e-6 of one);
//  * gfxdraw.filled_polygon: SDL_gfx's scanline fill on Sint16 corners, whose 16.16 crossings
//    are 32-bit ints (they wrap for the far corners of the playfield, and so does ours);
//  * gfxdraw's coordinate conversion: int() of the float, then a cast to Sint16;
//  * transform.smoothscale as its SSE2 backend (the one every x86-64 pygame picks) computes it:
//    14-bit counters, 16-bit lanes, mulhi rounding; X first, then Y;
//  * draw.lines(width=2), for the skid marks of the full-size render.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "envs/box2d/render/lunar_lander.h"
#include "render/canvas.h"

namespace envpool::box2d::car_draw {

// pygame.math.Vector2(x, y).rotate_rad(angle) with its default epsilon.
inline render::Vec2 RotateRad(render::Vec2 p, double angle) {
  constexpr double kEps = 1e-6;
  constexpr double kTwoPi = 2 * M_PI;
  angle = std::fmod(angle, kTwoPi);
  if (angle < 0) angle += kTwoPi;
  if (std::fmod(angle + kEps, M_PI_2) < 2 * kEps) {
    switch (static_cast<int>((angle + kEps) / M_PI_2)) {
      case 1:
        return {-p.y, p.x};
      case 2:
        return {-p.x, -p.y};
      case 3:
        return {p.y, -p.x};
      default:
        return p;
    }
  }
  const double s = std::sin(angle), c = std::cos(angle);
  return {c * p.x - s * p.y, s * p.x + c * p.y};
}

// gfxdraw's Sint16FromObj of a float: PyNumber_Long (toward zero), then (Sint16).
inline int GfxCoord(double v) { return static_cast<int16_t>(static_cast<int64_t>(render::Trunc(v))); }

// SDL_gfx's filledPolygonColorMT with an opaque colour (a plain span fill).
// Pixels x1..x2 (either order, clipped) of row y of a width x height RGB image, as hlineColor
// fills them; a grey colour (the background, the road) is one memset.
inline void Span(uint8_t* rgb, int width, int height, int x1, int x2, int y, render::Color c) {
  if (y < 0 || y >= height) return;
  if (x1 > x2) std::swap(x1, x2);
  x1 = std::max(x1, 0);
  x2 = std::min(x2, width - 1);
  if (x1 > x2) return;
  uint8_t* p = rgb + 3 * (static_cast<std::size_t>(y) * width + x1);
  const std::size_t count = static_cast<std::size_t>(x2 - x1 + 1);
  if (c.r == c.g && c.g == c.b) {
    std::memset(p, c.r, 3 * count);
    return;
  }
  for (std::size_t i = 0; i < count; ++i, p += 3) {
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
}

inline void GfxFilledPolygon(render::Canvas& canvas, uint8_t* rgb, const render::Pixel* pts, int n, render::Color c,
                             std::vector<int32_t>& xs) {
  if (n < 3) return;
  int miny = pts[0].y, maxy = pts[0].y;
  for (int i = 1; i < n; ++i) {
    if (pts[i].y < miny) {
      miny = pts[i].y;
    } else if (pts[i].y > maxy) {
      maxy = pts[i].y;
    }
  }
  // Rows outside the canvas draw nothing; start at the first visible one (the crossings of a
  // row do not depend on the others).
  const int first = std::max(miny, 0), last = std::min(maxy, canvas.height() - 1);
  for (int y = first; y <= last; ++y) {
    xs.clear();
    for (int i = 0; i < n; ++i) {
      const int ind1 = i == 0 ? n - 1 : i - 1, ind2 = i;
      int y1 = pts[ind1].y, y2 = pts[ind2].y, x1, x2;
      if (y1 < y2) {
        x1 = pts[ind1].x;
        x2 = pts[ind2].x;
      } else if (y1 > y2) {
        y2 = pts[ind1].y;
        y1 = pts[ind2].y;
        x2 = pts[ind1].x;
        x1 = pts[ind2].x;
      } else {
        continue;
      }
      if ((y >= y1 && y < y2) || (y == maxy && y > y1 && y <= y2)) {
        // ((65536 * (y - y1)) / (y2 - y1)) * (x2 - x1) + (65536 * x1) in C int arithmetic,
        // wrapping as the reference build's does.
        const int32_t q =
            static_cast<int32_t>(static_cast<uint32_t>(65536u * static_cast<uint32_t>(y - y1))) / (y2 - y1);
        const uint32_t v =
            static_cast<uint32_t>(q) * static_cast<uint32_t>(x2 - x1) + 65536u * static_cast<uint32_t>(x1);
        xs.push_back(static_cast<int32_t>(v));
      }
    }
    std::sort(xs.begin(), xs.end());
    for (std::size_t i = 0; i + 1 < xs.size(); i += 2) {
      const int32_t a = static_cast<int32_t>(static_cast<uint32_t>(xs[i]) + 1u);
      const int32_t b = static_cast<int32_t>(static_cast<uint32_t>(xs[i + 1]) - 1u);
      const int xa = (a >> 16) + ((a & 32768) >> 15);
      const int xb = (b >> 16) + ((b & 32768) >> 15);
      // hlineColor takes Sint16 ends.
      Span(rgb, canvas.width(), canvas.height(), static_cast<int16_t>(xa), static_cast<int16_t>(xb), y, c);
    }
  }
}

// SDL_gfx's _clipLine (Cohen-Sutherland with a float32 slope on Sint16 ends; the end outside
// is moved, and the ends stay swapped as it leaves them). False: nothing to draw.
inline bool GfxClipLine(int& x1, int& y1, int& x2, int& y2, int right, int bottom) {
  auto code = [&](int x, int y) { return (x < 0 ? 1 : (x > right ? 2 : 0)) | (y < 0 ? 8 : (y > bottom ? 4 : 0)); };
  for (int round = 0; round < 64; ++round) {
    int c1 = code(x1, y1), c2 = code(x2, y2);
    if ((c1 | c2) == 0) return true;
    if (c1 & c2) return false;
    if (c1 == 0) {
      std::swap(x1, x2);
      std::swap(y1, y2);
      std::swap(c1, c2);
    }
    const float m = x2 != x1 ? static_cast<float>(y2 - y1) / static_cast<float>(x2 - x1) : 1.0f;
    if (c1 & 1) {
      y1 = static_cast<int16_t>(y1 + static_cast<int16_t>(static_cast<float>(0 - x1) * m));
      x1 = 0;
    } else if (c1 & 2) {
      y1 = static_cast<int16_t>(y1 + static_cast<int16_t>(static_cast<float>(right - x1) * m));
      x1 = right;
    } else if (c1 & 4) {
      if (x2 != x1) x1 = static_cast<int16_t>(x1 + static_cast<int16_t>(static_cast<float>(bottom - y1) / m));
      y1 = bottom;
    } else {
      if (x2 != x1) x1 = static_cast<int16_t>(x1 + static_cast<int16_t>(static_cast<float>(0 - y1) / m));
      y1 = 0;
    }
  }
  return false;
}

// gymnasium's _draw_colored_polygon after the transform: gfxdraw.aapolygon, then
// gfxdraw.filled_polygon, both on the Sint16 corners.
inline void GfxPolygon(render::Canvas& canvas, uint8_t* rgb, const render::Vec2* corners, int n, render::Color c,
                       std::vector<int32_t>& xs) {
  render::Pixel pts[8];
  for (int i = 0; i < n; ++i) pts[i] = {GfxCoord(corners[i].x), GfxCoord(corners[i].y)};
  for (int i = 0; i < n; ++i) {
    const render::Pixel& p = pts[i];
    const render::Pixel& q = pts[(i + 1) % n];
    int x1 = p.x, y1 = p.y, x2 = q.x, y2 = q.y;
    // Clipped here as SDL_gfx clips; the canvas' own clipping then has nothing left to do.
    if (GfxClipLine(x1, y1, x2, y2, canvas.width() - 1, canvas.height() - 1)) canvas.AALine(x1, y1, x2, y2, c);
  }
  GfxFilledPolygon(canvas, rgb, pts, n, c, xs);
}

// pygame.draw.polygon of float corners (truncated to ints first).
inline void DrawPolygon(render::Canvas& canvas, const render::Vec2* corners, int n, render::Color c,
                        std::vector<render::Pixel>& pts) {
  pts.clear();
  for (int i = 0; i < n; ++i) pts.push_back(render::Trunc(corners[i]));
  PygamePolygon(canvas, pts, c);
}

// The widest image SmoothScale makes (ours: 96 and 600).
inline constexpr int kMaxScaledWidth = 1024;

// transform.smoothscale (shrinking in both directions) of an RGB image, SSE2 backend's
// arithmetic per channel. `temp` holds src_h x dst_w x 3 lanes, `acc` dst_w x 3.
inline void SmoothScale(const uint8_t* src, int src_w, int src_h, uint8_t* dst, int dst_w, int dst_h,
                        std::vector<uint16_t>& temp, std::vector<uint16_t>& acc) {
  if (dst_w > kMaxScaledWidth) return;
  temp.resize(static_cast<std::size_t>(src_h) * dst_w * 3);
  auto mulhi = [](uint32_t a, uint32_t b) { return static_cast<uint16_t>((a * b) >> 16); };
  auto pack = [](uint16_t v) { return static_cast<uint16_t>(static_cast<int16_t>(v) < 0 ? 0 : std::min<int>(v, 255)); };
  {
    // The column schedule is the same for every row: for each output pixel the run of source
    // pixels added whole, then the one split between it and the next (its xcounter / xfrac).
    const int xspace = 0x4000 * src_w / dst_w;
    const auto xrecip = static_cast<uint16_t>(0x40000000 / xspace);
    struct Cell {
      int run_start, run_len, split, xcounter, xfrac;
    };
    Cell plan[kMaxScaledWidth];
    int cells = 0;
    {
      int xcounter = xspace, run_start = 0;
      for (int x = 0; x < src_w && cells < dst_w; ++x) {
        if (xcounter > 0x4000) {
          xcounter -= 0x4000;
        } else {
          const int xfrac = 0x4000 - xcounter;
          plan[cells++] = {run_start, x - run_start, x, xcounter, xfrac};
          run_start = x + 1;
          xcounter = xspace - xfrac;
        }
      }
    }
    // Columns no cell reaches stay 0 (pygame's would hold whatever its buffer held; the
    // shrink factors used here reach every column).
    if (cells < dst_w) std::fill(temp.begin(), temp.end(), uint16_t{0});
    for (int y = 0; y < src_h; ++y) {
      const uint8_t* row = src + static_cast<std::size_t>(y) * src_w * 3;
      uint16_t* out = temp.data() + static_cast<std::size_t>(y) * dst_w * 3;
      uint16_t a[3] = {0, 0, 0};
      for (int j = 0; j < cells; ++j) {
        const Cell& c = plan[j];
        const uint8_t* p = row + 3 * c.run_start;
        uint32_t sum[3] = {0, 0, 0};
        for (int i = 0; i < c.run_len; ++i, p += 3) {
          sum[0] += p[0];
          sum[1] += p[1];
          sum[2] += p[2];
        }
        const uint8_t* q = row + 3 * c.split;
        for (int k = 0; k < 3; ++k) {
          const auto acc_k = static_cast<uint16_t>(a[k] + sum[k]);
          const auto s16 = static_cast<uint16_t>(q[k] << 2);
          const auto d = static_cast<uint16_t>(mulhi(s16, static_cast<uint16_t>(c.xcounter)) + acc_k);
          a[k] = mulhi(s16, static_cast<uint16_t>(c.xfrac));
          out[3 * j + k] = pack(mulhi(d, xrecip));
        }
      }
    }
  }
  {
    const int yspace = 0x4000 * src_h / dst_h;
    const auto yrecip = static_cast<uint16_t>(0x40000000 / yspace);
    const std::size_t width = static_cast<std::size_t>(dst_w) * 3;
    acc.assign(width, 0);
    int ycounter = yspace, written = 0;
    for (int y = 0; y < src_h; ++y) {
      const uint16_t* row = temp.data() + y * width;
      if (ycounter > 0x4000) {
        for (std::size_t i = 0; i < width; ++i) acc[i] = static_cast<uint16_t>(acc[i] + row[i]);
        ycounter -= 0x4000;
      } else {
        const int yfrac = 0x4000 - ycounter;
        uint8_t* out = dst + static_cast<std::size_t>(written) * width;
        for (std::size_t i = 0; i < width; ++i) {
          const auto s = static_cast<uint16_t>(row[i] << 2);
          const auto d = static_cast<uint16_t>(mulhi(s, static_cast<uint16_t>(ycounter)) + acc[i]);
          acc[i] = mulhi(s, static_cast<uint16_t>(yfrac));
          if (written < dst_h) out[i] = static_cast<uint8_t>(pack(mulhi(d, yrecip)));
        }
        ++written;
        ycounter = yspace - yfrac;
      }
    }
  }
}

}  // namespace envpool::box2d::car_draw
