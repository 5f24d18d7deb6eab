// BipedalWalker-v3 (and hardcore=True, BipedalWalkerHardcore-v3): gymnasium.envs.box2d.
// bipedal_walker.BipedalWalker (gymnasium 1.4) on the same Box2D 2.3, bit for bit. The rules of
// lunar_lander.h hold here too (float64 arithmetic in Python's order, cast to float32 where it
// enters Box2D); in addition:
//   * gymnasium makes one b2World per env, in its constructor, and at each reset destroys the
//     previous episode's bodies (the terrain in reverse order of creation, the hull, the four
//     leg parts) before creating the new ones. Box2D reuses the freed broad-phase proxies, whose
//     ids order the new contacts, so the world here lives as long as the env and the bodies are
//     destroyed and created in that same order: the world's history is gymnasium's.
//   * the action enters as float32 and NumPy keeps float32 in `80 * np.clip(np.abs(a), 0, 1)`
//     (the motor torque) and in `0.00035 * 80 * np.clip(...)` (the energy cost), and
//     subtracting a float32 cost makes the reward itself float32: all computed in float here.
//   * the lidar: gymnasium's world.RayCast walks Box2D's broad-phase tree, calls each fixture
//     whose fattened box meets the ray and keeps the nearest ground hit; the nearest hit does
//     not depend on the order of the calls, and only the terrain is ground, so CastLidar calls
//     the same fixture RayCast on the terrain pieces near the ray (a superset of those the tree
//     would reach that can be hit), skipping the tree walk and the hull's and legs' tests:
//     5% fewer instructions per step (callgrind: the lidar went from 8.3% of them to 3.2%).
//   * draws: the terrain's (uniform velocity noise past the start pad; with hardcore the
//     obstacles' kinds and sizes), the clouds' 110 uniforms (drawn though not drawn on screen
//     here), then the hull's initial push.
#pragma once

#include <Box2D/Box2D.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "core/env.h"
#include "envs/box2d/contacts.h"
#include "envs/box2d/fixtures.h"
#include "envs/box2d/render/bipedal_walker.h"
#include "envs/box2d/step_result.h"

namespace envpool::box2d {

// gymnasium's LidarCallback: the nearest fixture of category 1 (the ground) along the ray.
class LidarRay : public b2RayCastCallback {
 public:
  float fraction = 1.0f;
  render::Vec2 p1{}, p2{};  // the ray as gymnasium draws it: p2 becomes the hit point
  float32 ReportFixture(b2Fixture* fixture, const b2Vec2& point, const b2Vec2& /*normal*/,
                        float32 hit_fraction) override {
    if ((fixture->GetFilterData().categoryBits & 1) == 0) return -1;
    fraction = hit_fraction;
    p2 = {point.x, point.y};
    return hit_fraction;
  }
};

class BipedalWalker : public Env {
 public:
  static Config DefaultConfig() { return {{"hardcore", false}}; }

  static EnvSpec Spec(const Config& /*config*/) {
    const double pi = M_PI;
    const double high[14] = {pi, 5.0, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0, pi, 5.0, pi, 5.0, 5.0};
    const double low[14] = {-pi, -5.0, -5.0, -5.0, -pi, -5.0, -pi, -5.0, -0.0, -pi, -5.0, -pi, -5.0, -0.0};
    std::vector<double> lo, hi;
    for (int i = 0; i < 14; ++i) {
      lo.push_back(static_cast<float>(low[i]));
      hi.push_back(static_cast<float>(high[i]));
    }
    for (int i = 0; i < 10; ++i) {
      lo.push_back(-1.0);
      hi.push_back(1.0);
    }
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {24}, lo, hi)},
                 {ArraySpec::Box("action", DType::kFloat32, {4}, {-1.0}, {1.0})},
                 {}};
    spec.render_height = kViewportH;
    spec.render_width = kViewportW;
    spec.render_fps = static_cast<int>(kFps);  // BipedalWalker.metadata: FPS
    return spec;
  }

  explicit BipedalWalker(const Config& config) : hardcore_(config.Get<bool>("hardcore")), world_(b2Vec2(0.0f, -10.0f)) {
    terrain_.reserve(kTerrainLength + 64);
    obstacle_x_.reserve(64);
  }

  void Reset(Rng& rng, Output& out) override {
    Destroy();
    contacts_ = GameContacts{};
    world_.SetContactListener(&contacts_);
    prev_shaping_valid_ = false;
    GenerateTerrain(rng);
    // _generate_clouds: 10 clouds, each x = uniform(0, 200) * TERRAIN_STEP and five corners
    // around it, each corner's (x, y) noise drawn as one uniform pair.
    for (Cloud& cloud : clouds_) {
      const double x = rng.Uniform(0, kTerrainLength) * kTerrainStep;
      const double y = kViewportH / kScale * 3 / 4;
      for (int a = 0; a < 5; ++a) {
        const double px = x + 15 * kTerrainStep * std::sin(3.14 * 2 * a / 5) + rng.Uniform(0, 5 * kTerrainStep);
        const double py = y + 5 * kTerrainStep * std::cos(3.14 * 2 * a / 5) + rng.Uniform(0, 5 * kTerrainStep);
        cloud.poly[a] = {px, py};
      }
      cloud.x1 = cloud.x2 = cloud.poly[0].x;
      for (const render::Vec2& p : cloud.poly) {
        cloud.x1 = std::min(cloud.x1, p.x);
        cloud.x2 = std::max(cloud.x2, p.x);
      }
    }
    lidar_render_ = 0;
    scroll_ = 0.0;

    const double init_x = kTerrainStep * kTerrainStartpad / 2;
    const double init_y = kTerrainHeight + 2 * kLegH;
    {
      b2BodyDef def;
      def.type = b2_dynamicBody;
      def.position.Set(static_cast<float>(init_x), static_cast<float>(init_y));
      hull_ = world_.CreateBody(&def);
      static constexpr int kPoly[5][2] = {{-30, 9}, {6, 9}, {34, 1}, {34, -8}, {-30, -8}};
      AddFixture(hull_, PixelPolygon(kPoly, kScale),
                 {.density = 5.0f, .friction = 0.1f, .category = 0x0020, .mask = 0x001});
    }
    const double push = rng.Uniform(-kInitialRandom, kInitialRandom);
    hull_->ApplyForceToCenter(b2Vec2(static_cast<float>(push), 0.0f), true);

    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : 1;
      b2Body* leg = CreateLegPart(init_x, init_y - kLegH / 2 - kLegDown, i * 0.05, kLegW / 2);
      joints_[2 * k] = CreateJoint(hull_, leg, kLegDown, kLegH / 2, i, -0.8, 1.1);
      b2Body* lower = CreateLegPart(init_x, init_y - kLegH * 3 / 2 - kLegDown, i * 0.05, 0.8 * kLegW / 2);
      joints_[2 * k + 1] = CreateJoint(leg, lower, -kLegH / 2, kLegH / 2, 1, -1.6, -0.1);
      legs_[2 * k] = leg;
      legs_[2 * k + 1] = lower;
    }
    contacts_.body = hull_;
    contacts_.feet = {legs_[1], legs_[3]};

    // gymnasium's reset returns the observation of step(np.array([0, 0, 0, 0])); its reward
    // and termination are dropped (the row's reward and flags are the pool's: with same-step
    // autoreset they still hold the ending step's).
    const float zero[4] = {0, 0, 0, 0};
    Advance(zero, out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const StepResult result = Advance(action.Get<float>(), out);
    out.reward() = result.reward;
    out.terminated() = result.terminated;
  }

  // gymnasium's render() (render/bipedal_walker.h).
  void Render(uint8_t* rgb) const override { DrawBipedalWalker(*this, rgb); }

 private:
  static constexpr double kFps = 50;
  static constexpr double kScale = 30.0;
  static constexpr int kMotorsTorque = 80;
  static constexpr int kSpeedHip = 4;
  static constexpr int kSpeedKnee = 6;
  static constexpr double kLidarRange = 160 / kScale;
  static constexpr int kInitialRandom = 5;
  static constexpr double kLegDown = -8 / kScale;
  static constexpr double kLegW = 8 / kScale;
  static constexpr double kLegH = 34 / kScale;
  static constexpr int kViewportW = 600;
  static constexpr int kViewportH = 400;
  static constexpr double kTerrainStep = 14 / kScale;
  static constexpr int kTerrainLength = 200;
  static constexpr double kTerrainHeight = kViewportH / kScale / 4;
  static constexpr int kTerrainGrass = 10;
  static constexpr int kTerrainStartpad = 20;
  static constexpr float kFriction = 2.5f;

  // gymnasium's _destroy(): the world stays; the listener is detached first, so destroying
  // bodies in contact calls no EndContact.
  void Destroy() {
    if (terrain_.empty()) return;
    world_.SetContactListener(nullptr);
    for (auto it = terrain_.rbegin(); it != terrain_.rend(); ++it) world_.DestroyBody(*it);
    terrain_.clear();
    obstacle_x_.clear();
    world_.DestroyBody(hull_);
    hull_ = nullptr;
    for (b2Body*& leg : legs_) {
      world_.DestroyBody(leg);
      leg = nullptr;
    }
  }

  // A static body at the origin with one fixture of gymnasium's fd_polygon (friction 2.5).
  void AddTerrainPolygon(const double (&poly)[4][2]) {
    b2Vec2 vertices[4];
    for (int i = 0; i < 4; ++i) vertices[i].Set(static_cast<float>(poly[i][0]), static_cast<float>(poly[i][1]));
    b2PolygonShape shape;
    shape.Set(vertices, 4);
    b2BodyDef def;
    b2Body* body = world_.CreateBody(&def);
    AddFixture(body, shape, {.friction = kFriction});
    terrain_.push_back(body);
    obstacle_x_.push_back({std::min({poly[0][0], poly[1][0], poly[2][0], poly[3][0]}),
                           std::max({poly[0][0], poly[1][0], poly[2][0], poly[3][0]})});
  }

  void GenerateTerrain(Rng& rng) {
    enum { kGrass = 0, kStump = 1, kStairs = 2, kPit = 3, kStates = 4 };
    int64_t state = kGrass;
    double velocity = 0.0;
    double y = kTerrainHeight;
    int64_t counter = kTerrainStartpad;
    bool oneshot = false;
    int64_t stair_steps = 0, stair_width = 0, stair_height = 0;
    double original_y = 0;
    for (int i = 0; i < kTerrainLength; ++i) {
      const double x = i * kTerrainStep;
      terrain_x_[i] = x;
      if (state == kGrass && !oneshot) {
        const double d = kTerrainHeight - y;
        const double sign = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);  // np.sign
        velocity = 0.8 * velocity + 0.01 * sign;
        if (i > kTerrainStartpad) velocity += rng.Uniform(-1, 1) / kScale;
        y += velocity;
      } else if (state == kPit && oneshot) {
        counter = 3 + static_cast<int64_t>(rng.Below(2));  // integers(3, 5)
        const double poly[4][2] = {
            {x, y}, {x + kTerrainStep, y}, {x + kTerrainStep, y - 4 * kTerrainStep}, {x, y - 4 * kTerrainStep}};
        AddTerrainPolygon(poly);
        double moved[4][2];
        for (int p = 0; p < 4; ++p) {
          moved[p][0] = poly[p][0] + kTerrainStep * counter;
          moved[p][1] = poly[p][1];
        }
        AddTerrainPolygon(moved);
        counter += 2;
        original_y = y;
      } else if (state == kPit && !oneshot) {
        y = original_y;
        if (counter > 1) y -= 4 * kTerrainStep;
      } else if (state == kStump && oneshot) {
        counter = 1 + static_cast<int64_t>(rng.Below(2));  // integers(1, 3)
        const double size = counter * kTerrainStep;
        const double poly[4][2] = {{x, y}, {x + size, y}, {x + size, y + size}, {x, y + size}};
        AddTerrainPolygon(poly);
      } else if (state == kStairs && oneshot) {
        stair_height = rng.Uniform() > 0.5 ? +1 : -1;
        stair_width = 4 + static_cast<int64_t>(rng.Below(1));  // integers(4, 5): draws nothing
        stair_steps = 3 + static_cast<int64_t>(rng.Below(2));  // integers(3, 5)
        original_y = y;
        for (int64_t s = 0; s < stair_steps; ++s) {
          const double poly[4][2] = {
              {x + (s * stair_width) * kTerrainStep, y + (s * stair_height) * kTerrainStep},
              {x + ((1 + s) * stair_width) * kTerrainStep, y + (s * stair_height) * kTerrainStep},
              {x + ((1 + s) * stair_width) * kTerrainStep, y + (-1 + s * stair_height) * kTerrainStep},
              {x + (s * stair_width) * kTerrainStep, y + (-1 + s * stair_height) * kTerrainStep},
          };
          AddTerrainPolygon(poly);
        }
        counter = stair_steps * stair_width;
      } else if (state == kStairs && !oneshot) {
        const int64_t s = stair_steps * stair_width - counter - stair_height;
        const double n = static_cast<double>(s) / static_cast<double>(stair_width);
        y = original_y + (n * static_cast<double>(stair_height)) * kTerrainStep;
      }
      oneshot = false;
      terrain_y_[i] = y;
      counter -= 1;
      if (counter == 0) {
        counter = kTerrainGrass / 2 + static_cast<int64_t>(rng.Below(kTerrainGrass - kTerrainGrass / 2));
        if (state == kGrass && hardcore_) {
          state = 1 + static_cast<int64_t>(rng.Below(kStates - 1));  // integers(1, _STATES_), _STATES_ = 4
        } else {
          state = kGrass;
        }
        oneshot = true;
      }
    }
    for (int i = 0; i < kTerrainLength - 1; ++i) {
      b2EdgeShape edge;
      edge.Set(b2Vec2(static_cast<float>(terrain_x_[i]), static_cast<float>(terrain_y_[i])),
               b2Vec2(static_cast<float>(terrain_x_[i + 1]), static_cast<float>(terrain_y_[i + 1])));
      b2BodyDef def;
      b2Body* body = world_.CreateBody(&def);
      AddFixture(body, edge, {.friction = kFriction, .category = 0x0001});
      terrain_.push_back(body);
    }
  }

  // A leg part: gymnasium's LEG_FD / LOWER_FD (a box of half-width `half_w`, density 1).
  b2Body* CreateLegPart(double x, double y, double angle, double half_w) {
    b2BodyDef def;
    def.type = b2_dynamicBody;
    def.position.Set(static_cast<float>(x), static_cast<float>(y));
    def.angle = static_cast<float>(angle);
    b2Body* body = world_.CreateBody(&def);
    b2PolygonShape box;
    box.SetAsBox(static_cast<float>(half_w), static_cast<float>(kLegH / 2));
    AddFixture(body, box, {.density = 1.0f, .category = 0x0020, .mask = 0x001});
    return body;
  }

  b2RevoluteJoint* CreateJoint(b2Body* a, b2Body* b, double anchor_a_y, double anchor_b_y, int motor_speed,
                               double lower, double upper) {
    b2RevoluteJointDef def;
    def.bodyA = a;
    def.bodyB = b;
    def.localAnchorA.Set(0.0f, static_cast<float>(anchor_a_y));
    def.localAnchorB.Set(0.0f, static_cast<float>(anchor_b_y));
    def.enableMotor = true;
    def.enableLimit = true;
    def.maxMotorTorque = static_cast<float>(kMotorsTorque);
    def.motorSpeed = static_cast<float>(motor_speed);
    def.lowerAngle = static_cast<float>(lower);
    def.upperAngle = static_cast<float>(upper);
    // pybox2d's revoluteJointDef(bodyA=..., bodyB=...) sets this from the bodies' angles.
    def.referenceAngle = static_cast<float>(static_cast<double>(b->GetAngle()) - a->GetAngle());
    return static_cast<b2RevoluteJoint*>(world_.CreateJoint(&def));
  }

  StepResult Advance(const float* action, Output& out) {
    static constexpr int kSpeeds[4] = {kSpeedHip, kSpeedKnee, kSpeedHip, kSpeedKnee};
    float cost[4];
    for (int j = 0; j < 4; ++j) {
      const float a = action[j];
      const float sign = a > 0 ? 1.0f : (a < 0 ? -1.0f : 0.0f);  // np.sign
      const float magnitude = std::min(std::max(std::abs(a), 0.0f), 1.0f);
      joints_[j]->SetMotorSpeed(static_cast<float>(kSpeeds[j]) * sign);
      joints_[j]->SetMaxMotorTorque(static_cast<float>(kMotorsTorque) * magnitude);
      cost[j] = static_cast<float>(0.00035 * kMotorsTorque) * magnitude;
    }

    world_.Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);

    const b2Vec2 pos = hull_->GetPosition();
    const b2Vec2 vel = hull_->GetLinearVelocity();
    scroll_ = pos.x - kViewportW / kScale / 5;
    has_stepped_ = true;
    float* obs = out.Obs<float>();
    for (int i = 0; i < 10; ++i) {
      LidarRay& ray = lidar_[i];
      ray.fraction = 1.0f;
      const double p2x = pos.x + std::sin(1.5 * i / 10.0) * kLidarRange;
      const double p2y = pos.y - std::cos(1.5 * i / 10.0) * kLidarRange;
      ray.p1 = {pos.x, pos.y};
      ray.p2 = {p2x, p2y};
      CastLidar(ray, pos, b2Vec2(static_cast<float>(p2x), static_cast<float>(p2y)));
      obs[14 + i] = ray.fraction;
    }
    const double angle = hull_->GetAngle();
    const double state[14] = {
        angle,
        2.0 * hull_->GetAngularVelocity() / kFps,
        0.3 * vel.x * (kViewportW / kScale) / kFps,
        0.3 * vel.y * (kViewportH / kScale) / kFps,
        joints_[0]->GetJointAngle(),
        static_cast<double>(joints_[0]->GetJointSpeed()) / kSpeedHip,
        joints_[1]->GetJointAngle() + 1.0,
        static_cast<double>(joints_[1]->GetJointSpeed()) / kSpeedKnee,
        contacts_.ground_contact[0] ? 1.0 : 0.0,
        joints_[2]->GetJointAngle(),
        static_cast<double>(joints_[2]->GetJointSpeed()) / kSpeedHip,
        joints_[3]->GetJointAngle() + 1.0,
        static_cast<double>(joints_[3]->GetJointSpeed()) / kSpeedKnee,
        contacts_.ground_contact[1] ? 1.0 : 0.0,
    };
    for (int i = 0; i < 14; ++i) obs[i] = static_cast<float>(state[i]);

    double shaping = 130 * static_cast<double>(pos.x) / kScale;
    shaping -= 5.0 * std::abs(state[0]);
    // `reward -= <float32 cost>` turns gymnasium's Python float into a float32 (NEP 50), and
    // the remaining costs are subtracted in float32.
    float reward32 = 0.0f;
    if (prev_shaping_valid_) reward32 = static_cast<float>(shaping - prev_shaping_);
    prev_shaping_ = shaping;
    prev_shaping_valid_ = true;
    for (float c : cost) reward32 -= c;
    double reward = reward32;
    bool terminated = false;
    if (contacts_.game_over || pos.x < 0) {
      reward = -100;
      terminated = true;
    }
    if (pos.x > (kTerrainLength - kTerrainGrass) * kTerrainStep) terminated = true;
    return {reward, terminated};
  }

  // b2World::RayCast's result for `ray` (see the header): each terrain piece whose x range
  // comes within kRayMargin of the ray's gets the fixture RayCast that b2World's wrapper calls,
  // with the wrapper's hit point, and the tree's rule for the callback's value (0 stops, a
  // positive value clips the ray). The margin exceeds the tree's fattening (b2_aabbExtension),
  // so every piece the tree tests and the ray can hit is tested here, and it dwarfs float
  // rounding: the edges go in order of x, and a ray that points to +x and has hit at x = h
  // stops before the first edge that starts past h + kRayMargin (its points are all further
  // along the ray than the hit, so its RayCast would reject them).
  void CastLidar(LidarRay& ray, const b2Vec2& p1, const b2Vec2& p2) const {
    static constexpr double kRayMargin = 2 * b2_aabbExtension;
    b2RayCastInput input;
    input.p1 = p1;
    input.p2 = p2;
    input.maxFraction = 1.0f;
    const double lo = std::min(p1.x, p2.x) - kRayMargin, hi = std::max(p1.x, p2.x) + kRayMargin;
    auto test = [&](b2Body* body) {
      b2Fixture* fixture = body->GetFixtureList();  // each terrain body has one
      b2RayCastOutput output;
      if (!fixture->RayCast(&output, input, 0)) return true;
      const float fraction = output.fraction;
      const b2Vec2 point = (1.0f - fraction) * input.p1 + fraction * input.p2;
      const float value = ray.ReportFixture(fixture, point, output.normal, fraction);
      if (value == 0.0f) return false;
      if (value > 0.0f) input.maxFraction = value;
      return true;
    };
    const int obstacles = static_cast<int>(obstacle_x_.size());
    for (int k = 0; k < obstacles; ++k) {
      if (obstacle_x_[k][1] >= lo && obstacle_x_[k][0] <= hi && !test(terrain_[k])) return;
    }
    // edge i spans terrain_x_[i] = i * kTerrainStep to terrain_x_[i + 1]
    const int first = std::max(0, static_cast<int>(std::floor(lo / kTerrainStep)) - 1);
    const int last = std::min(kTerrainLength - 2, static_cast<int>(std::floor(hi / kTerrainStep)));
    const bool forward = p2.x > p1.x;
    for (int i = first; i <= last; ++i) {
      if (forward && ray.fraction < 1.0f &&
          terrain_x_[i] > p1.x + static_cast<double>(ray.fraction) * (p2.x - p1.x) + kRayMargin) {
        return;
      }
      if (!test(terrain_[obstacles + i])) return;
    }
  }

  using Cloud = WalkerCloud;
  template <typename Walker>
  friend void DrawBipedalWalker(const Walker& walker, uint8_t* rgb);

  bool hardcore_;
  b2World world_;
  GameContacts contacts_;
  std::vector<b2Body*> terrain_;                   // in creation order (gymnasium destroys them in reverse)
  std::vector<std::array<double, 2>> obstacle_x_;  // x range of terrain_[k], each obstacle k
  double terrain_x_[kTerrainLength] = {};
  double terrain_y_[kTerrainLength] = {};
  b2Body* hull_ = nullptr;
  std::array<b2Body*, 4> legs_{};
  std::array<b2RevoluteJoint*, 4> joints_{};
  std::array<LidarRay, 10> lidar_{};
  std::array<Cloud, kTerrainLength / 20> clouds_{};
  double scroll_ = 0.0;           // gymnasium's self.scroll: where the view starts
  bool has_stepped_ = false;      // the lidar rays have end points (after the first step)
  mutable int lidar_render_ = 0;  // gymnasium's self.lidar_render, advanced by each render()
  double prev_shaping_ = 0;
  bool prev_shaping_valid_ = false;
};

}  // namespace envpool::box2d
