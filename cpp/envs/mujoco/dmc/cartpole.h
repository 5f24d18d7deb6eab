// dm_control.suite.cartpole: balance, balance_sparse, swingup, swingup_sparse, two_poles,
// three_poles (the last two add poles to cartpole.xml as dm_control's _make_model does).
#pragma once

#include <charconv>

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

// A double as Python's str() writes it (shortest round trip), for XML attributes.
inline std::string PyFloat(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos && s.find("inf") == std::string::npos) s += ".0";
  return s;
}

// Replaces the one occurrence of `from` in `text` (throws if the suite's file differs).
inline void ReplaceOnce(std::string& text, const std::string& from, const std::string& to, const char* file) {
  const auto at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos) {
    throw std::runtime_error(std::string("dm_control's ") + file + " is not the one of dm-control 1.0.50 (no single '" +
                             from + "')");
  }
  text.replace(at, from.size(), to);
}

class Cartpole : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("balance", 1, 10.0); }

  static int Poles(const Config& config) {
    const std::string t = TaskName(
        config, {"balance", "balance_sparse", "swingup", "swingup_sparse", "two_poles", "three_poles"}, "cartpole");
    return t == "two_poles" ? 2 : t == "three_poles" ? 3 : 1;
  }

  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int n = Poles(config);
    if (n == 1) return SuiteModel("cartpole.xml");
    return SuiteModel("cartpole.xml", std::to_string(n) + " poles", [n](const std::string& xml) {
      std::string s = xml, poles, close;
      for (int i = 2; i <= n; ++i) {
        const std::string k = std::to_string(i);
        poles += "<body name=\"pole_" + k + "\" pos=\"0 0 1\" childclass=\"pole\"><joint name=\"hinge_" + k +
                 "\"/><geom name=\"pole_" + k + "\"/>";
        close += "</body>";
      }
      ReplaceOnce(s, "<geom name=\"pole_1\"/>", "<geom name=\"pole_1\"/>" + poles + close, "cartpole.xml");
      ReplaceOnce(s, "name=\"floor\" pos=\"0 0 -.05\"", "name=\"floor\" pos=\"0 0 " + PyFloat(1 - n - .05) + "\"",
                  "cartpole.xml");
      ReplaceOnce(s, "name=\"fixed\" pos=\"0 -4 1\"", "name=\"fixed\" pos=\"0 " + std::to_string(-1 - 2 * n) + " 1\"",
                  "cartpole.xml");
      ReplaceOnce(s, "mode=\"targetbody\" target=\"cart\" pos=\"0 -2 2\"",
                  "mode=\"targetbody\" target=\"cart\" pos=\"0 " + std::to_string(-2 * n) + " 2\"", "cartpole.xml");
      return s;
    });
  }

  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"position", {1 + 2 * (m->nbody - 2)}}, {"velocity", {m->nv}}});
  }

  explicit Cartpole(const Config& config) : DmcEnv(config, Model(config)) {
    const std::string t = config.Get<std::string>("task_name");
    swing_up_ = t != "balance" && t != "balance_sparse";
    sparse_ = t == "balance_sparse" || t == "swingup_sparse";
    slider_ = JointQpos("slider");
  }

 protected:
  void InitializeEpisode() override {
    const int nv = m_->nv;
    if (swing_up_) {
      data_->qpos[slider_] = .01 * random_.Normal();
      data_->qpos[JointQpos("hinge_1")] = M_PI + .01 * random_.Normal();
      for (int i = 2; i < nv; ++i) data_->qpos[i] = .1 * random_.Normal();
    } else {
      data_->qpos[slider_] = random_.Uniform(-.1, .1);
      for (int i = 1; i < nv; ++i) data_->qpos[i] = random_.Uniform(-.034, .034);
    }
    for (int i = 0; i < nv; ++i) data_->qvel[i] = 0.01 * random_.Normal();
  }

  void WriteObservation(ObsWriter& w) const override {
    const int poles = m_->nbody - 2;
    double* p = w.Next(1 + 2 * poles);
    p[0] = data_->qpos[slider_];
    for (int b = 0; b < poles; ++b) {
      p[1 + 2 * b] = Xmat(b + 2, kZZ);
      p[2 + 2 * b] = Xmat(b + 2, kXZ);
    }
    w.Put(data_->qvel, m_->nv);
  }

  double Reward() const override {
    const int poles = m_->nbody - 2;
    const double cart = data_->qpos[slider_];
    if (sparse_) {
      const double cart_in_bounds = Tolerance(cart, -.25, .25);
      double angle_in_bounds = 1.0;
      for (int b = 0; b < poles; ++b)
        angle_in_bounds *= Tolerance(Xmat(b + 2, kZZ), .995, 1, 0, Sigmoid::kGaussian, .1, false);
      return cart_in_bounds * angle_in_bounds;
    }
    const double upright =
        NumpySum<double>(poles, [this](std::size_t b) { return (Xmat(static_cast<int>(b) + 2, kZZ) + 1) / 2; }) / poles;
    const double centered = (1 + Tolerance(cart, 0, 0, 2)) / 2;
    const double small_control = (4 + Tolerance(data_->ctrl[0], 0, 0, 1, Sigmoid::kQuadratic, 0, false)) / 5;
    double small_velocity = INFINITY;
    for (int i = 1; i < m_->nv; ++i) {
      small_velocity = std::min(small_velocity, Tolerance(data_->qvel[i], 0, 0, 5, Sigmoid::kGaussian, .1, false));
    }
    small_velocity = (1 + small_velocity) / 2;
    return upright * small_control * small_velocity * centered;
  }

 private:
  bool swing_up_, sparse_;
  int slider_;
};

}  // namespace envpool::mujoco::dmc
