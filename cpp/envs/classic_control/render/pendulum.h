// The frame of gymnasium's PendulumEnv.render(): 500 x 500, a red rod with rounded ends turning
// about a black axle, and behind the axle an arrow whose size is the last torque |u|
// (clockwise for u <= 0, mirrored for u > 0; none before the first step of an episode).
// gymnasium blits a smooth-scaled image (assets/clockwise.png); here the same shape (a 3/4 ring
// and an arrowhead, fitted to that image) is drawn with supersampled coverage.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "render/canvas.h"

namespace envpool::classic_control {

inline constexpr int kPendulumSize = 500;

// The arrow sprite, centred on the axle: an S x S square, S = int(scale * |u| / 2), showing
// clockwise.png (329 x 312 pixels, y down) flipped vertically (the whole frame is flipped
// afterwards) and horizontally when u > 0. The shape in the image's pixel coordinates: a ring
// about (173.1, 156.1) between radii 146.2 and 156.2 from angle -91.3 deg (just left of the
// top, y down) clockwise to 180 deg, and a notched arrowhead pointing up at its end.
inline void DrawPendulumArrow(render::Canvas& canvas, double scale, int offset, float last_u) {
  const int size = static_cast<int>(scale * std::abs(static_cast<double>(last_u)) / 2);
  if (size <= 0) return;
  const double image_w = 329, image_h = 312;
  const bool mirror = last_u > 0;
  static constexpr render::Vec2 kHead[4] = {{21.5, 110.5}, {45.0, 170.0}, {21.5, 152.0}, {0.0, 170.0}};
  auto inside = [&](double px, double py) {
    // px, py: position in the S x S sprite as blitted; undo the flips, then scale to the image.
    const double u = mirror ? size - px : px;
    const double v = size - py;
    const double x = u * image_w / size, y = v * image_h / size;
    const double dx = x - 173.1, dy = y - 156.1;
    const double r2 = dx * dx + dy * dy;
    if (r2 >= 146.2 * 146.2 && r2 <= 156.2 * 156.2) {
      const double deg = std::atan2(dy, dx) * 180 / M_PI;
      if (deg >= -91.3) return true;  // -91.3 .. 180 degrees
    }
    return x <= 45.0 && y >= 110.5 && y <= 170.0 && render::PointInPolygon(kHead, 4, x, y);
  };
  const int x0 = offset - size / 2, y0 = offset - size / 2;
  canvas.FillCoverage(x0, y0, x0 + size, y0 + size, inside, render::kBlack);
}

// The rod at angle `theta` (0: up); the arrow of torque `last_u` when `has_last_u`.
inline void DrawPendulum(uint8_t* rgb, double theta, bool has_last_u, float last_u) {
  using namespace render;
  Canvas canvas(rgb, kPendulumSize, kPendulumSize);
  canvas.Fill(kWhite);
  const double bound = 2.2;
  const double scale = kPendulumSize / (bound * 2);
  const int offset = kPendulumSize / 2;
  const double rod_length = 1 * scale;
  const double rod_width = 0.2 * scale;
  const Color red{204, 77, 77};
  const double angle = theta + M_PI / 2;
  {
    const double l = 0, r = rod_length, t = rod_width / 2, b = -rod_width / 2;
    std::vector<Vec2> rod;
    for (Vec2 corner : {Vec2{l, b}, Vec2{l, t}, Vec2{r, t}, Vec2{r, b}}) {
      const Vec2 v = Rotate(corner, angle);
      rod.push_back({v.x + offset, v.y + offset});
    }
    canvas.Polygon(rod, red);
  }
  canvas.Disc(offset, offset, Trunc(rod_width / 2), red);
  const Vec2 end = Rotate({rod_length, 0}, angle);
  canvas.Disc(Trunc(end.x + offset), Trunc(end.y + offset), Trunc(rod_width / 2), red);
  if (has_last_u) DrawPendulumArrow(canvas, scale, offset, last_u);
  canvas.Disc(offset, offset, Trunc(0.05 * scale), kBlack);  // the axle
  canvas.FlipVertical();
}

}  // namespace envpool::classic_control
