// mpe2's frames (render_mode="rgb_array"; mpe2 1.1.1, _mpe_utils/simple_env.py, SimpleEnv.draw):
// a 700 x 700 white surface; each entity, agents then landmarks, a filled circle of its colour x
// 200 and a one-pixel black ring (pygame.draw.circle, reproduced by canvas.h's PygameCircle),
// placed and zoomed by the entities' positions:
//
//   cam_range = max |coordinate| over every entity's position
//   x = floor(( p.x / cam_range) * 700 / 2) * 0.9 + 350
//   y = floor((-p.y / cam_range) * 700 / 2) * 0.9 + 350         (y down, no flip at the end)
//   radius = size * 350 * (0.9 * original_cam_range / cam_range)  (dynamic_rescaling; else size * 350)
//
// in float64 and mpe2's operation order, truncated to int by pygame. original_cam_range is
// cam_range at the last reset (mpe2 computes it in reset()), so a frame zooms relative to the
// episode's start. mpe2 writes a text line for each agent that speaks; no scenario here has one
// (all agents are silent), so no text is drawn.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "render/canvas.h"

namespace envpool::mpe::render {

using envpool::render::Canvas;
using envpool::render::Color;

inline constexpr int kFrameSide = 700;

// Entities are world.h's (pos, size, color), in mpe2's world.entities order; taken as a template
// so that world.h, which draws through this file, need not be included here.

// np.max(np.abs(np.array(all_poses))): NaN when any coordinate is NaN, as numpy's max.
template <class Entities>
double CamRange(const Entities& entities) {
  double most = 0.0;
  for (const auto& e : entities) {
    for (double v : e.pos) {
      if (v != v) return v;
      most = std::max(most, std::abs(v));
    }
  }
  return most;
}

// The frame of `entities` into `rgb` (700 x 700 x 3). Throws std::invalid_argument where mpe2's
// own assertion fails (an entity not strictly inside the frame: positions that are not finite
// or all at the origin).
template <class Entities>
void DrawEntities(const Entities& entities, double original_cam_range, bool dynamic_rescaling, uint8_t* rgb) {
  Canvas canvas(rgb, kFrameSide, kFrameSide);
  canvas.Fill(envpool::render::kWhite);
  const double cam_range = CamRange(entities);
  const double scaling_factor = 0.9 * original_cam_range / cam_range;
  const double half = kFrameSide / 2;  // self.width // 2
  for (const auto& e : entities) {
    const double x = std::floor((e.pos[0] / cam_range) * kFrameSide / 2) * 0.9 + half;
    const double y = std::floor((-e.pos[1] / cam_range) * kFrameSide / 2) * 0.9 + half;
    if (!(0 < x && x < kFrameSide && 0 < y && y < kFrameSide)) {
      throw std::invalid_argument("cannot draw the MPE world: an entity's frame coordinates (" + std::to_string(x) +
                                  ", " + std::to_string(y) +
                                  ") are out of bounds (positions must be finite and not all zero), as mpe2 asserts");
    }
    const double radius = dynamic_rescaling ? e.size * 350 * scaling_factor : e.size * 350;
    const int cx = envpool::render::Trunc(x), cy = envpool::render::Trunc(y);
    const int r = envpool::render::PygameInt(radius);
    const auto channel = [](double c) {
      return static_cast<uint8_t>(std::clamp(envpool::render::Trunc(c * 200), 0, 255));
    };
    canvas.PygameCircle(cx, cy, r, Color{channel(e.color[0]), channel(e.color[1]), channel(e.color[2])});
    canvas.PygameCircleOutline(cx, cy, r, envpool::render::kBlack);
  }
}

}  // namespace envpool::mpe::render
