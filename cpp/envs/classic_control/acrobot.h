// Acrobot-v1: gymnasium.envs.classic_control.AcrobotEnv (Sutton's two-link acrobot, the "book"
// dynamics, one RK4 step of dt = 0.2, no torque noise). Everything is float64 as in gymnasium
// (np.append promotes the state to float64 before integrating); the observation
// [cos th1, sin th1, cos th2, sin th2, dth1, dth2] is rounded to float32. Squares are NumPy's
// `x ** 2`, i.e. libm pow(), which is not always correctly rounded: Pow2 calls it.
#pragma once

#include <cmath>

#include "core/env.h"
#include "envs/classic_control/numpy_math.h"
#include "envs/classic_control/render/acrobot.h"

namespace envpool::classic_control {

class Acrobot : public Env {
 public:
  // gymnasium's AcrobotEnv takes no constructor kwargs besides render_mode.
  static Config DefaultConfig() { return {}; }

  static EnvSpec Spec(const Config& /*config*/) {
    const double high[6] = {1.0, 1.0, 1.0, 1.0, kMaxVel1, kMaxVel2};
    // gymnasium builds the bounds in float32; round them the same way.
    std::vector<double> hi, lo;
    for (double h : high) {
      hi.push_back(static_cast<float>(h));
      lo.push_back(-static_cast<float>(h));
    }
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {6}, lo, hi)}, {ArraySpec::Discrete("action", 3)}, {}};
    spec.render_height = kAcrobotSize;
    spec.render_width = kAcrobotSize;
    spec.render_fps = 15;  // AcrobotEnv.metadata
    return spec;
  }

  explicit Acrobot(const Config& /*config*/) {}

  void Reset(Rng& rng, Output& out) override {
    // uniform(-0.1, 0.1, size=4).astype(np.float32)
    for (double& s : state_) s = numpy_math::RoundToFloat32(rng.Uniform(-0.1, 0.1));
    // gymnasium computes this first observation with NumPy's float32 cos / sin (the state is
    // float32 right after reset), which may differ from this one in the last bit.
    WriteObs(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    static constexpr double kAvailTorque[3] = {-1.0, 0.0, +1.0};
    const double torque = kAvailTorque[action.Get<int64_t>()[0]];
    // rk4(self._dsdt, [*state, torque], [0, dt]): one step; the torque's derivative is 0, so it
    // stays `torque` at every stage.
    const double dt = kDt - 0;
    const double dt2 = dt / 2.0;
    double y0[4], k1[4], k2[4], k3[4], k4[4], y[4];
    for (int i = 0; i < 4; ++i) y0[i] = state_[i];
    Dsdt(y0, torque, k1);
    for (int i = 0; i < 4; ++i) y[i] = y0[i] + dt2 * k1[i];
    Dsdt(y, torque, k2);
    for (int i = 0; i < 4; ++i) y[i] = y0[i] + dt2 * k2[i];
    Dsdt(y, torque, k3);
    for (int i = 0; i < 4; ++i) y[i] = y0[i] + dt * k3[i];
    Dsdt(y, torque, k4);
    double ns[4];
    for (int i = 0; i < 4; ++i) ns[i] = y0[i] + dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);

    state_[0] = Wrap(ns[0], -M_PI, M_PI);
    state_[1] = Wrap(ns[1], -M_PI, M_PI);
    state_[2] = Bound(ns[2], -kMaxVel1, kMaxVel1);
    state_[3] = Bound(ns[3], -kMaxVel2, kMaxVel2);
    const bool terminated = -std::cos(state_[0]) - std::cos(state_[1] + state_[0]) > 1.0;
    out.reward() = terminated ? 0.0 : -1.0;
    out.terminated() = terminated;
    WriteObs(out);
  }

  // gymnasium's AcrobotEnv.render() (render/acrobot.h).
  void Render(uint8_t* rgb) const override { DrawAcrobot(rgb, state_[0], state_[1], kLinkLength1, kLinkLength2); }

  // The state is gymnasium's env.unwrapped.state: [theta1, theta2, dtheta1, dtheta2] (float32
  // right after gymnasium's reset, float64 after a step; the dynamics see float64 either way).
  std::vector<double> GetState() const override { return {state_, state_ + 4}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 4);
    for (int i = 0; i < 4; ++i) state_[i] = state[i];
  }

 private:
  static constexpr double kDt = 0.2;
  static constexpr double kLinkLength1 = 1.0;
  static constexpr double kLinkLength2 = 1.0;  // only drawn: the "book" dynamics do not use it
  static constexpr double kLinkMass1 = 1.0;
  static constexpr double kLinkMass2 = 1.0;
  static constexpr double kLinkComPos1 = 0.5;
  static constexpr double kLinkComPos2 = 0.5;
  static constexpr double kLinkMoi = 1.0;
  static constexpr double kMaxVel1 = 4 * M_PI;
  static constexpr double kMaxVel2 = 9 * M_PI;
  static constexpr double kG = 9.8;

  // gymnasium's _dsdt, "book" variant, in its operation order. Constant sub-expressions are
  // folded by the compiler exactly as Python evaluates them (left to right, in float64).
  static void Dsdt(const double s[4], double a, double out[4]) {
    constexpr double m1 = kLinkMass1, m2 = kLinkMass2, l1 = kLinkLength1;
    constexpr double lc1 = kLinkComPos1, lc2 = kLinkComPos2, I1 = kLinkMoi, I2 = kLinkMoi, g = kG;
    const double theta1 = s[0];
    const double theta2 = s[1];
    const double dtheta1 = s[2];
    const double dtheta2 = s[3];
    const double d1 = m1 * (lc1 * lc1) + m2 * ((l1 * l1) + (lc2 * lc2) + 2 * l1 * lc2 * std::cos(theta2)) + I1 + I2;
    const double d2 = m2 * ((lc2 * lc2) + l1 * lc2 * std::cos(theta2)) + I2;
    const double phi2 = m2 * lc2 * g * std::cos(theta1 + theta2 - M_PI / 2.0);
    const double phi1 = -m2 * l1 * lc2 * numpy_math::Pow2(dtheta2) * std::sin(theta2) -
                        2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * std::sin(theta2) +
                        (m1 * lc1 + m2 * l1) * g * std::cos(theta1 - M_PI / 2) + phi2;
    const double ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * numpy_math::Pow2(dtheta1) * std::sin(theta2) - phi2) /
                            (m2 * (lc2 * lc2) + I2 - numpy_math::Pow2(d2) / d1);
    const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    out[0] = dtheta1;
    out[1] = dtheta2;
    out[2] = ddtheta1;
    out[3] = ddtheta2;
  }

  // Wraps x into [m, M] by whole turns (gymnasium's wrap()).
  static double Wrap(double x, double m, double M) {
    const double diff = M - m;
    while (x > M) x = x - diff;
    while (x < m) x = x + diff;
    return x;
  }
  // min(max(x, m), M) with Python's min / max.
  static double Bound(double x, double m, double M) {
    const double lo = m > x ? m : x;
    return M < lo ? M : lo;
  }

  void WriteObs(Output& out) const {
    float* obs = out.Obs<float>();
    obs[0] = static_cast<float>(std::cos(state_[0]));
    obs[1] = static_cast<float>(std::sin(state_[0]));
    obs[2] = static_cast<float>(std::cos(state_[1]));
    obs[3] = static_cast<float>(std::sin(state_[1]));
    obs[4] = static_cast<float>(state_[2]);
    obs[5] = static_cast<float>(state_[3]);
  }

  double state_[4] = {0, 0, 0, 0};
};

}  // namespace envpool::classic_control
