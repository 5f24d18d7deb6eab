// MountainCar-v0: gymnasium.envs.classic_control.MountainCarEnv (Moore's mountain car, three
// discrete pushes). The state is kept in float64 and the observation rounded to float32, as
// gymnasium does; math.cos is libm cos.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/env.h"
#include "envs/classic_control/render/mountain_car.h"

namespace envpool::classic_control {

class MountainCar : public Env {
 public:
  // gymnasium's default is the int 0; a float is accepted too.
  static Config DefaultConfig() { return {{"goal_velocity", 0.0}}; }

  static EnvSpec Spec(const Config& /*config*/) {
    // gymnasium builds the bounds in float32; round them the same way.
    const std::vector<double> lo = {static_cast<float>(kMinPosition), static_cast<float>(-kMaxSpeed)};
    const std::vector<double> hi = {static_cast<float>(kMaxPosition), static_cast<float>(kMaxSpeed)};
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {2}, lo, hi)}, {ArraySpec::Discrete("action", 3)}, {}};
    spec.render_height = kMountainCarHeight;
    spec.render_width = kMountainCarWidth;
    spec.render_fps = 30;  // MountainCarEnv.metadata
    return spec;
  }

  explicit MountainCar(const Config& config) : goal_velocity_(config.Get<double>("goal_velocity")) {}

  void Reset(Rng& rng, Output& out) override {
    state_[0] = rng.Uniform(-0.6, -0.4);
    state_[1] = 0.0;
    WriteObs(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    double position = state_[0];
    double velocity = state_[1];
    // Same operation order as gymnasium so results agree to the last bit.
    const auto a = action.Get<int64_t>()[0];
    velocity = velocity + (static_cast<double>(a - 1) * kForce + std::cos(3 * position) * (-kGravity));
    velocity = std::min(std::max(velocity, -kMaxSpeed), kMaxSpeed);  // np.clip
    position = position + velocity;
    position = std::min(std::max(position, kMinPosition), kMaxPosition);  // np.clip
    if (position == kMinPosition && velocity < 0) velocity = 0;
    const bool terminated = position >= kGoalPosition && velocity >= goal_velocity_;
    state_[0] = position;
    state_[1] = velocity;
    out.reward() = -1.0;
    out.terminated() = terminated;
    WriteObs(out);
  }

  // gymnasium's MountainCarEnv.render(): render/mountain_car.h.
  void Render(uint8_t* rgb) const override { DrawMountainCar(rgb, state_[0], kGoalPosition); }

  // The state is gymnasium's env.unwrapped.state: [position, velocity] (float64).
  std::vector<double> GetState() const override { return {state_, state_ + 2}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 2);
    state_[0] = state[0];
    state_[1] = state[1];
  }

 private:
  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;
  static constexpr double kGoalPosition = 0.5;
  static constexpr double kForce = 0.001;
  static constexpr double kGravity = 0.0025;

  void WriteObs(Output& out) const {
    float* obs = out.Obs<float>();
    obs[0] = static_cast<float>(state_[0]);
    obs[1] = static_cast<float>(state_[1]);
  }

  double goal_velocity_;
  double state_[2] = {0, 0};
};

}  // namespace envpool::classic_control
