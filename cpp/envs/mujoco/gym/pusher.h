// Pusher-v5 and -v4: gymnasium.envs.mujoco.pusher_v5 / pusher_v4.PusherEnv.
// v4 runs pusher.xml (v5: pusher_v5.xml, whose object is 500 times heavier: on MuJoCo >= 3 the
// arm passes through pusher.xml's object, which is why gymnasium's v4 class refuses MuJoCo >= 3;
// docs/compat.md), takes none of v5's kwargs (its weights are v5's defaults), computes its reward
// from the state before the step (v5: after it) and reports reward_ctrl unweighted.
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class PusherEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig(V == Version::kV5 ? "pusher_v5.xml" : "pusher.xml", 5,
                          {"trackbodyid=-1", "distance=4.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    if constexpr (V == Version::kV4) return c;
    c.Set("reward_near_weight", 0.5);
    c.Set("reward_dist_weight", 1.0);
    c.Set("reward_control_weight", 0.1);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    if constexpr (V == Version::kV4) return MakeSpec(config, m.get(), 23, {"reward_dist", "reward_ctrl"});
    return MakeSpec(config, m.get(), 23, {"reward_dist", "reward_ctrl", "reward_near"});
  }

  explicit PusherEnv(const Config& config)
      : MujocoEnv(config),
        reward_near_weight_(V == Version::kV5 ? config.Get<double>("reward_near_weight") : 0.5),
        reward_dist_weight_(V == Version::kV5 ? config.Get<double>("reward_dist_weight") : 1.0),
        reward_control_weight_(V == Version::kV5 ? config.Get<double>("reward_control_weight") : 0.1),
        tips_arm_(BodyId(m_, "tips_arm")),
        object_(BodyId(m_, "object")),
        goal_(BodyId(m_, "goal")) {
    if (m_->nq < 7 || m_->nv < 7) throw std::invalid_argument("Pusher needs a model with nq, nv >= 7");
  }

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    double* qpos = data_->qpos;
    double* qvel = data_->qvel;
    std::copy(init_qpos_.begin(), init_qpos_.end(), qpos);
    double cylinder[2];
    do {
      cylinder[0] = rng.Uniform(-0.3, 0.0);
      cylinder[1] = rng.Uniform(-0.2, 0.2);
    } while (!(Norm(cylinder, 2) > 0.17));  // the goal is at (0, 0)
    const int nq = m_->nq, nv = m_->nv;
    qpos[nq - 4] = cylinder[0];
    qpos[nq - 3] = cylinder[1];
    qpos[nq - 2] = qpos[nq - 1] = 0.0;
    UniformNoise(rng, qvel, init_qvel_, -0.005, 0.005);
    for (int i = nv - 4; i < nv; ++i) qvel[i] = 0.0;
    Forward();
    WriteObs(out);
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {0.0, 0.0, 0.0});
    } else {
      WriteInfo(out, {0.0, 0.0});  // gymnasium's v4 reset info is empty
    }
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
  double Pos(int body, int j) const { return data_->xpos[3 * body + j]; }

  // The reward and its info, in the current state: v4's reward_ctrl info is unweighted.
  void Reward(const float* a, Output& out) const {
    double vec1[3], vec2[3];
    for (int j = 0; j < 3; ++j) {
      vec1[j] = Pos(object_, j) - Pos(tips_arm_, j);
      vec2[j] = Pos(object_, j) - Pos(goal_, j);
    }
    const double reward_near = -Norm(vec1, 3) * reward_near_weight_;
    const double reward_dist = -Norm(vec2, 3) * reward_dist_weight_;
    const float squares = NumpySum<float>(static_cast<std::size_t>(m_->nu), [a](std::size_t i) { return a[i] * a[i]; });
    const float reward_ctrl = -squares * static_cast<float>(reward_control_weight_);
    out.reward() = (reward_dist + reward_ctrl) + reward_near;
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {reward_dist, reward_ctrl, reward_near});
    } else {
      WriteInfo(out, {reward_dist, -squares});
    }
  }

  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    obs = std::copy(data_->qpos, data_->qpos + 7, obs);
    obs = std::copy(data_->qvel, data_->qvel + 7, obs);
    for (int body : {tips_arm_, object_, goal_})
      obs = std::copy(data_->xpos + 3 * body, data_->xpos + 3 * body + 3, obs);
  }

  double reward_near_weight_, reward_dist_weight_, reward_control_weight_;
  int tips_arm_, object_, goal_;
};

using Pusher = PusherEnv<Version::kV5>;
using PusherV4 = PusherEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
