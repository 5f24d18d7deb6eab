// MountainCarContinuous-v0: gymnasium.envs.classic_control.Continuous_MountainCarEnv.
//
// Exactness needs NumPy 2's scalar types tracked step by step (NEP 50: a float32 scalar met by
// a Python float stays float32, the Python float being rounded to float32 first, comparisons
// included):
//  * gymnasium stores the state as a float32 array after every step, but reset() leaves a
//    float64 array; the dtype decides whether `3 * position`, `velocity += ...` and
//    `position += velocity` run in float32 or float64. `state_is_float32_` tracks it.
//  * force = min(max(action[0], -1.0), 1.0) with Python's min/max is the float32 action when it
//    lies in [-1, 1] and the Python float bound otherwise; `force * power` is float32 only in
//    the first case.
//  * the clip assignments (velocity = max_speed, position = max_position, ...) make the value a
//    Python float, compared and added as a float64 (or rounded to float32 when added to a
//    float32).
#pragma once

#include <cmath>

#include "core/env.h"
#include "envs/classic_control/numpy_math.h"
#include "envs/classic_control/render/mountain_car.h"

namespace envpool::classic_control {

class MountainCarContinuous : public Env {
 public:
  // gymnasium's default is the int 0; a float is accepted too.
  static Config DefaultConfig() { return {{"goal_velocity", 0.0}}; }

  static EnvSpec Spec(const Config& /*config*/) {
    // gymnasium builds the bounds in float32; round them the same way.
    const std::vector<double> lo = {static_cast<float>(kMinPosition), static_cast<float>(-kMaxSpeed)};
    const std::vector<double> hi = {static_cast<float>(kMaxPosition), static_cast<float>(kMaxSpeed)};
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {2}, lo, hi)},
                 {ArraySpec::Box("action", DType::kFloat32, {1}, {static_cast<float>(kMinAction)},
                                 {static_cast<float>(kMaxAction)})},
                 {}};
    spec.render_height = kMountainCarHeight;
    spec.render_width = kMountainCarWidth;
    spec.render_fps = 30;  // Continuous_MountainCarEnv.metadata
    return spec;
  }

  explicit MountainCarContinuous(const Config& config) : goal_velocity_(config.Get<double>("goal_velocity")) {}

  void Reset(Rng& rng, Output& out) override {
    // np.array([uniform(-0.6, -0.4), 0]): a float64 state until the first step.
    state_[0] = rng.Uniform(-0.6, -0.4);
    state_[1] = 0.0;
    state_is_float32_ = false;
    WriteObs(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float a = action.Get<float>()[0];
    const bool f32 = state_is_float32_;
    // A value and whether NumPy holds it as a float32 (else float64 / Python float / int).
    double position = state_[0];
    double velocity = state_[1];
    bool position_f32 = f32;
    bool velocity_f32 = f32;

    // velocity += force * power - 0.0025 * math.cos(3 * position)
    const double cos_arg = f32 ? static_cast<double>(3.0f * static_cast<float>(position)) : 3 * position;
    const double cos_term = 0.0025 * std::cos(cos_arg);  // a Python float
    double dv;
    if (a < static_cast<float>(kMinAction) || a > static_cast<float>(kMaxAction)) {
      const double force = a < static_cast<float>(kMinAction) ? kMinAction : kMaxAction;  // Python float
      dv = force * kPower - cos_term;
    } else {
      const float force_power = a * static_cast<float>(kPower);
      dv = static_cast<double>(force_power - static_cast<float>(cos_term));  // float32
    }
    velocity = f32 ? static_cast<double>(static_cast<float>(velocity) + static_cast<float>(dv)) : velocity + dv;

    if (Greater(velocity, velocity_f32, kMaxSpeed)) {
      velocity = kMaxSpeed;
      velocity_f32 = false;
    }
    if (Less(velocity, velocity_f32, -kMaxSpeed)) {
      velocity = -kMaxSpeed;
      velocity_f32 = false;
    }
    // position += velocity: float32 if position is (a Python float velocity is rounded first).
    position = position_f32 ? static_cast<double>(static_cast<float>(position) + static_cast<float>(velocity))
                            : position + velocity;
    if (Greater(position, position_f32, kMaxPosition)) {
      position = kMaxPosition;
      position_f32 = false;
    }
    if (Less(position, position_f32, kMinPosition)) {
      position = kMinPosition;
      position_f32 = false;
    }
    if (Equal(position, position_f32, kMinPosition) && velocity < 0) {
      velocity = 0;  // the int 0
      velocity_f32 = false;
    }

    const bool terminated =
        GreaterEqual(position, position_f32, kGoalPosition) && GreaterEqual(velocity, velocity_f32, goal_velocity_);
    // reward = (100.0 if terminated else 0) - math.pow(action[0], 2) * 0.1, on the unclipped action.
    const double reward = (terminated ? 100.0 : 0.0) - numpy_math::Pow2(static_cast<double>(a)) * 0.1;

    // self.state = np.array([position, velocity], dtype=np.float32)
    state_[0] = numpy_math::RoundToFloat32(position);
    state_[1] = numpy_math::RoundToFloat32(velocity);
    state_is_float32_ = true;
    out.reward() = reward;
    out.terminated() = terminated;
    WriteObs(out);
  }

  // gymnasium's Continuous_MountainCarEnv.render(): render/mountain_car.h.
  void Render(uint8_t* rgb) const override { DrawMountainCar(rgb, state_[0], kGoalPosition); }

  // The state is gymnasium's env.unwrapped.state: [position, velocity]. SetState takes it as a
  // float64 array (what reset() leaves, or `env.unwrapped.state = np.array(s)`); after a step
  // gymnasium holds a float32 array and so do we (GetState returns those float32 values), so
  // putting a GetState() result back with SetState continues in float64 arithmetic, not float32.
  std::vector<double> GetState() const override { return {state_, state_ + 2}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 2);
    state_[0] = state[0];
    state_[1] = state[1];
    state_is_float32_ = false;
  }

 private:
  static constexpr double kMinAction = -1.0;
  static constexpr double kMaxAction = 1.0;
  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;
  static constexpr double kGoalPosition = 0.45;
  static constexpr double kPower = 0.0015;

  // x (float32 when x_f32) compared with a Python float c: in float32 when x is float32.
  static bool Greater(double x, bool x_f32, double c) {
    return x_f32 ? static_cast<float>(x) > static_cast<float>(c) : x > c;
  }
  static bool Less(double x, bool x_f32, double c) {
    return x_f32 ? static_cast<float>(x) < static_cast<float>(c) : x < c;
  }
  static bool GreaterEqual(double x, bool x_f32, double c) {
    return x_f32 ? static_cast<float>(x) >= static_cast<float>(c) : x >= c;
  }
  static bool Equal(double x, bool x_f32, double c) {
    return x_f32 ? static_cast<float>(x) == static_cast<float>(c) : x == c;
  }

  void WriteObs(Output& out) const {
    float* obs = out.Obs<float>();
    obs[0] = static_cast<float>(state_[0]);
    obs[1] = static_cast<float>(state_[1]);
  }

  double goal_velocity_;
  double state_[2] = {0, 0};
  bool state_is_float32_ = false;  // gymnasium's state array dtype: float64 after reset, float32 after a step
};

}  // namespace envpool::classic_control
