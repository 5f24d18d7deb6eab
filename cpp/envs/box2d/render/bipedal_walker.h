// The frame of gymnasium's BipedalWalker.render() (render_mode="rgb_array"), pixel for pixel.
#pragma once

#include <Box2D/Box2D.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "render/canvas.h"

namespace envpool::box2d {

// A cloud of the background (gymnasium's cloud_poly entries: five corners and their x range).
struct WalkerCloud {
  render::Vec2 poly[5];
  double x1 = 0, x2 = 0;
};

// A leg part's colour: gymnasium's (r, g, b) - 25 i, i = -1 for the first leg, +1 for the second.
inline render::Color WalkerShade(int r, int g, int b, int i) {
  return {static_cast<uint8_t>(r - i * 25), static_cast<uint8_t>(g - i * 25), static_cast<uint8_t>(b - i * 25)};
}

// One body of the drawlist: its polygons filled in `fill` with an outline in `outline`, or
// its edge as an anti-aliased line in `fill`. The corners are Box2D's float32 transform of
// the vertices times SCALE, as pybox2d computes `trans * v * SCALE`.
inline void DrawWalkerBody(render::Canvas& canvas, const b2Body* body, render::Color fill, render::Color outline,
                           int shift, double world_scale) {
  using namespace render;
  const b2Transform& xf = body->GetTransform();
  const float scale = static_cast<float>(world_scale);
  for (const b2Fixture* f = body->GetFixtureList(); f != nullptr; f = f->GetNext()) {
    if (f->GetType() == b2Shape::e_edge) {
      const auto* edge = static_cast<const b2EdgeShape*>(f->GetShape());
      const b2Vec2 a = scale * b2Mul(xf, edge->m_vertex1), b = scale * b2Mul(xf, edge->m_vertex2);
      canvas.AALineF({static_cast<double>(a.x) - shift, a.y}, {static_cast<double>(b.x) - shift, b.y}, fill);
      continue;
    }
    const auto* poly = static_cast<const b2PolygonShape*>(f->GetShape());
    std::vector<Pixel> pts;
    for (int i = 0; i < poly->m_count; ++i) {
      const b2Vec2 v = scale * b2Mul(xf, poly->m_vertices[i]);
      pts.push_back({Trunc(static_cast<double>(v.x)) - shift, Trunc(static_cast<double>(v.y))});
    }
    canvas.FilledPolygon(pts, fill);
    canvas.AAPolygon(pts, fill);
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const Pixel& p = pts[i];
      const Pixel& q = pts[(i + 1) % pts.size()];
      canvas.Line(p.x, p.y, q.x, q.y, outline);
    }
    canvas.AAPolygon(pts, outline);
  }
}

// gymnasium's render(): the scene on a surface 600 + max(0, scroll) * 30 pixels wide, of
// which the last 600 columns are returned; here drawn straight into those columns (pixel x
// of the wide surface is x - shift here; coordinates are truncated in the wide surface's
// frame first, as pygame does). pygame.draw.polygon fills -> FilledPolygon, gfxdraw.aapolygon
// -> AAPolygon, draw.aaline -> AALineF, draw.line / lines -> Line. Like gymnasium's, each
// call advances the lidar line drawn (one of the ten rays, out and back, every 100 calls).
// `walker` is a BipedalWalker (a template so that this header needs only the class's friend
// declaration, not its definition); its members are read as they are.
template <typename Walker>
void DrawBipedalWalker(const Walker& walker, uint8_t* rgb) {
  constexpr int kViewportW = Walker::kViewportW, kViewportH = Walker::kViewportH;
  constexpr int kTerrainLength = Walker::kTerrainLength;
  constexpr double kScale = Walker::kScale, kTerrainHeight = Walker::kTerrainHeight,
                   kTerrainStep = Walker::kTerrainStep;
  using namespace render;
  Canvas canvas(rgb, kViewportW, kViewportH);
  canvas.Fill(kBlack);
  const int shift = Trunc(kViewportW + std::max(0.0, walker.scroll_) * kScale) - kViewportW;
  std::vector<Pixel> pts;
  auto pixel = [&](double x, double y) { return Pixel{Trunc(x) - shift, Trunc(y)}; };
  auto polygon = [&](std::initializer_list<Vec2> corners, Color c) {
    pts.clear();
    for (const Vec2& v : corners) pts.push_back(pixel(v.x, v.y));
    canvas.FilledPolygon(pts, c);
  };
  const double scroll = walker.scroll_;
  polygon({{scroll * kScale, 0},
           {scroll * kScale + kViewportW, 0},
           {scroll * kScale + kViewportW, kViewportH},
           {scroll * kScale, kViewportH}},
          {215, 215, 255});
  for (const WalkerCloud& cloud : walker.clouds_) {
    if (cloud.x2 < scroll / 2 || cloud.x1 > scroll / 2 + kViewportW / kScale) continue;
    pts.clear();
    for (const Vec2& p : cloud.poly) pts.push_back(pixel(p.x * kScale + scroll * kScale / 2, p.y * kScale));
    canvas.FilledPolygon(pts, kWhite);
    canvas.AAPolygon(pts, kWhite);
  }
  for (int i = 0; i < kTerrainLength - 1; ++i) {
    if (walker.terrain_x_[i + 1] < scroll || walker.terrain_x_[i] > scroll + kViewportW / kScale) continue;
    pts.clear();
    for (const Vec2& v :
         {Vec2{walker.terrain_x_[i], walker.terrain_y_[i]}, Vec2{walker.terrain_x_[i + 1], walker.terrain_y_[i + 1]},
          Vec2{walker.terrain_x_[i + 1], 0}, Vec2{walker.terrain_x_[i], 0}}) {
      pts.push_back(pixel(v.x * kScale, v.y * kScale));
    }
    canvas.FilledPolygon(pts, {102, 153, 76});
    canvas.AAPolygon(pts, {102, 153, 76});
  }
  walker.lidar_render_ = (walker.lidar_render_ + 1) % 100;
  const int ray = walker.lidar_render_;
  if (ray < 20 && walker.has_stepped_) {
    const auto& r = walker.lidar_[ray < 10 ? ray : 19 - ray];  // a LidarRay
    const Pixel a = pixel(r.p1.x * kScale, r.p1.y * kScale), b = pixel(r.p2.x * kScale, r.p2.y * kScale);
    canvas.Line(a.x, a.y, b.x, b.y, {255, 0, 0});
  }
  // gymnasium's drawlist: the terrain bodies (edges in reverse, then the obstacles in
  // reverse), the leg parts, the hull.
  const int edges = kTerrainLength - 1;
  const int obstacles = static_cast<int>(walker.terrain_.size()) - edges;
  for (int k = static_cast<int>(walker.terrain_.size()) - 1; k >= 0; --k) {
    if (k >= obstacles) {
      const int i = k - obstacles;  // the edge's index in gymnasium's terrain_poly order
      DrawWalkerBody(canvas, walker.terrain_[k], {76, static_cast<uint8_t>(i % 2 == 0 ? 255 : 204), 76}, {}, shift,
                     kScale);
    } else {
      DrawWalkerBody(canvas, walker.terrain_[k], kWhite, {153, 153, 153}, shift, kScale);
    }
  }
  for (int k = 0; k < 4; ++k) {
    const int i = k < 2 ? -1 : 1;
    DrawWalkerBody(canvas, walker.legs_[k], WalkerShade(153, 76, 127, i), WalkerShade(102, 51, 76, i), shift, kScale);
  }
  DrawWalkerBody(canvas, walker.hull_, {127, 51, 229}, {76, 76, 127}, shift, kScale);
  const double flagy1 = kTerrainHeight * kScale, flagy2 = flagy1 + 50, x = kTerrainStep * 3 * kScale;
  canvas.AALineF({x - shift, flagy1}, {x - shift, flagy2}, kBlack);
  const Pixel f[3] = {pixel(x, flagy2), pixel(x, flagy2 - 10), pixel(x + 25, flagy2 - 5)};
  canvas.FilledPolygon({f[0], f[1], f[2]}, {230, 51, 0});
  for (int k = 0; k < 3; ++k) canvas.Line(f[k].x, f[k].y, f[(k + 1) % 3].x, f[(k + 1) % 3].y, kBlack);
  canvas.FlipVertical();
}

}  // namespace envpool::box2d
