// The frame of gymnasium's AcrobotEnv.render(): 500 x 500, two cyan links hanging from the
// centre with yellow joints, and the black line the tip must reach.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "render/canvas.h"

namespace envpool::classic_control {

inline constexpr int kAcrobotSize = 500;

// The links at angles theta1 (the first from straight down) and theta2 (the second relative to
// the first), of lengths length1 and length2 (the env's constants).
inline void DrawAcrobot(uint8_t* rgb, double theta1, double theta2, double length1, double length2) {
  using namespace render;
  Canvas canvas(rgb, kAcrobotSize, kAcrobotSize);
  canvas.Fill(kWhite);
  const double bound = length1 + length2 + 0.2;
  const double scale = kAcrobotSize / (bound * 2);
  const double offset = kAcrobotSize / 2.0;
  // The goal line at height 1 (pygame.draw.line truncates its float end points).
  canvas.Line(Trunc(-2.2 * scale + offset), Trunc(1 * scale + offset), Trunc(2.2 * scale + offset),
              Trunc(1 * scale + offset), kBlack);
  const Vec2 joints[2] = {{0, 0}, {length1 * std::sin(theta1) * scale, -length1 * std::cos(theta1) * scale}};
  const double thetas[2] = {theta1 - M_PI / 2, theta1 + theta2 - M_PI / 2};
  const double lengths[2] = {length1 * scale, length2 * scale};
  for (int i = 0; i < 2; ++i) {
    const double x = joints[i].x + offset, y = joints[i].y + offset;
    const double l = 0, r = lengths[i], t = 0.1 * scale, b = -0.1 * scale;
    std::vector<Vec2> link;
    for (Vec2 corner : {Vec2{l, b}, Vec2{l, t}, Vec2{r, t}, Vec2{r, b}}) {
      const Vec2 v = Rotate(corner, thetas[i]);
      link.push_back({v.x + x, v.y + y});
    }
    canvas.Polygon(link, {0, 204, 204});
    canvas.Disc(Trunc(x), Trunc(y), Trunc(0.1 * scale), {204, 204, 0});
  }
  canvas.FlipVertical();
}

}  // namespace envpool::classic_control
