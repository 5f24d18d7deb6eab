// CarRacing's state: the car (hull, wheels and their controls, skid marks) and the scene
// (colours, tiles, road polygons), and gymnasium's _render of them: a 1000 x 800 surface with
// the background, grass patches and road drawn by gfxdraw (aapolygon + filled_polygon), the
// car by draw.polygon, skid marks by draw.lines (full-size render only), flipped, the
// indicator bar drawn by draw.polygon, then smooth-scaled to the 96 x 96 observation or the
// 600 x 400 render (render/car_racing_draw.h has the pixel rules).
#pragma once

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "envs/box2d/render/car_racing_draw.h"
#include "envs/box2d/render/car_racing_font.h"
#include "render/canvas.h"

namespace envpool::box2d::car {

inline constexpr int kStateW = 96, kStateH = 96;
inline constexpr int kVideoW = 600, kVideoH = 400;
inline constexpr int kWindowW = 1000, kWindowH = 800;
inline constexpr double kScale = 6.0;
inline constexpr double kTrackRad = 900 / kScale;
inline constexpr double kPlayfield = 2000 / kScale;
inline constexpr double kFps = 50;
inline constexpr double kZoom = 2.7;
inline constexpr double kTrackDetailStep = 21 / kScale;
inline constexpr double kTrackTurnRate = 0.31;
inline constexpr double kTrackWidth = 40 / kScale;
inline constexpr double kBorder = 8 / kScale;
inline constexpr int kBorderMinCount = 4;
inline constexpr double kGrassDim = kPlayfield / 20.0;

inline constexpr double kSize = 0.02;
inline constexpr double kEnginePower = 100000000 * kSize * kSize;
inline constexpr double kWheelMomentOfInertia = 4000 * kSize * kSize;
inline constexpr double kFrictionLimit = 1000000 * kSize * kSize;
inline constexpr int kWheelR = 27;
inline constexpr int kWheelW = 14;
inline constexpr int kWheelPos[4][2] = {{-55, +80}, {+55, +80}, {-55, -82}, {+55, -82}};

struct HullPoly {
  int n;
  int v[8][2];
};
inline const std::array<HullPoly, 4>& HullPolys() {
  static const std::array<HullPoly, 4> polys = {{
      {4, {{-60, +130}, {+60, +130}, {+60, +110}, {-60, +110}}},
      {4, {{-15, +120}, {+15, +120}, {+20, +20}, {-20, 20}}},
      {8, {{+25, +20}, {+50, -10}, {+50, -40}, {+20, -90}, {-20, -90}, {-50, -40}, {-50, -10}, {-25, +20}}},
      {4, {{-50, -120}, {+50, -120}, {+50, -90}, {-50, -90}}},
  }};
  return polys;
}

// What a body's userData says: a tile's index or a wheel's index (-1 otherwise).
struct BodyTag {
  int tile;
  int wheel;
};

struct Tile {
  b2Body* body = nullptr;
  std::array<double, 3> color{};
  bool visited = false;
};

// One entry of gymnasium's road_poly: a tile's quad (drawn in its tile's current colour) or a
// red/white border quad.
struct RoadPoly {
  render::Vec2 corners[4];
  int tile = -1;
  render::Color color{};
};

struct Wheel {
  b2Body* body = nullptr;
  b2RevoluteJoint* joint = nullptr;
  double wheel_rad = 0;
  double gas = 0, brake = 0, steer = 0, phase = 0, omega = 0;
  int tiles = 0;  // how many tiles it touches
  // The skid trace: gymnasium's skid_start (an alias of the wheel's position, so only whether
  // it is set matters) and skid_particle (the mark being extended, which may have left the
  // 30-mark deque and still be extended).
  bool skid_start = false;
  bool has_particle = false;
  bool particle_grass = false;
  int particle_len = 0;
  uint64_t particle_serial = 0;
};

// Car.particles: deque(maxlen=30) of skid marks, each up to 30 points.
class Particles {
 public:
  static constexpr int kMax = 30;
  struct Mark {
    uint64_t serial;
    bool grass;
    int n;
    std::array<render::Vec2, kMax> pts;
  };

  void Reset() {
    count_ = 0;
    head_ = 0;
  }
  int size() const { return count_; }
  const Mark& at(int i) const { return marks_[(head_ + i) % kMax]; }

  // Car.step's skid trace for wheel w at its current position.
  void Skid(Wheel& w, bool skidding, bool grass) {
    if (!skidding) {
      w.skid_start = false;
      w.has_particle = false;
      return;
    }
    const b2Vec2 p = w.body->GetPosition();
    const render::Vec2 pos{p.x, p.y};
    if (w.has_particle && w.particle_grass == grass && w.particle_len < kMax) {
      ++w.particle_len;
      if (Mark* m = Find(w.particle_serial)) m->pts[m->n++] = pos;
    } else if (!w.skid_start) {
      w.skid_start = true;
    } else {
      // _create_particle(skid_start, position): both alias the wheel's position now.
      Mark& m = Push(grass);
      m.pts[0] = pos;
      m.pts[1] = pos;
      m.n = 2;
      w.has_particle = true;
      w.particle_grass = grass;
      w.particle_len = 2;
      w.particle_serial = m.serial;
      w.skid_start = false;
    }
  }

 private:
  Mark& Push(bool grass) {
    int slot;
    if (count_ < kMax) {
      slot = (head_ + count_) % kMax;
      ++count_;
    } else {
      slot = head_;
      head_ = (head_ + 1) % kMax;
    }
    Mark& m = marks_[slot];
    m.serial = ++serial_;
    m.grass = grass;
    m.n = 0;
    return m;
  }
  Mark* Find(uint64_t serial) {
    for (int i = 0; i < count_; ++i) {
      Mark& m = marks_[(head_ + i) % kMax];
      if (m.serial == serial) return &m;
    }
    return nullptr;
  }

  std::array<Mark, kMax> marks_{};
  int head_ = 0, count_ = 0;
  uint64_t serial_ = 0;
};

struct CarState {
  b2Body* hull = nullptr;
  std::array<Wheel, 4> wheels{};
  Particles particles;
};

class Scene {
 public:
  std::array<double, 3> road_color{}, bg_color{}, grass_color{};
  std::vector<Tile> tiles;
  std::vector<RoadPoly> polys;

  void Allocate() {
    surface_.assign(static_cast<std::size_t>(kWindowW) * kWindowH * 3, 0);
    tiles.reserve(512);
    polys.reserve(1024);
  }

  // gymnasium's _render(mode): `full` is rgb_array (skid marks drawn), else state_pixels.
  void Draw(const CarState& car, double t, double reward, bool full, uint8_t* out, int out_w, int out_h) {
    using render::Vec2;
    render::Canvas canvas(surface_.data(), kWindowW, kWindowH);
    std::memset(surface_.data(), 0, surface_.size());  // a new pygame.Surface is black
    const double angle = -static_cast<double>(car.hull->GetAngle());
    const double zoom = 0.1 * kScale * std::max(1 - t, 0.0) + kZoom * kScale * std::min(t, 1.0);
    const b2Vec2 pos = car.hull->GetPosition();
    const double scroll_x = -static_cast<double>(pos.x) * zoom;
    const double scroll_y = -static_cast<double>(pos.y) * zoom;
    const Vec2 trans0 = car_draw::RotateRad({scroll_x, scroll_y}, angle);
    const Vec2 trans{kWindowW / 2 + trans0.x, kWindowH / 4 + trans0.y};
    auto xform = [&](Vec2 p) {
      const Vec2 r = car_draw::RotateRad(p, angle);
      return Vec2{r.x * zoom + trans.x, r.y * zoom + trans.y};
    };
    const double max_shape_dim = std::max({kGrassDim, kTrackWidth, kTrackDetailStep}) * std::sqrt(2.0) * kZoom * kScale;
    auto colored = [&](const Vec2* poly, int n, render::Color c, bool clip) {
      Vec2 pts[4];
      bool visible = !clip;
      for (int i = 0; i < n; ++i) {
        pts[i] = xform(poly[i]);
        if (-max_shape_dim <= pts[i].x && pts[i].x <= kWindowW + max_shape_dim && -max_shape_dim <= pts[i].y &&
            pts[i].y <= kWindowH + max_shape_dim) {
          visible = true;
        }
      }
      if (visible) car_draw::GfxPolygon(canvas, surface_.data(), pts, n, c, xs_);
    };
    auto to_color = [](const std::array<double, 3>& c) {
      return render::Color{static_cast<uint8_t>(static_cast<int>(c[0])), static_cast<uint8_t>(static_cast<int>(c[1])),
                           static_cast<uint8_t>(static_cast<int>(c[2]))};
    };

    const double b = kPlayfield;
    const Vec2 field[4] = {{b, b}, {b, -b}, {-b, -b}, {-b, b}};
    colored(field, 4, to_color(bg_color), false);
    const render::Color grass = to_color(grass_color);
    for (int x = -20; x < 20; x += 2) {
      for (int y = -20; y < 20; y += 2) {
        const Vec2 poly[4] = {{kGrassDim * x + kGrassDim, kGrassDim * y + 0},
                              {kGrassDim * x + 0, kGrassDim * y + 0},
                              {kGrassDim * x + 0, kGrassDim * y + kGrassDim},
                              {kGrassDim * x + kGrassDim, kGrassDim * y + kGrassDim}};
        colored(poly, 4, grass, true);
      }
    }
    for (const RoadPoly& p : polys) {
      colored(p.corners, 4, p.tile >= 0 ? to_color(tiles[p.tile].color) : p.color, true);
    }

    if (full) DrawParticles(canvas, car.particles, xform);
    for (int k = 0; k < 5; ++k) {
      const b2Body* body = k < 4 ? car.wheels[k].body : car.hull;
      const b2Transform& xf = body->GetTransform();
      const render::Color color = k < 4 ? render::kBlack : render::Color{204, 0, 0};
      for (const b2Fixture* f = body->GetFixtureList(); f != nullptr; f = f->GetNext()) {
        const auto* shape = static_cast<const b2PolygonShape*>(f->GetShape());
        Vec2 path[b2_maxPolygonVertices];
        for (int i = 0; i < shape->m_count; ++i) {
          const b2Vec2 v = b2Mul(xf, shape->m_vertices[i]);
          path[i] = xform({v.x, v.y});
        }
        car_draw::DrawPolygon(canvas, path, shape->m_count, color, pixels_);
        if (k == 4) continue;
        const Wheel& w = car.wheels[k];
        const double a1 = w.phase, a2 = w.phase + 1.2;
        const double s1 = std::sin(a1), s2 = std::sin(a2);
        double c1 = std::cos(a1), c2 = std::cos(a2);
        if (s1 > 0 && s2 > 0) continue;
        if (s1 > 0) c1 = Sign(c1);
        if (s2 > 0) c2 = Sign(c2);
        const double white[4][2] = {{-kWheelW * kSize, +kWheelR * c1 * kSize},
                                    {+kWheelW * kSize, +kWheelR * c1 * kSize},
                                    {+kWheelW * kSize, +kWheelR * c2 * kSize},
                                    {-kWheelW * kSize, +kWheelR * c2 * kSize}};
        Vec2 wp[4];
        for (int i = 0; i < 4; ++i) {
          const b2Vec2 v = b2Mul(xf, b2Vec2(static_cast<float>(white[i][0]), static_cast<float>(white[i][1])));
          wp[i] = xform({v.x, v.y});
        }
        car_draw::DrawPolygon(canvas, wp, 4, render::Color{77, 77, 77}, pixels_);
      }
    }
    canvas.FlipVertical();
    DrawIndicators(canvas, car);
    DrawReward(reward);
    car_draw::SmoothScale(surface_.data(), kWindowW, kWindowH, out, out_w, out_h, temp_, acc_);
  }

 private:
  static double Sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

  template <typename Xform>
  void DrawParticles(render::Canvas& canvas, const Particles& particles, Xform xform) {
    for (int i = 0; i < particles.size(); ++i) {
      const Particles::Mark& m = particles.at(i);
      const render::Color c = m.grass ? render::Color{102, 102, 0} : render::kBlack;
      for (int j = 1; j < m.n; ++j) {
        const render::Pixel a = render::Trunc(xform(m.pts[j - 1]));
        const render::Pixel b = render::Trunc(xform(m.pts[j]));
        LineWidth2(canvas, a.x, a.y, b.x, b.y, c);
      }
    }
  }

  // pygame's draw_line_width for width 2 (spans x..x+1 or y..y+1 along Bresenham's line).
  static void LineWidth2(render::Canvas& canvas, int x1, int y1, int x2, int y2, render::Color c) {
    const bool xinc = std::abs(x1 - x2) <= std::abs(y1 - y2);
    if (x1 == x2 && y1 == y2) return canvas.HLine(x1, x1 + 1, y1, c);
    const int dx = std::abs(x2 - x1), dy = std::abs(y2 - y1);
    const int sx = x2 > x1 ? 1 : -1, sy = y2 > y1 ? 1 : -1;
    int err = (dx > dy ? dx : -dy) / 2;
    for (;;) {
      if (xinc) {
        if (y1 == y2 + sy) break;
        canvas.HLine(x1, x1 + 1, y1, c);
      } else {
        if (x1 == x2 + sx) break;
        canvas.VLine(x1, y1, y1 + 1, c);
      }
      const int e2 = err;
      if (e2 > -dx) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dy) {
        err += dx;
        y1 += sy;
      }
    }
  }

  void DrawIndicators(render::Canvas& canvas, const CarState& car) {
    using render::Vec2;
    const double W = kWindowW, H = kWindowH;
    const double s = W / 40.0, h = H / 40.0;
    auto poly = [&](const Vec2(&p)[4], render::Color c) { car_draw::DrawPolygon(canvas, p, 4, c, pixels_); };
    {
      const Vec2 bar[4] = {{W, H}, {W, H - 5 * h}, {0, H - 5 * h}, {0, H}};
      poly(bar, render::kBlack);
    }
    auto vertical = [&](double place, double val, double value, render::Color c) {
      if (!(std::abs(value) > 1e-4)) return;
      const Vec2 p[4] = {{place * s, H - (h + h * val)},
                         {(place + 1) * s, H - (h + h * val)},
                         {(place + 1) * s, H - h},
                         {(place + 0) * s, H - h}};
      poly(p, c);
    };
    auto horizontal = [&](double place, double val, double value, render::Color c) {
      if (!(std::abs(value) > 1e-4)) return;
      const Vec2 p[4] = {{(place + 0) * s, H - 4 * h},
                         {(place + val) * s, H - 4 * h},
                         {(place + val) * s, H - 2 * h},
                         {(place + 0) * s, H - 2 * h}};
      poly(p, c);
    };
    const b2Vec2 v = car.hull->GetLinearVelocity();
    const double vx = v.x, vy = v.y;
    const double true_speed = std::sqrt(vx * vx + vy * vy);
    vertical(5, 0.02 * true_speed, true_speed, render::kWhite);
    const render::Color abs_colors[4] = {{0, 0, 255}, {0, 0, 255}, {51, 0, 255}, {51, 0, 255}};
    for (int k = 0; k < 4; ++k) {
      vertical(7 + k, 0.01 * car.wheels[k].omega, car.wheels[k].omega, abs_colors[k]);
    }
    const double joint_angle = car.wheels[0].joint->GetJointAngle();
    horizontal(20, -10.0 * joint_angle, joint_angle, {0, 255, 0});
    const double spin = car.hull->GetAngularVelocity();
    horizontal(30, -0.8 * spin, spin, {255, 0, 0});
  }

  // font.render(f"{reward:04.0f}", True, white, black) blitted centred at (60, 750): the
  // layout of tests/envs/box2d/_car_racing_font.py (glyphs at floor(x / 64), x advancing by
  // the integer advance and the 26.6 kerning; overlaps keep the larger grey level).
  void DrawReward(double reward) {
    char text[32];
    const int len = std::snprintf(text, sizeof(text), "%04.0f", reward);
    int glyph[32];
    int n = 0;
    for (int i = 0; i < len && i < 31; ++i) {
      for (int g = 0; g < car_font::kCount; ++g) {
        if (car_font::kChars[g] == text[i]) glyph[n++] = g;
      }
    }
    if (n == 0) return;
    int pos[32];
    int x26 = 0;
    for (int i = 0; i < n; ++i) {
      if (i > 0) x26 += 64 * car_font::kAdvance[glyph[i - 1]] + car_font::kKerning[glyph[i - 1]][glyph[i]];
      pos[i] = x26 >> 6;
    }
    const int width = (x26 + 64 * car_font::kAdvance[glyph[n - 1]]) >> 6;
    const int left = 60 - width / 2;
    const int top = 750 - car_font::kHeight / 2;
    auto at = [&](int x, int y) -> uint8_t* {
      if (x < 0 || y < 0 || x >= kWindowW || y >= kWindowH) return nullptr;
      return surface_.data() + 3 * (static_cast<std::size_t>(y) * kWindowW + x);
    };
    for (int y = 0; y < car_font::kHeight; ++y) {
      for (int x = 0; x < width; ++x) {
        if (uint8_t* p = at(left + x, top + y)) p[0] = p[1] = p[2] = 0;
      }
    }
    auto hex = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (int i = 0; i < n; ++i) {
      const int advance = car_font::kAdvance[glyph[i]];
      const char* bits = car_font::kGlyphs[glyph[i]];
      for (int y = 0; y < car_font::kHeight; ++y) {
        for (int x = 0; x < advance; ++x) {
          const char* h = bits + 2 * (y * advance + x);
          const auto v = static_cast<uint8_t>(16 * hex(h[0]) + hex(h[1]));
          uint8_t* p = pos[i] + x < width ? at(left + pos[i] + x, top + y) : nullptr;
          if (p != nullptr && v > p[0]) p[0] = p[1] = p[2] = v;
        }
      }
    }
  }

  std::vector<uint8_t> surface_;
  std::vector<int32_t> xs_;
  std::vector<render::Pixel> pixels_;
  std::vector<uint16_t> temp_, acc_;
};

}  // namespace envpool::box2d::car
