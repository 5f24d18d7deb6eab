// Reacher-v5 and -v4: gymnasium.envs.mujoco.reacher_v5 / reacher_v4.ReacherEnv.
// v4 takes none of v5's kwargs (its weights are 1, v5's defaults), computes its reward from the
// state before the step (v5: after it) and observes the fingertip-to-target vector's z as well
// (11 values; v5: 10).
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class ReacherEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("reacher.xml", 2, {"trackbodyid=0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    if constexpr (V == Version::kV4) return c;
    c.Set("reward_dist_weight", 1.0);
    c.Set("reward_control_weight", 1.0);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    return MakeSpec(config, m.get(), 8 + kDistanceAxes, {"reward_dist", "reward_ctrl"});
  }

  explicit ReacherEnv(const Config& config)
      : MujocoEnv(config),
        reward_dist_weight_(V == Version::kV5 ? config.Get<double>("reward_dist_weight") : 1.0),
        reward_control_weight_(V == Version::kV5 ? config.Get<double>("reward_control_weight") : 1.0),
        fingertip_(BodyId(m_, "fingertip")),
        target_(BodyId(m_, "target")) {
    if (m_->nq != 4 || m_->nv != 4) throw std::invalid_argument("Reacher needs a model with nq = nv = 4");
  }

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    double* qpos = data_->qpos;
    double* qvel = data_->qvel;
    UniformNoise(rng, qpos, init_qpos_, -0.1, 0.1);
    double goal[2];
    do {
      goal[0] = rng.Uniform(-0.2, 0.2);
      goal[1] = rng.Uniform(-0.2, 0.2);
    } while (!(Norm(goal, 2) < 0.2));
    qpos[m_->nq - 2] = goal[0];
    qpos[m_->nq - 1] = goal[1];
    UniformNoise(rng, qvel, init_qvel_, -0.005, 0.005);
    qvel[m_->nv - 2] = qvel[m_->nv - 1] = 0.0;
    Forward();
    WriteObs(out);
    WriteInfo(out, {0.0, 0.0});
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float* a = action.Get<float>();
    if constexpr (V == Version::kV4) Reward(a, out);
    DoSimulation(a);
    WriteObs(out);
    if constexpr (V == Version::kV5) Reward(a, out);
    out.terminated() = false;
  }

 private:
  static constexpr int kDistanceAxes = V == Version::kV4 ? 3 : 2;  // of fingertip - target observed

  // reward_dist (the fingertip's distance to the target) and reward_ctrl, in the current state.
  void Reward(const float* a, Output& out) const {
    double vec[3];
    for (int j = 0; j < 3; ++j) vec[j] = data_->xpos[3 * fingertip_ + j] - data_->xpos[3 * target_ + j];
    const double reward_dist = -Norm(vec, 3) * reward_dist_weight_;
    const float reward_ctrl = -NumpySum<float>(static_cast<std::size_t>(m_->nu), [a](std::size_t i) {
      return a[i] * a[i];
    }) * static_cast<float>(reward_control_weight_);
    out.reward() = reward_dist + reward_ctrl;
    WriteInfo(out, {reward_dist, reward_ctrl});
  }

  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    const double* qpos = data_->qpos;
    obs[0] = std::cos(qpos[0]);
    obs[1] = std::cos(qpos[1]);
    obs[2] = std::sin(qpos[0]);
    obs[3] = std::sin(qpos[1]);
    obs[4] = qpos[2];
    obs[5] = qpos[3];
    obs[6] = data_->qvel[0];
    obs[7] = data_->qvel[1];
    for (int j = 0; j < kDistanceAxes; ++j) obs[8 + j] = data_->xpos[3 * fingertip_ + j] - data_->xpos[3 * target_ + j];
  }

  double reward_dist_weight_, reward_control_weight_;
  int fingertip_, target_;
};

using Reacher = ReacherEnv<Version::kV5>;
using ReacherV4 = ReacherEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
