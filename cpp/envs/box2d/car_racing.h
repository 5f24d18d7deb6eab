// CarRacing-v3: gymnasium.envs.box2d.car_racing.CarRacing and car_dynamics.Car (gymnasium 1.4) on
// the same Box2D 2.3, bit for bit. The rules of lunar_lander.h and bipedal_walker.h hold (Python's
// float64 arithmetic in its order, float32 where values enter Box2D; one b2World per env whose
// bodies are destroyed and created in gymnasium's order at each reset). In addition:
//   * draws from the env's Generator: with domain_randomize the colours (road uniform(0, 210)
//     x3, background x3, integers(3) for the grass channel), then for each track attempt 12 x
//     (uniform noise, uniform radius); a track that does not close is drawn again.
//   * the tiles are sensors; a contact of any body with a tile sets the tile's colour to the
//     road colour (gymnasium's FrictionDetector), a wheel's begin/end adds/removes the tile from
//     the wheel's set, a first visit adds 1000 / len(track) to the reward and may complete the lap.
//   * the observation is gymnasium's state_pixels frame (render/car_racing.h), drawn every step.
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/box2d/render/car_racing.h"

namespace envpool::box2d {

class CarRacing : public Env {
 public:
  static Config DefaultConfig() {
    return {{"continuous", true}, {"domain_randomize", false}, {"lap_complete_percent", 0.95}};
  }

  static EnvSpec Spec(const Config& config) {
    ArraySpec action = config.Get<bool>("continuous")
                           ? ArraySpec::Box("action", DType::kFloat32, {3}, {-1.0, 0.0, 0.0}, {1.0, 1.0, 1.0})
                           : ArraySpec::Discrete("action", 5);
    EnvSpec spec{{ArraySpec::Box("obs", DType::kUInt8, {car::kStateH, car::kStateW, 3}, {0}, {255})},
                 {action},
                 {ArraySpec::Box("lap_finished", DType::kBool, {}, {0}, {1})}};
    spec.render_height = car::kVideoH;
    spec.render_width = car::kVideoW;
    spec.render_fps = static_cast<int>(car::kFps);  // CarRacing.metadata: FPS
    return spec;
  }

  explicit CarRacing(const Config& config)
      : continuous_(config.Get<bool>("continuous")),
        domain_randomize_(config.Get<bool>("domain_randomize")),
        lap_complete_percent_(config.Get<double>("lap_complete_percent")),
        world_(std::make_unique<b2World>(b2Vec2(0.0f, 0.0f))) {
    world_->SetContactListener(&contacts_);
    contacts_.env = this;
    if (!domain_randomize_) {
      scene_.road_color = {102, 102, 102};
      scene_.bg_color = {102, 204, 102};
      scene_.grass_color = {102, 230, 102};
    }
    scene_.Allocate();
  }

  ~CarRacing() override { Destroy(); }

  void Reset(Rng& rng, Output& out) override {
    Destroy();
    reward_ = 0.0;
    prev_reward_ = 0.0;
    tile_visited_count_ = 0;
    t_ = 0.0;
    new_lap_ = false;
    if (domain_randomize_) {
      for (double& c : scene_.road_color) c = rng.Uniform(0, 210);
      for (double& c : scene_.bg_color) c = rng.Uniform(0, 210);
      scene_.grass_color = scene_.bg_color;
      scene_.grass_color[rng.Below(3)] += 20;
    }
    while (!CreateTrack(rng)) {
    }
    CreateCar(track_[0].beta, track_[0].x, track_[0].y);
    // gymnasium's reset returns step(None)'s frame: the car steps with no control set.
    Advance();
    DrawState(out);
    out.Info<bool>(0)[0] = false;
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    if (continuous_) {
      const float* a = action.Get<float>();
      const double steer = a[0], gas = a[1], brake = a[2];
      SetSteer(-steer);
      SetGas(gas);
      SetBrake(brake);
    } else {
      const int64_t a = action.Get<int64_t>()[0];
      // -0.6 * (a == 1) + 0.6 * (a == 2), 0.2 * (a == 3), 0.8 * (a == 4) as NumPy computes them.
      SetSteer(-0.6 * (a == 1 ? 1.0 : 0.0) + 0.6 * (a == 2 ? 1.0 : 0.0));
      SetGas(0.2 * (a == 3 ? 1.0 : 0.0));
      SetBrake(0.8 * (a == 4 ? 1.0 : 0.0));
    }
    Advance();
    DrawState(out);
    reward_ -= 0.1;
    double step_reward = reward_ - prev_reward_;
    prev_reward_ = reward_;
    bool terminated = false, lap_finished = false;
    if (tile_visited_count_ == static_cast<int>(track_.size()) || new_lap_) {
      terminated = true;
      lap_finished = true;
    }
    const b2Vec2 pos = car_.hull->GetPosition();
    if (std::abs(static_cast<double>(pos.x)) > car::kPlayfield ||
        std::abs(static_cast<double>(pos.y)) > car::kPlayfield) {
      terminated = true;
      lap_finished = false;
      step_reward = -100;
    }
    out.reward() = step_reward;
    out.terminated() = terminated;
    out.Info<bool>(0)[0] = lap_finished;
  }

  void Render(uint8_t* rgb) const override { scene_.Draw(car_, t_, reward_, true, rgb, car::kVideoW, car::kVideoH); }

 private:
  // gymnasium's FrictionDetector.
  class TileContacts : public b2ContactListener {
   public:
    CarRacing* env = nullptr;
    void BeginContact(b2Contact* contact) override { Touch(contact, true); }
    void EndContact(b2Contact* contact) override { Touch(contact, false); }

   private:
    void Touch(b2Contact* contact, bool begin) {
      if (env->destroying_) return;  // gymnasium's old bodies: nothing observable changes
      auto* a = static_cast<car::BodyTag*>(contact->GetFixtureA()->GetBody()->GetUserData());
      auto* b = static_cast<car::BodyTag*>(contact->GetFixtureB()->GetBody()->GetUserData());
      car::BodyTag* tile = nullptr;
      car::BodyTag* obj = nullptr;
      if (a != nullptr && a->tile >= 0) {
        tile = a;
        obj = b;
      }
      if (b != nullptr && b->tile >= 0) {
        tile = b;
        obj = a;
      }
      if (tile == nullptr) return;
      car::Tile& t = env->scene_.tiles[tile->tile];
      t.color = env->scene_.road_color;
      if (obj == nullptr || obj->wheel < 0) return;
      car::Wheel& w = env->car_.wheels[obj->wheel];
      if (begin) {
        ++w.tiles;
        if (!t.visited) {
          t.visited = true;
          env->reward_ += 1000.0 / static_cast<double>(env->track_.size());
          ++env->tile_visited_count_;
          if (tile->tile == 0 &&
              static_cast<double>(env->tile_visited_count_) / static_cast<double>(env->track_.size()) >
                  env->lap_complete_percent_) {
            env->new_lap_ = true;
          }
        }
      } else {
        --w.tiles;
      }
    }
  };

  struct TrackPoint {
    double alpha, beta, x, y;
  };

  // gymnasium's _destroy: the tiles in order, then the hull (its joints go with it), then the
  // wheels.
  void Destroy() {
    if (scene_.tiles.empty()) return;
    destroying_ = true;
    for (car::Tile& t : scene_.tiles) world_->DestroyBody(t.body);
    scene_.tiles.clear();
    world_->DestroyBody(car_.hull);
    for (car::Wheel& w : car_.wheels) world_->DestroyBody(w.body);
    destroying_ = false;
  }

  bool CreateTrack(Rng& rng) {
    using namespace car;
    constexpr int kCheckpoints = 12;
    std::array<std::array<double, 3>, kCheckpoints> checkpoints{};
    for (int c = 0; c < kCheckpoints; ++c) {
      const double noise = rng.Uniform(0, 2 * M_PI * 1 / kCheckpoints);
      double alpha = 2 * M_PI * c / kCheckpoints + noise;
      double rad = rng.Uniform(kTrackRad / 3, kTrackRad);
      if (c == 0) {
        alpha = 0;
        rad = 1.5 * kTrackRad;
      }
      if (c == kCheckpoints - 1) {
        alpha = 2 * M_PI * c / kCheckpoints;
        rad = 1.5 * kTrackRad;
      }
      checkpoints[c] = {alpha, rad * std::cos(alpha), rad * std::sin(alpha)};
    }
    const double start_alpha = 2 * M_PI * (-0.5) / kCheckpoints;

    double x = 1.5 * kTrackRad, y = 0, beta = 0;
    int64_t dest_i = 0;
    int laps = 0;
    std::vector<TrackPoint>& track = raw_track_;
    track.clear();
    int no_freeze = 2500;
    bool visited_other_side = false;
    for (;;) {
      double alpha = std::atan2(y, x);
      if (visited_other_side && alpha > 0) {
        ++laps;
        visited_other_side = false;
      }
      if (alpha < 0) {
        visited_other_side = true;
        alpha += 2 * M_PI;
      }
      double dest_x = 0, dest_y = 0;
      for (;;) {
        bool failed = true;
        for (;;) {
          const auto& cp = checkpoints[dest_i % kCheckpoints];
          dest_x = cp[1];
          dest_y = cp[2];
          if (alpha <= cp[0]) {
            failed = false;
            break;
          }
          ++dest_i;
          if (dest_i % kCheckpoints == 0) break;
        }
        if (!failed) break;
        alpha -= 2 * M_PI;
      }
      const double r1x = std::cos(beta), r1y = std::sin(beta);
      const double p1x = -r1y, p1y = r1x;
      const double dest_dx = dest_x - x, dest_dy = dest_y - y;
      double proj = r1x * dest_dx + r1y * dest_dy;
      while (beta - alpha > 1.5 * M_PI) beta -= 2 * M_PI;
      while (beta - alpha < -1.5 * M_PI) beta += 2 * M_PI;
      const double prev_beta = beta;
      proj *= kScale;
      if (proj > 0.3) beta -= std::min(kTrackTurnRate, std::abs(0.001 * proj));
      if (proj < -0.3) beta += std::min(kTrackTurnRate, std::abs(0.001 * proj));
      x += p1x * kTrackDetailStep;
      y += p1y * kTrackDetailStep;
      track.push_back({alpha, prev_beta * 0.5 + beta * 0.5, x, y});
      if (laps > 4) break;
      if (--no_freeze == 0) break;
    }

    int i1 = -1, i2 = -1;
    int i = static_cast<int>(track.size());
    for (;;) {
      --i;
      if (i == 0) return false;
      const bool pass_through_start = track[i].alpha > start_alpha && track[i - 1].alpha <= start_alpha;
      if (pass_through_start && i2 == -1) {
        i2 = i;
      } else if (pass_through_start && i1 == -1) {
        i1 = i;
        break;
      }
    }
    // track[i1 : i2 - 1]
    track_.assign(track.begin() + i1, track.begin() + std::max(i1, i2 - 1));
    const int n = static_cast<int>(track_.size());
    if (n == 0) return false;

    const double first_beta = track_[0].beta;
    const double first_perp_x = std::cos(first_beta), first_perp_y = std::sin(first_beta);
    const double gx = first_perp_x * (track_[0].x - track_[n - 1].x);
    const double gy = first_perp_y * (track_[0].y - track_[n - 1].y);
    if (std::sqrt(gx * gx + gy * gy) > kTrackDetailStep) return false;

    auto at = [&](int k) -> const TrackPoint& { return track_[((k % n) + n) % n]; };
    std::vector<char>& border = border_;
    border.assign(n, 0);
    for (int k = 0; k < n; ++k) {
      bool good = true;
      double oneside = 0;
      for (int neg = 0; neg < kBorderMinCount; ++neg) {
        const double beta1 = at(k - neg - 0).beta, beta2 = at(k - neg - 1).beta;
        good &= std::abs(beta1 - beta2) > kTrackTurnRate * 0.2;
        oneside += Sign(beta1 - beta2);
      }
      good &= std::abs(oneside) == kBorderMinCount;
      border[k] = good ? 1 : 0;
    }
    for (int k = 0; k < n; ++k) {
      for (int neg = 0; neg < kBorderMinCount; ++neg) {
        const int j = (((k - neg) % n) + n) % n;
        border[j] = static_cast<char>(border[j] | border[k]);
      }
    }

    scene_.tiles.clear();
    scene_.polys.clear();
    tags_.resize(n);
    for (int k = 0; k < n; ++k) {
      const TrackPoint& p1 = track_[k];
      const TrackPoint& p2 = at(k - 1);
      const render::Vec2 road1_l{p1.x - kTrackWidth * std::cos(p1.beta), p1.y - kTrackWidth * std::sin(p1.beta)};
      const render::Vec2 road1_r{p1.x + kTrackWidth * std::cos(p1.beta), p1.y + kTrackWidth * std::sin(p1.beta)};
      const render::Vec2 road2_l{p2.x - kTrackWidth * std::cos(p2.beta), p2.y - kTrackWidth * std::sin(p2.beta)};
      const render::Vec2 road2_r{p2.x + kTrackWidth * std::cos(p2.beta), p2.y + kTrackWidth * std::sin(p2.beta)};
      const render::Vec2 corners[4] = {road1_l, road1_r, road2_r, road2_l};
      b2Vec2 vertices[4];
      for (int v = 0; v < 4; ++v) {
        vertices[v].Set(static_cast<float>(corners[v].x), static_cast<float>(corners[v].y));
      }
      b2PolygonShape shape;
      shape.Set(vertices, 4);
      b2BodyDef def;  // static
      b2Body* body = world_->CreateBody(&def);
      b2FixtureDef fd;
      fd.shape = &shape;
      body->CreateFixture(&fd)->SetSensor(true);
      tags_[k] = {k, -1};
      body->SetUserData(&tags_[k]);
      Tile tile;
      tile.body = body;
      const double shade = 0.01 * (k % 3) * 255;
      for (int ch = 0; ch < 3; ++ch) tile.color[ch] = scene_.road_color[ch] + shade;
      scene_.tiles.push_back(tile);
      RoadPoly poly;
      for (int v = 0; v < 4; ++v) poly.corners[v] = corners[v];
      poly.tile = k;
      scene_.polys.push_back(poly);
      if (border[k]) {
        const double side = Sign(p2.beta - p1.beta);
        RoadPoly b;
        b.corners[0] = {p1.x + side * kTrackWidth * std::cos(p1.beta), p1.y + side * kTrackWidth * std::sin(p1.beta)};
        b.corners[1] = {p1.x + side * (kTrackWidth + kBorder) * std::cos(p1.beta),
                        p1.y + side * (kTrackWidth + kBorder) * std::sin(p1.beta)};
        b.corners[2] = {p2.x + side * (kTrackWidth + kBorder) * std::cos(p2.beta),
                        p2.y + side * (kTrackWidth + kBorder) * std::sin(p2.beta)};
        b.corners[3] = {p2.x + side * kTrackWidth * std::cos(p2.beta), p2.y + side * kTrackWidth * std::sin(p2.beta)};
        b.tile = -1;
        b.color = k % 2 == 0 ? render::Color{255, 255, 255} : render::Color{255, 0, 0};
        scene_.polys.push_back(b);
      }
    }
    return true;
  }

  static double Sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

  // car_dynamics.Car(world, init_angle, init_x, init_y).
  void CreateCar(double angle, double x, double y) {
    using namespace car;
    b2BodyDef def;
    def.type = b2_dynamicBody;
    def.position.Set(static_cast<float>(x), static_cast<float>(y));
    def.angle = static_cast<float>(angle);
    car_.hull = world_->CreateBody(&def);
    for (const auto& poly : HullPolys()) {
      b2Vec2 v[8];
      for (int i = 0; i < poly.n; ++i) {
        v[i].Set(static_cast<float>(poly.v[i][0] * kSize), static_cast<float>(poly.v[i][1] * kSize));
      }
      b2PolygonShape shape;
      shape.Set(v, poly.n);
      b2FixtureDef fd;
      fd.shape = &shape;
      fd.density = 1.0f;
      car_.hull->CreateFixture(&fd);
    }
    car_.hull->SetUserData(nullptr);
    car_.particles.Reset();
    for (int k = 0; k < 4; ++k) {
      const double wx = kWheelPos[k][0], wy = kWheelPos[k][1];
      const double front_k = 1.0;
      b2BodyDef wd;
      wd.type = b2_dynamicBody;
      wd.position.Set(static_cast<float>(x + wx * kSize), static_cast<float>(y + wy * kSize));
      wd.angle = static_cast<float>(angle);
      b2Body* w = world_->CreateBody(&wd);
      static constexpr int kWheelPoly[4][2] = {
          {-kWheelW, +kWheelR}, {+kWheelW, +kWheelR}, {+kWheelW, -kWheelR}, {-kWheelW, -kWheelR}};
      b2Vec2 v[4];
      for (int i = 0; i < 4; ++i) {
        v[i].Set(static_cast<float>(kWheelPoly[i][0] * front_k * kSize),
                 static_cast<float>(kWheelPoly[i][1] * front_k * kSize));
      }
      b2PolygonShape shape;
      shape.Set(v, 4);
      b2FixtureDef fd;
      fd.shape = &shape;
      fd.density = 0.1f;
      fd.filter.categoryBits = 0x0020;
      fd.filter.maskBits = 0x001;
      fd.restitution = 0.0f;
      w->CreateFixture(&fd);
      Wheel& wheel = car_.wheels[k];
      wheel = Wheel{};
      wheel.body = w;
      wheel.wheel_rad = front_k * kWheelR * kSize;
      b2RevoluteJointDef rjd;
      rjd.bodyA = car_.hull;
      rjd.bodyB = w;
      rjd.localAnchorA.Set(static_cast<float>(wx * kSize), static_cast<float>(wy * kSize));
      rjd.localAnchorB.Set(0.0f, 0.0f);
      rjd.referenceAngle = static_cast<float>(static_cast<double>(w->GetAngle()) - car_.hull->GetAngle());
      rjd.enableMotor = true;
      rjd.enableLimit = true;
      rjd.maxMotorTorque = static_cast<float>(180 * 900 * kSize * kSize);
      rjd.motorSpeed = 0.0f;
      rjd.lowerAngle = -0.4f;
      rjd.upperAngle = +0.4f;
      wheel.joint = static_cast<b2RevoluteJoint*>(world_->CreateJoint(&rjd));
      wheel_tags_[k] = {-1, k};
      w->SetUserData(&wheel_tags_[k]);
    }
  }

  void SetGas(double gas) {
    gas = std::min(std::max(gas, 0.0), 1.0);  // np.clip
    for (int k = 2; k < 4; ++k) {
      car::Wheel& w = car_.wheels[k];
      double diff = gas - w.gas;
      if (diff > 0.1) diff = 0.1;
      w.gas += diff;
    }
  }
  void SetBrake(double b) {
    for (car::Wheel& w : car_.wheels) w.brake = b;
  }
  void SetSteer(double s) {
    car_.wheels[0].steer = s;
    car_.wheels[1].steer = s;
  }

  // Car.step(1 / FPS), world.Step, t += 1 / FPS.
  void Advance() {
    using namespace car;
    const double dt = 1.0 / kFps;
    for (Wheel& w : car_.wheels) {
      const double angle = w.joint->GetJointAngle();
      const double dir = Sign(w.steer - angle);
      const double val = std::abs(w.steer - angle);
      w.joint->SetMotorSpeed(static_cast<float>(dir * std::min(50.0 * val, 3.0)));

      const bool grass = w.tiles == 0;
      const double friction_limit = grass ? kFrictionLimit * 0.6 : std::max(kFrictionLimit * 0.6, kFrictionLimit * 1.0);

      const b2Vec2 forw = w.body->GetWorldVector(b2Vec2(0.0f, 1.0f));
      const b2Vec2 side = w.body->GetWorldVector(b2Vec2(1.0f, 0.0f));
      const b2Vec2 v = w.body->GetLinearVelocity();
      const double vf = static_cast<double>(forw.x) * v.x + static_cast<double>(forw.y) * v.y;
      const double vs = static_cast<double>(side.x) * v.x + static_cast<double>(side.y) * v.y;

      w.omega += dt * kEnginePower * w.gas / kWheelMomentOfInertia / (std::abs(w.omega) + 5.0);
      if (w.brake >= 0.9) {
        w.omega = 0;
      } else if (w.brake > 0) {
        constexpr double kBrakeForce = 15;
        const double bdir = -Sign(w.omega);
        double bval = kBrakeForce * w.brake;
        if (std::abs(bval) > std::abs(w.omega)) bval = std::abs(w.omega);
        w.omega += bdir * bval;
      }
      w.phase += w.omega * dt;

      const double vr = w.omega * w.wheel_rad;
      double f_force = -vf + vr;
      double p_force = -vs;
      f_force *= 205000 * kSize * kSize;
      p_force *= 205000 * kSize * kSize;
      double force = std::sqrt(f_force * f_force + p_force * p_force);

      car_.particles.Skid(w, std::abs(force) > 2.0 * friction_limit, grass);

      if (std::abs(force) > friction_limit) {
        f_force /= force;
        p_force /= force;
        force = friction_limit;
        f_force *= force;
        p_force *= force;
      }
      w.omega -= dt * f_force * w.wheel_rad / kWheelMomentOfInertia;
      w.body->ApplyForceToCenter(b2Vec2(static_cast<float>(p_force * side.x + f_force * forw.x),
                                        static_cast<float>(p_force * side.y + f_force * forw.y)),
                                 true);
    }
    world_->Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);
    t_ += 1.0 / kFps;
  }

  void DrawState(Output& out) { scene_.Draw(car_, t_, reward_, false, out.Obs<uint8_t>(), car::kStateW, car::kStateH); }

  bool continuous_;
  bool domain_randomize_;
  double lap_complete_percent_;
  TileContacts contacts_;
  std::unique_ptr<b2World> world_;
  bool destroying_ = false;
  std::vector<TrackPoint> raw_track_;
  std::vector<TrackPoint> track_;
  std::vector<char> border_;
  std::vector<car::BodyTag> tags_;
  std::array<car::BodyTag, 4> wheel_tags_{};
  car::CarState car_;
  mutable car::Scene scene_;
  double reward_ = 0, prev_reward_ = 0, t_ = 0;
  int tile_visited_count_ = 0;
  bool new_lap_ = false;
};

}  // namespace envpool::box2d
