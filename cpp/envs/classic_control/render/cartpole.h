// The frame of gymnasium's CartPoleEnv.render(): 600 x 400, the cart a black box on the track
// line, the pole a brown bar hinged at a blue axle.
#pragma once

#include <cstdint>
#include <vector>

#include "render/canvas.h"

namespace envpool::classic_control {

inline constexpr int kCartPoleWidth = 600;
inline constexpr int kCartPoleHeight = 400;

// The cart at position `x` with the pole at angle `theta`; the world is 2 * x_threshold wide
// and the pole 2 * half_length long (the env's constants).
inline void DrawCartPole(uint8_t* rgb, double x, double theta, double x_threshold, double half_length) {
  using namespace render;
  Canvas canvas(rgb, kCartPoleWidth, kCartPoleHeight);
  canvas.Fill(kWhite);
  const double scale = kCartPoleWidth / (x_threshold * 2);
  const double pole_width = 10.0;
  const double pole_len = scale * (2 * half_length);
  const double cart_width = 50.0, cart_height = 30.0;
  const double axle_offset = cart_height / 4.0;
  const double cart_x = x * scale + kCartPoleWidth / 2.0;  // middle of the cart
  const double cart_y = 100;                               // top of the cart
  {
    const double l = -cart_width / 2, r = cart_width / 2, t = cart_height / 2, b = -cart_height / 2;
    canvas.Polygon(
        {{l + cart_x, b + cart_y}, {l + cart_x, t + cart_y}, {r + cart_x, t + cart_y}, {r + cart_x, b + cart_y}},
        kBlack);
  }
  {
    const double l = -pole_width / 2, r = pole_width / 2, t = pole_len - pole_width / 2, b = -pole_width / 2;
    std::vector<Vec2> pole;
    for (Vec2 corner : {Vec2{l, b}, Vec2{l, t}, Vec2{r, t}, Vec2{r, b}}) {
      const Vec2 v = Rotate(corner, -theta);
      pole.push_back({v.x + cart_x, v.y + cart_y + axle_offset});
    }
    canvas.Polygon(pole, {202, 152, 101});
  }
  canvas.Disc(Trunc(cart_x), Trunc(cart_y + axle_offset), Trunc(pole_width / 2), {129, 132, 203});
  canvas.HLine(0, kCartPoleWidth, static_cast<int>(cart_y), kBlack);
  canvas.FlipVertical();
}

}  // namespace envpool::classic_control
