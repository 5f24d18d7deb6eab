// The frame of gymnasium's MountainCarEnv.render() and Continuous_MountainCarEnv.render()
// (identical but for the flag's position): a 600 x 400 view of the hill y = 0.45 sin(3x) +
// 0.55 over [-1.2, 0.6] as 99 anti-aliased segments, the car a black box tilted by cos(3 pos)
// on two grey wheels, and a yellow flag at the goal.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "render/canvas.h"

namespace envpool::classic_control {

inline constexpr int kMountainCarWidth = 600;
inline constexpr int kMountainCarHeight = 400;

inline void DrawMountainCar(uint8_t* rgb, double pos, double goal_position) {
  using namespace render;
  constexpr double kMinPosition = -1.2, kMaxPosition = 0.6;
  auto height = [](double x) { return std::sin(3 * x) * 0.45 + 0.55; };
  Canvas canvas(rgb, kMountainCarWidth, kMountainCarHeight);
  canvas.Fill(kWhite);
  const double scale = kMountainCarWidth / (kMaxPosition - kMinPosition);
  const double car_width = 40, car_height = 20;

  // The hill: np.linspace(min, max, 100) joined by anti-aliased lines.
  Vec2 prev{};
  for (int i = 0; i < 100; ++i) {
    const double x = i == 99 ? kMaxPosition : kMinPosition + i * ((kMaxPosition - kMinPosition) / 99);
    const Vec2 p{(x - kMinPosition) * scale, height(x) * scale};
    if (i > 0) canvas.AALineF(prev, p, kBlack);
    prev = p;
  }

  const double clearance = 10;
  const double tilt = std::cos(3 * pos);
  const double base_x = (pos - kMinPosition) * scale;
  const double base_y = clearance + height(pos) * scale;
  {
    const double l = -car_width / 2, r = car_width / 2, t = car_height, b = 0;
    std::vector<Vec2> car;
    for (Vec2 corner : {Vec2{l, b}, Vec2{l, t}, Vec2{r, t}, Vec2{r, b}}) {
      const Vec2 v = Rotate(corner, tilt);
      car.push_back({v.x + base_x, v.y + base_y});
    }
    canvas.Polygon(car, kBlack);
  }
  for (Vec2 offset : {Vec2{car_width / 4, 0}, Vec2{-car_width / 4, 0}}) {
    const Vec2 v = Rotate(offset, tilt);
    canvas.Disc(Trunc(v.x + base_x), Trunc(v.y + base_y), Trunc(car_height / 2.5), {128, 128, 128});
  }

  const int flag_x = Trunc((goal_position - kMinPosition) * scale);
  const int flag_y1 = Trunc(height(goal_position) * scale);
  const int flag_y2 = flag_y1 + 50;
  canvas.VLine(flag_x, flag_y1, flag_y2, kBlack);
  const std::vector<Pixel> flag = {{flag_x, flag_y2}, {flag_x, flag_y2 - 10}, {flag_x + 25, flag_y2 - 5}};
  canvas.AAPolygon(flag, {204, 204, 0});
  canvas.FilledPolygon(flag, {204, 204, 0});

  canvas.FlipVertical();
}

}  // namespace envpool::classic_control
