// CartPole-v0 / v1: gymnasium.envs.classic_control.CartPoleEnv (Barto, Sutton & Anderson).
// The state is kept in float64 and the observation rounded to float32, as gymnasium does.
#pragma once

#include <cmath>

#include "core/env.h"
#include "envs/classic_control/render/cartpole.h"

namespace envpool::classic_control {

class CartPole : public Env {
 public:
  static Config DefaultConfig() { return {{"sutton_barto_reward", false}}; }

  static EnvSpec Spec(const Config& /*config*/) {
    const double high[4] = {kXThreshold * 2, INFINITY, kThetaThreshold * 2, INFINITY};
    // gymnasium builds the bounds in float32; round them the same way.
    std::vector<double> hi, lo;
    for (double h : high) {
      hi.push_back(static_cast<float>(h));
      lo.push_back(-static_cast<float>(h));
    }
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {4}, lo, hi)}, {ArraySpec::Discrete("action", 2)}, {}};
    spec.render_height = kCartPoleHeight;
    spec.render_width = kCartPoleWidth;
    spec.render_fps = 50;  // CartPoleEnv.metadata
    return spec;
  }

  explicit CartPole(const Config& config) : sutton_barto_reward_(config.Get<bool>("sutton_barto_reward")) {}

  void Reset(Rng& rng, Output& out) override {
    for (double& s : state_) s = rng.Uniform(-0.05, 0.05);
    steps_beyond_terminated_ = -1;
    WriteObs(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    double& x = state_[0];
    double& x_dot = state_[1];
    double& theta = state_[2];
    double& theta_dot = state_[3];
    // Same operation order as gymnasium so results agree to the last bit.
    const double force = action.Get<int64_t>()[0] == 1 ? kForceMag : -kForceMag;
    const double costheta = std::cos(theta);
    const double sintheta = std::sin(theta);
    const double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
    const double thetaacc = (kGravity * sintheta - costheta * temp) /
                            (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
    const double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
    x = x + kTau * x_dot;
    x_dot = x_dot + kTau * xacc;
    theta = theta + kTau * theta_dot;
    theta_dot = theta_dot + kTau * thetaacc;

    const bool terminated = x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold || theta > kThetaThreshold;
    double reward;
    if (!terminated) {
      reward = sutton_barto_reward_ ? 0.0 : 1.0;
    } else if (steps_beyond_terminated_ < 0) {
      steps_beyond_terminated_ = 0;
      reward = sutton_barto_reward_ ? -1.0 : 1.0;
    } else {
      ++steps_beyond_terminated_;
      reward = sutton_barto_reward_ ? -1.0 : 0.0;
    }
    out.reward() = reward;
    out.terminated() = terminated;
    WriteObs(out);
  }

  // gymnasium's CartPoleEnv.render() (render/cartpole.h).
  void Render(uint8_t* rgb) const override { DrawCartPole(rgb, state_[0], state_[2], kXThreshold, kLength); }

  std::vector<double> GetState() const override { return {state_, state_ + 4}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 4);
    for (int i = 0; i < 4; ++i) state_[i] = state[i];
    steps_beyond_terminated_ = -1;
  }

 private:
  static constexpr double kGravity = 9.8;
  static constexpr double kMassCart = 1.0;
  static constexpr double kMassPole = 0.1;
  static constexpr double kTotalMass = kMassPole + kMassCart;
  static constexpr double kLength = 0.5;  // half the pole's length
  static constexpr double kPoleMassLength = kMassPole * kLength;
  static constexpr double kForceMag = 10.0;
  static constexpr double kTau = 0.02;
  static constexpr double kThetaThreshold = 12 * 2 * M_PI / 360;
  static constexpr double kXThreshold = 2.4;

  void WriteObs(Output& out) const {
    float* obs = out.Obs<float>();
    for (int i = 0; i < 4; ++i) obs[i] = static_cast<float>(state_[i]);
  }

  bool sutton_barto_reward_;
  double state_[4] = {0, 0, 0, 0};
  int steps_beyond_terminated_ = -1;  // gymnasium's steps_beyond_terminated (None -> -1)
};

}  // namespace envpool::classic_control
