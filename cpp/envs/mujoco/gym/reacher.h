// Reacher-v5: gymnasium.envs.mujoco.reacher_v5.ReacherEnv.
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

class Reacher : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("reacher.xml", 2, {"trackbodyid=0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("reward_dist_weight", 1.0);
    c.Set("reward_control_weight", 1.0);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    return MakeSpec(config, m.get(), 10, {"reward_dist", "reward_ctrl"});
  }

  explicit Reacher(const Config& config)
      : MujocoEnv(config),
        reward_dist_weight_(config.Get<double>("reward_dist_weight")),
        reward_control_weight_(config.Get<double>("reward_control_weight")),
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
    DoSimulation(a);
    WriteObs(out);
    double vec[3];
    for (int j = 0; j < 3; ++j) vec[j] = data_->xpos[3 * fingertip_ + j] - data_->xpos[3 * target_ + j];
    const double reward_dist = -Norm(vec, 3) * reward_dist_weight_;
    const float reward_ctrl = -NumpySum<float>(static_cast<std::size_t>(m_->nu), [a](std::size_t i) {
      return a[i] * a[i];
    }) * static_cast<float>(reward_control_weight_);
    out.reward() = reward_dist + reward_ctrl;
    out.terminated() = false;
    WriteInfo(out, {reward_dist, reward_ctrl});
  }

 private:
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
    for (int j = 0; j < 2; ++j) obs[8 + j] = data_->xpos[3 * fingertip_ + j] - data_->xpos[3 * target_ + j];
  }

  double reward_dist_weight_, reward_control_weight_;
  int fingertip_, target_;
};

}  // namespace envpool::mujoco::gym
