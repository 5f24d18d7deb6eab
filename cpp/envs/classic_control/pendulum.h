// Pendulum-v1: gymnasium.envs.classic_control.PendulumEnv (inverted pendulum swing-up).
// The state [theta, theta_dot] is kept in float64 as gymnasium does. The torque is a float32
// scalar there, and NumPy 2 (NEP 50) keeps float32 when it meets a Python float, so the terms
// that involve the torque are computed in float32 here too. Squares are NumPy's `x ** 2`, i.e.
// libm pow(), which is not always correctly rounded: Pow2 calls it rather than x * x.
//
// Pendulum-v0 (kwarg version=0, as the reference EnvPool names it): gym 0.20's PendulumEnv, the
// last gym that registered Pendulum-v0. Its step differs from v1's in two places: the gravity term
// is written -3 g / (2 l) sin(th + pi), and the angle moves by the new speed before that speed is
// clipped to +-8 (v1 clips first). Reset, observation and reward are v1's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/env.h"
#include "envs/classic_control/numpy_math.h"
#include "envs/classic_control/render/pendulum.h"

namespace envpool::classic_control {

class Pendulum : public Env {
 public:
  static Config DefaultConfig() { return {{"g", 10.0}, {"version", int64_t{1}}}; }

  static EnvSpec Spec(const Config& config) {
    CheckVersion(config);
    const double high[3] = {1.0, 1.0, kMaxSpeed};
    // gymnasium builds the bounds in float32; round them the same way.
    std::vector<double> hi, lo;
    for (double h : high) {
      hi.push_back(static_cast<float>(h));
      lo.push_back(-static_cast<float>(h));
    }
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {3}, lo, hi)},
                 {ArraySpec::Box("action", DType::kFloat32, {1}, {-static_cast<float>(kMaxTorque)},
                                 {static_cast<float>(kMaxTorque)})},
                 {}};
    spec.render_height = kPendulumSize;
    spec.render_width = kPendulumSize;
    spec.render_fps = 30;  // PendulumEnv.metadata
    return spec;
  }

  explicit Pendulum(const Config& config) : g_(config.Get<double>("g")), v0_(CheckVersion(config) == 0) {}

  void Reset(Rng& rng, Output& out) override {
    state_[0] = rng.Uniform(-M_PI, M_PI);
    state_[1] = rng.Uniform(-1.0, 1.0);
    has_last_u_ = false;
    WriteObs(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const double th = state_[0];
    const double thdot = state_[1];
    // u = np.clip(u, -max_torque, max_torque)[0]: stays float32.
    const float max_torque = static_cast<float>(kMaxTorque);
    const float u = std::min(std::max(action.Get<float>()[0], -max_torque), max_torque);
    // costs = angle_normalize(th) ** 2 + 0.1 * thdot ** 2 + 0.001 * (u ** 2); the last term
    // is float32 (0.001 is rounded to float32 first), the sum float64.
    const double costs = numpy_math::Pow2(AngleNormalize(th)) + 0.1 * numpy_math::Pow2(thdot) +
                         static_cast<double>(static_cast<float>(0.001) * numpy_math::Pow2(u));
    // newthdot = thdot + (3 * g / (2 * l) * sin(th) + 3.0 / (m * l ** 2) * u) * dt, where
    // 3.0 / (m * l ** 2) * u is float32 (float32 times a Python float).
    const float torque_term = static_cast<float>(3.0 / (kM * (kL * kL))) * u;
    double newthdot, newth;
    if (v0_) {
      // gym 0.20: newthdot = thdot + (-3 * g / (2 * l) * np.sin(th + np.pi) + 3.0 / (m * l ** 2) * u) * dt;
      // newth = th + newthdot * dt; then newthdot = np.clip(newthdot, -max_speed, max_speed).
      newthdot = thdot + (-3 * g_ / (2 * kL) * std::sin(th + M_PI) + static_cast<double>(torque_term)) * kDt;
      newth = th + newthdot * kDt;
      newthdot = std::min(std::max(newthdot, -kMaxSpeed), kMaxSpeed);
    } else {
      newthdot = thdot + (3 * g_ / (2 * kL) * std::sin(th) + static_cast<double>(torque_term)) * kDt;
      newthdot = std::min(std::max(newthdot, -kMaxSpeed), kMaxSpeed);  // np.clip
      newth = th + newthdot * kDt;
    }
    state_[0] = newth;
    state_[1] = newthdot;
    last_u_ = u;  // gymnasium's self.last_u, drawn by render()
    has_last_u_ = true;
    out.reward() = -costs;
    out.terminated() = false;
    WriteObs(out);
  }

  // gymnasium's PendulumEnv.render() (render/pendulum.h).
  void Render(uint8_t* rgb) const override { DrawPendulum(rgb, state_[0], has_last_u_, last_u_); }

  // The state is gymnasium's env.unwrapped.state: [theta, theta_dot] (float64).
  std::vector<double> GetState() const override { return {state_, state_ + 2}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 2);
    state_[0] = state[0];
    state_[1] = state[1];
  }

 private:
  static constexpr double kMaxSpeed = 8;
  static constexpr double kMaxTorque = 2.0;
  static constexpr double kDt = 0.05;
  static constexpr double kM = 1.0;
  static constexpr double kL = 1.0;

  // The `version` kwarg: 0 (Pendulum-v0's step) or 1; std::invalid_argument otherwise.
  static int64_t CheckVersion(const Config& config) {
    const auto version = config.Get<int64_t>("version");
    if (version != 0 && version != 1) {
      throw std::invalid_argument("Pendulum: version must be 0 (Pendulum-v0's step) or 1, got " +
                                  std::to_string(version));
    }
    return version;
  }

  // ((x + pi) % (2 * pi)) - pi with Python's / NumPy's floored modulo (result has the sign
  // of the divisor; an exact zero is +0).
  static double AngleNormalize(double x) {
    const double two_pi = 2 * M_PI;
    double mod = std::fmod(x + M_PI, two_pi);
    if (mod != 0) {
      if (mod < 0) mod += two_pi;
    } else {
      mod = 0.0;
    }
    return mod - M_PI;
  }

  void WriteObs(Output& out) const {
    float* obs = out.Obs<float>();
    obs[0] = static_cast<float>(std::cos(state_[0]));
    obs[1] = static_cast<float>(std::sin(state_[0]));
    obs[2] = static_cast<float>(state_[1]);
  }

  double g_;
  bool v0_;  // version 0: gym 0.20's step (see the top of this file)
  double state_[2] = {0, 0};
  float last_u_ = 0;         // the last clipped torque (rendering only)
  bool has_last_u_ = false;  // gymnasium's last_u is None after reset
};

}  // namespace envpool::classic_control
