// LunarLander's render_mode="rgb_array" frame (DrawLunarLander, below) and its pieces: the engine
// flame particles and the drawing of a polygon body as gymnasium's render() does it.
//
// gymnasium creates a small dynamic body (a circle, category 0x0100, mask 0x001: it touches
// only the ground) each time an engine fires, but only when render_mode is set; render()
// lowers every particle's ttl by 0.15 and destroys those at the front of the list whose ttl
// fell below 0 (also reset destroys them all). The particles draw nothing from np_random and
// share no contact or joint with the lander, so its trajectory is the same with or without
// them (checked against gymnasium from the same seeds).
//
// Our pool does not tell an env whether it renders, so the particles live in a world of their
// own that holds only the ground, built at the first render of an episode: each step records
// the particles gymnasium would create (a few floats, no Box2D work), and render() first
// replays the recorded steps in that world (creating each particle before the step it was made
// in, then stepping it as gymnasium's world.Step does), then ages and draws them. A particle's
// motion involves only itself and the static ground, so it is the same in either world; an env
// that never renders pays only for the records.
#pragma once

#include <Box2D/Box2D.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "envs/box2d/fixtures.h"
#include "render/canvas.h"

namespace envpool::box2d {

class LanderParticles {
 public:
  // The records grow with the episode until a render (at most two a step; the vector keeps its
  // capacity across episodes, so after the first long one a step allocates nothing).
  LanderParticles() { spawns_.reserve(64); }

  // A new episode (gymnasium's reset destroys every particle with the old world).
  void Reset() {
    spawns_.clear();
    live_.clear();
    world_.reset();
    steps_ = 0;
    replayed_ = 0;
  }

  // gymnasium's _create_particle(density, x, y, ttl) and the particle's ApplyLinearImpulse
  // (impulse at (x, y)), before this step's world.Step; ttl is the engine's power.
  void Spawn(float density, double x, double y, double impulse_x, double impulse_y, double ttl) {
    spawns_.push_back({steps_, density, static_cast<float>(x), static_cast<float>(y), static_cast<float>(impulse_x),
                       static_cast<float>(impulse_y), ttl});
  }

  // The env's world.Step happened.
  void EndStep() { ++steps_; }

  // Replays the recorded steps in the particles' world (built on first use from the terrain's
  // corners, as gymnasium's moon: the (0, 0)-(W, 0) edge with Box2D's default fixture, then the
  // terrain edges with friction 0.1).
  void CatchUp(const double* chunk_x, const double* smooth_y, int chunks, double width, double gravity) {
    if (!world_) {
      world_ = std::make_unique<b2World>(b2Vec2(0.0f, static_cast<float>(gravity)));
      b2BodyDef def;
      b2Body* moon = world_->CreateBody(&def);
      b2EdgeShape edge;
      edge.Set(b2Vec2(0.0f, 0.0f), b2Vec2(static_cast<float>(width), 0.0f));
      AddFixture(moon, edge, {});
      for (int i = 0; i + 1 < chunks; ++i) {
        edge.Set(b2Vec2(static_cast<float>(chunk_x[i]), static_cast<float>(smooth_y[i])),
                 b2Vec2(static_cast<float>(chunk_x[i + 1]), static_cast<float>(smooth_y[i + 1])));
        AddFixture(moon, edge, {.density = 0.0f, .friction = 0.1f});
      }
    }
    std::size_t next = 0;
    for (; replayed_ < steps_; ++replayed_) {
      for (; next < spawns_.size() && spawns_[next].step == replayed_; ++next) {
        const Spawn_& s = spawns_[next];
        b2BodyDef def;
        def.type = b2_dynamicBody;
        def.position.Set(s.x, s.y);
        def.angle = 0.0f;
        b2Body* body = world_->CreateBody(&def);
        b2CircleShape circle;
        circle.m_radius = static_cast<float>(2 / 30.0);
        circle.m_p.Set(0.0f, 0.0f);
        AddFixture(body, circle,
                   {.density = s.density, .friction = 0.1f, .restitution = 0.3f, .category = 0x0100, .mask = 0x001});
        body->ApplyLinearImpulse(b2Vec2(s.impulse_x, s.impulse_y), b2Vec2(s.x, s.y), true);
        live_.push_back({body, s.ttl});
      }
      world_->Step(static_cast<float>(1.0 / 50), 6 * 30, 2 * 30);
    }
    spawns_.clear();
  }

  // render()'s `ttl -= 0.15` for every particle, then _clean_particles(False): destroy from
  // the front while the first one's ttl is below 0.
  void Age() {
    for (Particle& p : live_) p.ttl -= 0.15;
    std::size_t dead = 0;
    while (dead < live_.size() && live_[dead].ttl < 0) world_->DestroyBody(live_[dead++].body);
    live_.erase(live_.begin(), live_.begin() + static_cast<std::ptrdiff_t>(dead));
  }

  // Each particle as pygame.draw.circle(radius 2) in its colour (color1 and color2 are the
  // same), then `after()` (gymnasium draws the flags after every fixture).
  template <typename After>
  void Draw(render::Canvas& canvas, double scale, After after) const {
    for (const Particle& p : live_) {
      const render::Color c{Channel(p, 0.15, 1.0), Channel(p, 0.0, 0.5), Channel(p, 0.0, 0.5)};
      const b2Transform& xf = p.body->GetTransform();
      const auto* circle = static_cast<const b2CircleShape*>(p.body->GetFixtureList()->GetShape());
      const b2Vec2 center = static_cast<float>(scale) * b2Mul(xf, circle->m_p);
      const int cx = render::Trunc(static_cast<double>(center.x));
      const int cy = render::Trunc(static_cast<double>(center.y));
      // pygame-ce's filled circle of radius 2 (its float radius 2/30 * 30 truncates to 2): a
      // 4 x 4 block without its corners, cx - 2 .. cx + 1 by cy - 2 .. cy + 1.
      canvas.HLine(cx - 1, cx, cy - 2, c);
      canvas.HLine(cx - 2, cx + 1, cy - 1, c);
      canvas.HLine(cx - 2, cx + 1, cy, c);
      canvas.HLine(cx - 1, cx, cy + 1, c);
      after();
    }
  }

 private:
  struct Spawn_ {
    int64_t step;
    float density, x, y, impulse_x, impulse_y;
    double ttl;
  };
  struct Particle {
    b2Body* body;
    double ttl;
  };

  // int(max(0.2, 0.15 + ttl) * 255) (red) or int(max(0.2, 0.5 * ttl) * 255) (green, blue).
  static uint8_t Channel(const Particle& p, double offset, double factor) {
    const double v = factor == 1.0 ? offset + p.ttl : factor * p.ttl;
    return static_cast<uint8_t>(static_cast<int>(std::max(0.2, v) * 255));
  }

  std::vector<Spawn_> spawns_;  // recorded since the last render (or the reset)
  std::vector<Particle> live_;  // gymnasium's self.particles, oldest first
  std::unique_ptr<b2World> world_;
  int64_t steps_ = 0;     // the env's world steps this episode
  int64_t replayed_ = 0;  // those replayed in world_
};

// pygame.draw.polygon(surface, colour, points) (width 0) on the truncated corners, which fills
// by its own scanline rule, not gfxdraw.filled_polygon's (Canvas::FilledPolygon): on each row
// y from the top corner to the bottom one, every non-horizontal edge with y in [y_low, y_high)
// (or ending on the bottom row) crosses at x_low + (y - y_low) * (x_high - x_low) / (y_high -
// y_low), divided in float32 and rounded down for the 1st, 3rd, ... crossing found (in edge
// order) and up for the others; the sorted crossings pair into spans, ends included. Then
// horizontal edges strictly between the top and bottom rows are drawn whole; a polygon one row
// high is the span of its corners.
inline void PygamePolygon(render::Canvas& canvas, const std::vector<render::Pixel>& pts, render::Color c) {
  const std::size_t n = pts.size();
  if (n == 0) return;
  int miny = pts[0].y, maxy = pts[0].y, minx = pts[0].x, maxx = pts[0].x;
  for (const render::Pixel& p : pts) {
    miny = std::min(miny, p.y);
    maxy = std::max(maxy, p.y);
    minx = std::min(minx, p.x);
    maxx = std::max(maxx, p.x);
  }
  if (miny == maxy) return canvas.HLine(minx, maxx, miny, c);
  std::vector<int> xs;
  xs.reserve(n);
  for (int y = std::max(miny, 0); y <= std::min(maxy, canvas.height() - 1); ++y) {
    xs.clear();
    for (std::size_t i = 0; i < n; ++i) {
      render::Pixel lo = pts[i == 0 ? n - 1 : i - 1], hi = pts[i];
      if (lo.y == hi.y) continue;
      if (lo.y > hi.y) std::swap(lo, hi);
      if ((y >= lo.y && y < hi.y) || (y == maxy && hi.y == maxy)) {
        const float t = static_cast<float>(int64_t{y - lo.y} * (hi.x - lo.x)) / static_cast<float>(hi.y - lo.y);
        xs.push_back(static_cast<int>(xs.size() % 2 == 0 ? std::floor(t) : std::ceil(t)) + lo.x);
      }
    }
    std::sort(xs.begin(), xs.end());
    for (std::size_t i = 0; i + 1 < xs.size(); i += 2) canvas.HLine(xs[i], xs[i + 1], y, c);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const render::Pixel& prev = pts[i == 0 ? n - 1 : i - 1];
    if (miny < pts[i].y && pts[i].y < maxy && prev.y == pts[i].y) canvas.HLine(pts[i].x, prev.x, pts[i].y, c);
  }
}

// One of gymnasium's drawlist bodies: each polygon fixture filled (pygame.draw.polygon) and
// outlined (gfxdraw.aapolygon) in color1, then pygame.draw.aalines(closed) in color2 through
// the float corners (Box2D's float32 transform of the vertices times SCALE, as pybox2d's
// `trans * v * SCALE`).
inline void DrawPolygonBody(render::Canvas& canvas, const b2Body* body, render::Color color1, render::Color color2,
                            double scale) {
  using namespace render;
  const b2Transform& xf = body->GetTransform();
  for (const b2Fixture* f = body->GetFixtureList(); f != nullptr; f = f->GetNext()) {
    const auto* poly = static_cast<const b2PolygonShape*>(f->GetShape());
    Vec2 corners[b2_maxPolygonVertices];
    std::vector<Pixel> pts;
    for (int i = 0; i < poly->m_count; ++i) {
      const b2Vec2 v = static_cast<float>(scale) * b2Mul(xf, poly->m_vertices[i]);
      corners[i] = {static_cast<double>(v.x), static_cast<double>(v.y)};
      pts.push_back(Trunc(corners[i]));
    }
    PygamePolygon(canvas, pts, color1);
    canvas.AAPolygon(pts, color1);
    for (int i = 0; i < poly->m_count; ++i) canvas.AALineF(corners[i], corners[(i + 1) % poly->m_count], color2);
  }
}

// gymnasium's render(): white, the sky (above the terrain) black, the engine particles, the
// lander and its legs, and the two flags, drawn again after every body's fixture as
// gymnasium's loop does (their anti-aliased edges blend once more each time).
// `lander` is a LunarLander (a template so that this header needs only the class's friend
// declaration, not its definition); its members are read as they are.
template <typename Lander>
void DrawLunarLander(const Lander& lander, uint8_t* rgb) {
  constexpr int kViewportW = Lander::kViewportW, kViewportH = Lander::kViewportH, kChunkCount = Lander::kChunkCount;
  constexpr double kScale = Lander::kScale;
  using namespace render;
  Canvas canvas(rgb, kViewportW, kViewportH);
  canvas.Fill(kWhite);
  lander.particles_.CatchUp(lander.chunk_x_.data(), lander.smooth_y_.data(), kChunkCount, kViewportW / kScale,
                            lander.gravity_);
  lander.particles_.Age();
  const double sky = kViewportH / kScale;
  std::vector<Pixel> pts;
  for (std::size_t i = 0; i + 1 < lander.chunk_x_.size(); ++i) {
    pts.clear();
    for (const Vec2 v :
         {Vec2{lander.chunk_x_[i], lander.smooth_y_[i]}, Vec2{lander.chunk_x_[i + 1], lander.smooth_y_[i + 1]},
          Vec2{lander.chunk_x_[i + 1], sky}, Vec2{lander.chunk_x_[i], sky}}) {
      pts.push_back(Trunc(Vec2{v.x * kScale, v.y * kScale}));
    }
    PygamePolygon(canvas, pts, kBlack);
    canvas.AAPolygon(pts, kBlack);
  }
  const double flag_x[2] = {lander.chunk_x_[kChunkCount / 2 - 1] * kScale,
                            lander.chunk_x_[kChunkCount / 2 + 1] * kScale};
  const double flagy1 = lander.helipad_y_ * kScale, flagy2 = flagy1 + 50;
  auto flags = [&] {
    for (const double x : flag_x) {
      const Pixel a = Trunc(Vec2{x, flagy1}), b = Trunc(Vec2{x, flagy2});
      canvas.Line(a.x, a.y, b.x, b.y, kWhite);
      const std::vector<Pixel> flag = {Trunc(Vec2{x, flagy2}), Trunc(Vec2{x, flagy2 - 10}),
                                       Trunc(Vec2{x + 25, flagy2 - 5})};
      PygamePolygon(canvas, flag, {204, 204, 0});
      canvas.AAPolygon(flag, {204, 204, 0});
    }
  };
  lander.particles_.Draw(canvas, kScale, flags);
  for (const b2Body* body : {lander.lander_, lander.legs_[0], lander.legs_[1]}) {
    DrawPolygonBody(canvas, body, {128, 102, 230}, {77, 77, 128}, kScale);
    flags();
  }
  canvas.FlipVertical();
}

}  // namespace envpool::box2d
