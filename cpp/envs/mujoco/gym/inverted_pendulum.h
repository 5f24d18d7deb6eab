// InvertedPendulum-v5: gymnasium.envs.mujoco.inverted_pendulum_v5.InvertedPendulumEnv.
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

class InvertedPendulum : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c =
        BaseConfig("inverted_pendulum.xml", 2, {"trackbodyid=0", "distance=2.04"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("reset_noise_scale", 0.01);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    return MakeSpec(config, m.get(), 4, {"reward_survive"});
  }

  explicit InvertedPendulum(const Config& config)
      : MujocoEnv(config), reset_noise_scale_(config.Get<double>("reset_noise_scale")) {
    if (m_->nq != 2 || m_->nv != 2) throw std::invalid_argument("InvertedPendulum needs a model with nq = nv = 2");
  }

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    UniformNoise(rng, data_->qvel, init_qvel_, -reset_noise_scale_, reset_noise_scale_);
    Forward();
    WriteObs(out);
    WriteInfo(out, {0.0});
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    DoSimulation(action.Get<float>());
    WriteObs(out);
    const double* obs = out.Obs<double>();
    bool finite = true;
    for (int i = 0; i < 4; ++i) finite = finite && std::isfinite(obs[i]);
    const bool terminated = !finite || std::abs(obs[1]) > 0.2;
    out.reward() = terminated ? 0.0 : 1.0;
    out.terminated() = terminated;
    WriteInfo(out, {out.reward()});
  }

 private:
  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    obs = std::copy(data_->qpos, data_->qpos + 2, obs);
    std::copy(data_->qvel, data_->qvel + 2, obs);
  }

  double reset_noise_scale_;
};

}  // namespace envpool::mujoco::gym
