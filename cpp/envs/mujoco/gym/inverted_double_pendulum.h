// InvertedDoublePendulum-v5: gymnasium.envs.mujoco.inverted_double_pendulum_v5.
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

class InvertedDoublePendulum : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("inverted_double_pendulum.xml", 5);  // default_camera_config=None in gymnasium
    c.Set("healthy_reward", 10.0);
    c.Set("reset_noise_scale", 0.1);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    return MakeSpec(config, m.get(), 9, {"reward_survive", "distance_penalty", "velocity_penalty"});
  }

  explicit InvertedDoublePendulum(const Config& config)
      : MujocoEnv(config),
        healthy_reward_(config.Get<double>("healthy_reward")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")) {
    if (m_->nq != 3 || m_->nv != 3 || m_->nsite < 1) {
      throw std::invalid_argument("InvertedDoublePendulum needs a model with nq = nv = 3 and a site");
    }
  }

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    NormalNoise(rng, data_->qvel, init_qvel_, reset_noise_scale_);
    Forward();
    WriteObs(out);
    WriteInfo(out, {0.0, 0.0, 0.0});
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    DoSimulation(action.Get<float>());
    const double x = data_->site_xpos[0], y = data_->site_xpos[2];
    WriteObs(out);
    const bool terminated = y <= 1;
    const double v1 = data_->qvel[1], v2 = data_->qvel[2];
    const double dist_penalty = 0.01 * NumpyPow2(x) + NumpyPow2(y - 2);
    const double vel_penalty = 0.001 * NumpyPow2(v1) + 0.005 * NumpyPow2(v2);
    const double alive_bonus = healthy_reward_ * (terminated ? 0 : 1);
    out.reward() = alive_bonus - dist_penalty - vel_penalty;
    out.terminated() = terminated;
    WriteInfo(out, {alive_bonus, -dist_penalty, -vel_penalty});
  }

 private:
  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    const double* q = data_->qpos;
    obs[0] = q[0];
    obs[1] = std::sin(q[1]);
    obs[2] = std::sin(q[2]);
    obs[3] = std::cos(q[1]);
    obs[4] = std::cos(q[2]);
    for (int i = 0; i < 3; ++i) obs[5 + i] = Clip(data_->qvel[i], -10.0, 10.0);
    obs[8] = Clip(data_->qfrc_constraint[0], -10.0, 10.0);
  }

  double healthy_reward_, reset_noise_scale_;
};

}  // namespace envpool::mujoco::gym
