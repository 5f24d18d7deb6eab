// InvertedPendulum-v5 and -v4: gymnasium.envs.mujoco.inverted_pendulum_v5 / inverted_pendulum_v4.
// v4 takes no reset_noise_scale (its noise is v5's default) and pays its reward of 1 on every
// step, the terminating one included (v5 pays 0 there); its info is empty.
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class InvertedPendulumEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c =
        BaseConfig("inverted_pendulum.xml", 2, {"trackbodyid=0", "distance=2.04"});  // gymnasium DEFAULT_CAMERA_CONFIG
    if constexpr (V == Version::kV5) c.Set("reset_noise_scale", 0.01);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    if constexpr (V == Version::kV4) return MakeSpec(config, m.get(), 4, {});
    return MakeSpec(config, m.get(), 4, {"reward_survive"});
  }

  explicit InvertedPendulumEnv(const Config& config)
      : MujocoEnv(config), reset_noise_scale_(V == Version::kV5 ? config.Get<double>("reset_noise_scale") : 0.01) {
    if (m_->nq != 2 || m_->nv != 2) throw std::invalid_argument("InvertedPendulum needs a model with nq = nv = 2");
  }

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    UniformNoise(rng, data_->qvel, init_qvel_, -reset_noise_scale_, reset_noise_scale_);
    Forward();
    WriteObs(out);
    if constexpr (V == Version::kV5) WriteInfo(out, {0.0});
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    DoSimulation(action.Get<float>());
    WriteObs(out);
    const double* obs = out.Obs<double>();
    bool finite = true;
    for (int i = 0; i < 4; ++i) finite = finite && std::isfinite(obs[i]);
    const bool terminated = !finite || std::abs(obs[1]) > 0.2;
    out.reward() = V == Version::kV4 || !terminated ? 1.0 : 0.0;
    out.terminated() = terminated;
    if constexpr (V == Version::kV5) WriteInfo(out, {out.reward()});
  }

 private:
  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    obs = std::copy(data_->qpos, data_->qpos + 2, obs);
    std::copy(data_->qvel, data_->qvel + 2, obs);
  }

  double reset_noise_scale_;
};

using InvertedPendulum = InvertedPendulumEnv<Version::kV5>;
using InvertedPendulumV4 = InvertedPendulumEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
