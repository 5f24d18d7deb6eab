// Swimmer-v5 and -v4: gymnasium.envs.mujoco.swimmer_v5 / swimmer_v4.SwimmerEnv, which differ
// only in their info (v4 names the forward reward reward_fwd and repeats it as forward_reward)
// and in v4's kwargs being a subset (no xml_file, frame_skip or default_camera_config).
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class SwimmerEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("swimmer.xml", 4);
    c.Set("forward_reward_weight", 1.0);
    c.Set("ctrl_cost_weight", 1e-4);
    c.Set("reset_noise_scale", 0.1);
    c.Set("exclude_current_positions_from_observation", true);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    const int skip = config.Get<bool>("exclude_current_positions_from_observation") ? 2 : 0;
    if constexpr (V == Version::kV4) {
      return MakeSpec(config, m.get(), m->nq + m->nv - skip,
                      {"reward_fwd", "reward_ctrl", "x_position", "y_position", "distance_from_origin", "x_velocity",
                       "y_velocity", "forward_reward"});
    }
    return MakeSpec(config, m.get(), m->nq + m->nv - skip,
                    {"x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity", "reward_forward",
                     "reward_ctrl"});
  }

  explicit SwimmerEnv(const Config& config)
      : MujocoEnv(config),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        skip_(config.Get<bool>("exclude_current_positions_from_observation") ? 2 : 0) {}

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    UniformNoise(rng, data_->qvel, init_qvel_, -reset_noise_scale_, reset_noise_scale_);
    Forward();
    WriteObs(out);
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), 0.0, 0.0, 0.0, 0.0});
    } else {  // gymnasium's v4 reset info is empty
      WriteInfo(out, {0.0, 0.0, data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), 0.0, 0.0, 0.0});
    }
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float* a = action.Get<float>();
    const double x_before = data_->qpos[0], y_before = data_->qpos[1];
    DoSimulation(a);
    const double x_velocity = (data_->qpos[0] - x_before) / Dt();
    const double y_velocity = (data_->qpos[1] - y_before) / Dt();
    WriteObs(out);
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const double ctrl_cost = ControlCost(a, m_->nu, ctrl_cost_weight_);
    out.reward() = forward_reward - ctrl_cost;
    out.terminated() = false;
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), x_velocity, y_velocity, forward_reward,
                      -ctrl_cost});
    } else {
      WriteInfo(out, {forward_reward, -ctrl_cost, data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), x_velocity,
                      y_velocity, forward_reward});
    }
  }

 private:
  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    obs = std::copy(data_->qpos + skip_, data_->qpos + m_->nq, obs);
    std::copy(data_->qvel, data_->qvel + m_->nv, obs);
  }

  double forward_reward_weight_, ctrl_cost_weight_, reset_noise_scale_;
  int skip_;
};

using Swimmer = SwimmerEnv<Version::kV5>;
using SwimmerV4 = SwimmerEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
