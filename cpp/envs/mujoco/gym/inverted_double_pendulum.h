// InvertedDoublePendulum-v5 and -v4: gymnasium.envs.mujoco.inverted_double_pendulum_v5 / _v4.
// v4 takes none of v5's kwargs (its values are v5's defaults), observes all three entries of
// qfrc_constraint (11 values; v5: the first, 9 values), pays its healthy reward of 10 on every
// step, the terminating one included, has an empty info, and a default camera (v5: none).
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class InvertedDoublePendulumEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    if constexpr (V == Version::kV4) {  // inverted_double_pendulum_v4's DEFAULT_CAMERA_CONFIG
      return BaseConfig("inverted_double_pendulum.xml", 5,
                        {"trackbodyid=0", "distance=4.1225", "lookat=0.0 0.0 0.12250000000000005"});
    }
    Config c = BaseConfig("inverted_double_pendulum.xml", 5);  // default_camera_config=None in gymnasium
    c.Set("healthy_reward", 10.0);
    c.Set("reset_noise_scale", 0.1);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    if constexpr (V == Version::kV4) return MakeSpec(config, m.get(), 8 + kConstraints, {});
    return MakeSpec(config, m.get(), 8 + kConstraints, {"reward_survive", "distance_penalty", "velocity_penalty"});
  }

  explicit InvertedDoublePendulumEnv(const Config& config)
      : MujocoEnv(config),
        healthy_reward_(V == Version::kV5 ? config.Get<double>("healthy_reward") : 10.0),
        reset_noise_scale_(V == Version::kV5 ? config.Get<double>("reset_noise_scale") : 0.1) {
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
    if constexpr (V == Version::kV5) WriteInfo(out, {0.0, 0.0, 0.0});
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    DoSimulation(action.Get<float>());
    const double x = data_->site_xpos[0], y = data_->site_xpos[2];
    WriteObs(out);
    const bool terminated = y <= 1;
    const double v1 = data_->qvel[1], v2 = data_->qvel[2];
    const double dist_penalty = 0.01 * NumpyPow2(x) + NumpyPow2(y - 2);
    const double vel_penalty = 0.001 * NumpyPow2(v1) + 0.005 * NumpyPow2(v2);
    const double alive_bonus = V == Version::kV4 || !terminated ? healthy_reward_ : 0.0;
    out.reward() = alive_bonus - dist_penalty - vel_penalty;
    out.terminated() = terminated;
    if constexpr (V == Version::kV5) WriteInfo(out, {alive_bonus, -dist_penalty, -vel_penalty});
  }

 private:
  static constexpr int kConstraints = V == Version::kV4 ? 3 : 1;  // qfrc_constraint entries observed

  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    const double* q = data_->qpos;
    obs[0] = q[0];
    obs[1] = std::sin(q[1]);
    obs[2] = std::sin(q[2]);
    obs[3] = std::cos(q[1]);
    obs[4] = std::cos(q[2]);
    for (int i = 0; i < 3; ++i) obs[5 + i] = Clip(data_->qvel[i], -10.0, 10.0);
    for (int i = 0; i < kConstraints; ++i) obs[8 + i] = Clip(data_->qfrc_constraint[i], -10.0, 10.0);
  }

  double healthy_reward_, reset_noise_scale_;
};

using InvertedDoublePendulum = InvertedDoublePendulumEnv<Version::kV5>;
using InvertedDoublePendulumV4 = InvertedDoublePendulumEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
