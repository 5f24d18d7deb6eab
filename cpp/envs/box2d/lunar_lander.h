// LunarLander-v3: gymnasium.envs.box2d.lunar_lander.LunarLander (gymnasium 1.4), on the same
// Box2D 2.3 as gymnasium's `box2d` package (cmake/box2d.cmake), bit for bit.
//
// How the arithmetic stays gymnasium's: the Python code computes in float64 (Python floats)
// and hands values to Box2D, which stores float32; pybox2d converts each argument with a plain
// C cast. So every value is computed here in double in the same order as the Python expression
// (no fused multiply-add: -ffp-contract=off) and cast to float where it enters Box2D; what
// comes back from Box2D (float32) is widened to double as Python does. The draws from the
// env's numpy Generator are gymnasium's, in its order: reset draws the 12 terrain heights, the
// initial force (x, then y), with wind the two wind indices (integers(-9999, 9999)), and then,
// as gymnasium's reset ends with step(no-op), the two dispersions of that step; every step
// draws two dispersions. Particles are drawn only when rendering and never touch the lander
// (see render/lunar_lander.h).
#pragma once

#include <Box2D/Box2D.h>

#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/env.h"
#include "envs/box2d/contacts.h"
#include "envs/box2d/fixtures.h"
#include "envs/box2d/render/lunar_lander.h"
#include "envs/box2d/step_result.h"

namespace envpool::box2d {

class LunarLander : public Env {
 public:
  static Config DefaultConfig() {
    return {{"continuous", false},
            {"gravity", -10.0},
            {"enable_wind", false},
            {"wind_power", 15.0},
            {"turbulence_power", 1.5}};
  }

  static EnvSpec Spec(const Config& config) {
    // gymnasium builds the bounds in float64 and casts them to float32.
    const double high[8] = {2.5, 2.5, 10.0, 10.0, 2 * M_PI, 10.0, 1.0, 1.0};
    const double low[8] = {-2.5, -2.5, -10.0, -10.0, -2 * M_PI, -10.0, -0.0, -0.0};
    std::vector<double> lo, hi;
    for (int i = 0; i < 8; ++i) {
      lo.push_back(static_cast<float>(low[i]));
      hi.push_back(static_cast<float>(high[i]));
    }
    ArraySpec action = config.Get<bool>("continuous") ? ArraySpec::Box("action", DType::kFloat32, {2}, {-1.0}, {1.0})
                                                      : ArraySpec::Discrete("action", 4);
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {8}, lo, hi)}, {action}, {}};
    spec.render_height = kViewportH;
    spec.render_width = kViewportW;
    spec.render_fps = static_cast<int>(kFps);  // LunarLander.metadata: FPS
    return spec;
  }

  explicit LunarLander(const Config& config)
      : continuous_(config.Get<bool>("continuous")),
        gravity_(config.Get<double>("gravity")),
        enable_wind_(config.Get<bool>("enable_wind")),
        wind_power_(config.Get<double>("wind_power")),
        turbulence_power_(config.Get<double>("turbulence_power")) {
    // gymnasium asserts this range (and only warns about the wind's).
    if (!(-12.0 < gravity_ && gravity_ < 0.0)) {
      throw std::invalid_argument("gravity must be between -12 and 0 (exclusive), got " + std::to_string(gravity_));
    }
  }

  void Reset(Rng& rng, Output& out) override {
    // A new world every episode, as gymnasium's reset makes one (its workaround for
    // Gymnasium issue 728); the bodies are created in gymnasium's order, which fixes the
    // order of Box2D's proxies and contacts.
    contacts_ = GameContacts{};
    world_ = std::make_unique<b2World>(b2Vec2(0.0f, static_cast<float>(gravity_)));
    world_->SetContactListener(&contacts_);
    prev_shaping_valid_ = false;

    const double w = kViewportW / kScale;
    const double h = kViewportH / kScale;
    constexpr int kChunks = 11;
    double height[kChunks + 1];
    for (double& y : height) y = rng.Uniform(0, h / 2);
    double* chunk_x = chunk_x_.data();
    for (int i = 0; i < kChunks; ++i) chunk_x[i] = w / (kChunks - 1) * i;
    helipad_y_ = h / 4;
    for (int i = kChunks / 2 - 2; i <= kChunks / 2 + 2; ++i) height[i] = helipad_y_;
    double* smooth_y = smooth_y_.data();
    for (int i = 0; i < kChunks; ++i) {
      // height[i - 1] is Python's height[-1] (the last one) for i = 0.
      const double before = height[i == 0 ? kChunks : i - 1];
      smooth_y[i] = 0.33 * (before + height[i] + height[i + 1]);
    }

    // The moon: a static body with the edge (0, 0)-(W, 0) (a default fixture: friction 0.2)
    // and the terrain's ten edges (friction 0.1).
    b2BodyDef moon_def;
    b2Body* moon = world_->CreateBody(&moon_def);
    {
      b2EdgeShape edge;
      edge.Set(b2Vec2(0.0f, 0.0f), b2Vec2(static_cast<float>(w), 0.0f));
      AddFixture(moon, edge, {});
    }
    for (int i = 0; i < kChunks - 1; ++i) {
      b2EdgeShape edge;
      edge.Set(b2Vec2(static_cast<float>(chunk_x[i]), static_cast<float>(smooth_y[i])),
               b2Vec2(static_cast<float>(chunk_x[i + 1]), static_cast<float>(smooth_y[i + 1])));
      AddFixture(moon, edge, {.density = 0.0f, .friction = 0.1f});
    }

    const double initial_y = kViewportH / kScale;
    const double initial_x = kViewportW / kScale / 2;
    {
      b2BodyDef def;
      def.type = b2_dynamicBody;
      def.position.Set(static_cast<float>(initial_x), static_cast<float>(initial_y));
      def.angle = 0.0f;
      lander_ = world_->CreateBody(&def);
      static constexpr int kPoly[6][2] = {{-14, 17}, {-17, 0}, {-17, -10}, {17, -10}, {17, 0}, {14, 17}};
      AddFixture(lander_, PixelPolygon(kPoly, kScale),
                 {.density = 5.0f, .friction = 0.1f, .category = 0x0010, .mask = 0x001});
    }
    const double fx = rng.Uniform(-kInitialRandom, kInitialRandom);
    const double fy = rng.Uniform(-kInitialRandom, kInitialRandom);
    lander_->ApplyForceToCenter(b2Vec2(static_cast<float>(fx), static_cast<float>(fy)), true);
    if (enable_wind_) {
      wind_idx_ = -9999 + static_cast<int64_t>(rng.Below(19998));  // integers(-9999, 9999)
      torque_idx_ = -9999 + static_cast<int64_t>(rng.Below(19998));
    }

    for (int k = 0; k < 2; ++k) {
      const int i = k == 0 ? -1 : 1;
      b2BodyDef def;
      def.type = b2_dynamicBody;
      def.position.Set(static_cast<float>(initial_x - i * kLegAway / kScale), static_cast<float>(initial_y));
      def.angle = static_cast<float>(i * 0.05);
      b2Body* leg = world_->CreateBody(&def);
      b2PolygonShape box;
      box.SetAsBox(static_cast<float>(kLegW / kScale), static_cast<float>(kLegH / kScale));
      AddFixture(leg, box, {.density = 1.0f, .category = 0x0020, .mask = 0x001});
      b2RevoluteJointDef joint;
      joint.bodyA = lander_;
      joint.bodyB = leg;
      joint.localAnchorA.Set(0.0f, 0.0f);
      joint.localAnchorB.Set(static_cast<float>(i * kLegAway / kScale), static_cast<float>(kLegDown / kScale));
      joint.enableMotor = true;
      joint.enableLimit = true;
      joint.maxMotorTorque = static_cast<float>(kLegSpringTorque);
      joint.motorSpeed = static_cast<float>(0.3 * i);
      // pybox2d's revoluteJointDef(bodyA=..., bodyB=...) sets this from the bodies' angles.
      joint.referenceAngle = static_cast<float>(static_cast<double>(leg->GetAngle()) - lander_->GetAngle());
      if (i == -1) {
        joint.lowerAngle = static_cast<float>(+0.9 - 0.5);
        joint.upperAngle = static_cast<float>(+0.9);
      } else {
        joint.lowerAngle = static_cast<float>(-0.9);
        joint.upperAngle = static_cast<float>(-0.9 + 0.5);
      }
      world_->CreateJoint(&joint);
      legs_[k] = leg;
    }
    contacts_.body = lander_;
    contacts_.feet = legs_;
    particles_.Reset();

    // gymnasium's reset returns the observation of step(no-op); its reward and termination are
    // dropped (the row's reward and flags are the pool's: with same-step autoreset they still
    // hold the ending step's).
    Advance(0.0, 0.0, 0, rng, out);
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    if (continuous_) {
      // np.clip(action, -1, +1) in float32, then float64.
      const float* a = action.Get<float>();
      const double main = std::min(std::max(a[0], -1.0f), 1.0f);
      const double lateral = std::min(std::max(a[1], -1.0f), 1.0f);
      Write(Advance(main, lateral, -1, rng, out), out);
    } else {
      Write(Advance(0.0, 0.0, static_cast<int>(action.Get<int64_t>()[0]), rng, out), out);
    }
  }

 private:
  static constexpr double kFps = 50;
  static constexpr double kScale = 30.0;
  static constexpr double kMainEnginePower = 13.0;
  static constexpr double kSideEnginePower = 0.6;
  static constexpr double kInitialRandom = 1000.0;
  static constexpr int kLegAway = 20;
  static constexpr int kLegDown = 18;
  static constexpr int kLegW = 2;
  static constexpr int kLegH = 8;
  static constexpr int kLegSpringTorque = 40;
  static constexpr int kSideEngineHeight = 14;
  static constexpr int kSideEngineAway = 12;
  static constexpr int kMainEngineYLocation = 4;
  static constexpr int kViewportW = 600;
  static constexpr int kViewportH = 400;

  static void Write(StepResult result, Output& out) {
    out.reward() = result.reward;
    out.terminated() = result.terminated;
  }

  // tanh(sin(0.02 k) + sin(pi 0.01 k)), gymnasium's wind and turbulence profile.
  static double WindShape(int64_t k) {
    const double x = static_cast<double>(k);
    return std::tanh(std::sin(0.02 * x) + std::sin(M_PI * 0.01 * x));
  }

  // gymnasium's step(): `discrete` is the discrete action, or -1 for the continuous one
  // (main, lateral), already clipped to [-1, 1].
  StepResult Advance(double main, double lateral, int discrete, Rng& rng, Output& out) {
    if (enable_wind_ && !(contacts_.ground_contact[0] || contacts_.ground_contact[1])) {
      const double wind_mag = WindShape(wind_idx_) * wind_power_;
      ++wind_idx_;
      lander_->ApplyForceToCenter(b2Vec2(static_cast<float>(wind_mag), 0.0f), true);
      const double torque_mag = WindShape(torque_idx_) * turbulence_power_;
      ++torque_idx_;
      lander_->ApplyTorque(static_cast<float>(torque_mag), true);
    }
    const bool continuous = discrete < 0;

    const double angle = lander_->GetAngle();
    const double tip[2] = {std::sin(angle), std::cos(angle)};
    const double side[2] = {-tip[1], tip[0]};
    double dispersion[2];
    for (double& d : dispersion) d = rng.Uniform(-1.0, +1.0) / kScale;

    double m_power = 0.0;
    if ((continuous && main > 0.0) || (!continuous && discrete == 2)) {
      m_power = continuous ? (std::min(std::max(main, 0.0), 1.0) + 1.0) * 0.5 : 1.0;
      const double lever = kMainEngineYLocation / kScale + 2 * dispersion[0];
      const double ox = tip[0] * lever + side[0] * dispersion[1];
      const double oy = -tip[1] * lever - side[1] * dispersion[1];
      const b2Vec2 pos = lander_->GetPosition();
      const double px = static_cast<double>(pos.x) + ox;
      const double py = static_cast<double>(pos.y) + oy;
      // gymnasium's flame particle (density 3.5 "to make particle speed adequate"), ttl m_power
      // (a float64: gymnasium's step casts the continuous action to float64 first).
      particles_.Spawn(3.5f, px, py, ox * kMainEnginePower * m_power, oy * kMainEnginePower * m_power, m_power);
      lander_->ApplyLinearImpulse(b2Vec2(static_cast<float>(-ox * kMainEnginePower * m_power),
                                         static_cast<float>(-oy * kMainEnginePower * m_power)),
                                  b2Vec2(static_cast<float>(px), static_cast<float>(py)), true);
    }

    double s_power = 0.0;
    if ((continuous && std::abs(lateral) > 0.5) || (!continuous && (discrete == 1 || discrete == 3))) {
      double direction;
      if (continuous) {
        direction = lateral > 0 ? 1.0 : -1.0;  // np.sign (|lateral| > 0.5 here)
        s_power = std::min(std::max(std::abs(lateral), 0.5), 1.0);
      } else {
        direction = discrete - 2;
        s_power = 1.0;
      }
      const double lever = 3 * dispersion[1] + direction * kSideEngineAway / kScale;
      const double ox = tip[0] * dispersion[0] + side[0] * lever;
      const double oy = -tip[1] * dispersion[0] - side[1] * lever;
      const b2Vec2 pos = lander_->GetPosition();
      // gymnasium's constant 17 (not SIDE_ENGINE_HEIGHT) in x, as its comment explains.
      const double px = static_cast<double>(pos.x) + ox - tip[0] * 17 / kScale;
      const double py = static_cast<double>(pos.y) + oy + tip[1] * kSideEngineHeight / kScale;
      particles_.Spawn(0.7f, px, py, ox * kSideEnginePower * s_power, oy * kSideEnginePower * s_power, s_power);
      lander_->ApplyLinearImpulse(b2Vec2(static_cast<float>(-ox * kSideEnginePower * s_power),
                                         static_cast<float>(-oy * kSideEnginePower * s_power)),
                                  b2Vec2(static_cast<float>(px), static_cast<float>(py)), true);
    }

    world_->Step(static_cast<float>(1.0 / kFps), 6 * 30, 2 * 30);
    particles_.EndStep();

    const b2Vec2 pos = lander_->GetPosition();
    const b2Vec2 vel = lander_->GetLinearVelocity();
    const double half_w = kViewportW / kScale / 2;
    const double half_h = kViewportH / kScale / 2;
    const double state[8] = {
        (pos.x - half_w) / half_w,
        (pos.y - (helipad_y_ + kLegDown / kScale)) / half_h,
        vel.x * half_w / kFps,
        vel.y * half_h / kFps,
        static_cast<double>(lander_->GetAngle()),
        20.0 * lander_->GetAngularVelocity() / kFps,
        contacts_.ground_contact[0] ? 1.0 : 0.0,
        contacts_.ground_contact[1] ? 1.0 : 0.0,
    };
    const double shaping = -100 * std::sqrt(state[0] * state[0] + state[1] * state[1]) -
                           100 * std::sqrt(state[2] * state[2] + state[3] * state[3]) - 100 * std::abs(state[4]) +
                           10 * state[6] + 10 * state[7];
    double reward = 0;
    if (prev_shaping_valid_) reward = shaping - prev_shaping_;
    prev_shaping_ = shaping;
    prev_shaping_valid_ = true;
    reward -= m_power * 0.30;
    reward -= s_power * 0.03;
    bool terminated = false;
    if (contacts_.game_over || std::abs(state[0]) >= 1.0) {
      terminated = true;
      reward = -100;
    }
    if (!lander_->IsAwake()) {
      terminated = true;
      reward = +100;
    }
    float* obs = out.Obs<float>();
    for (int i = 0; i < 8; ++i) obs[i] = static_cast<float>(state[i]);
    return {reward, terminated};
  }

  // gymnasium's render() (render/lunar_lander.h).
  void Render(uint8_t* rgb) const override { DrawLunarLander(*this, rgb); }
  template <typename Lander>
  friend void DrawLunarLander(const Lander& lander, uint8_t* rgb);

  bool continuous_;
  double gravity_;
  bool enable_wind_;
  double wind_power_;
  double turbulence_power_;

  GameContacts contacts_;
  std::unique_ptr<b2World> world_;
  b2Body* lander_ = nullptr;
  std::array<b2Body*, 2> legs_{};
  double helipad_y_ = 0;
  static constexpr int kChunkCount = 11;
  std::array<double, kChunkCount> chunk_x_{};  // the terrain's corners, for the render
  std::array<double, kChunkCount> smooth_y_{};
  mutable LanderParticles particles_;
  double prev_shaping_ = 0;
  bool prev_shaping_valid_ = false;
  int64_t wind_idx_ = 0;
  int64_t torque_idx_ = 0;
};

}  // namespace envpool::box2d
