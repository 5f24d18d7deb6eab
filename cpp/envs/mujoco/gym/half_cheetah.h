// HalfCheetah-v5 and -v4: gymnasium.envs.mujoco.half_cheetah_v5 / half_cheetah_v4.HalfCheetahEnv.
// The two differ only in one info key's name (v4's reward_run is v5's reward_forward) and in
// v4's kwargs being a subset (it takes no xml_file, frame_skip or default_camera_config; these
// work here as for v5, as the reference EnvPool's v4 accepts them).
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class HalfCheetahEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("half_cheetah.xml", 5, {"distance=4.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("forward_reward_weight", 1.0);
    c.Set("ctrl_cost_weight", 0.1);
    c.Set("reset_noise_scale", 0.1);
    c.Set("exclude_current_positions_from_observation", true);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto model = SpecModel(config);
    const int skip = config.Get<bool>("exclude_current_positions_from_observation") ? 1 : 0;
    return MakeSpec(config, model.get(), model->nq + model->nv - skip,
                    {"x_position", "x_velocity", V == Version::kV5 ? "reward_forward" : "reward_run", "reward_ctrl"});
  }

  explicit HalfCheetahEnv(const Config& config)
      : MujocoEnv(config),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        skip_(config.Get<bool>("exclude_current_positions_from_observation") ? 1 : 0) {}

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    NormalNoise(rng, data_->qvel, init_qvel_, reset_noise_scale_);
    Forward();
    WriteObs(out);
    WriteInfo(out, {data_->qpos[0], 0.0, 0.0, 0.0});
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float* a = action.Get<float>();
    const double x_before = data_->qpos[0];
    DoSimulation(a);
    const double x_after = data_->qpos[0];
    const double x_velocity = (x_after - x_before) / Dt();
    WriteObs(out);
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const double ctrl_cost = ControlCost(a, m_->nu, ctrl_cost_weight_);
    out.reward() = forward_reward - ctrl_cost;
    out.terminated() = false;
    WriteInfo(out, {x_after, x_velocity, forward_reward, -ctrl_cost});
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

using HalfCheetah = HalfCheetahEnv<Version::kV5>;
using HalfCheetahV4 = HalfCheetahEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
