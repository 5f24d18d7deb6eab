// HumanoidStandup-v5: gymnasium.envs.mujoco.humanoidstandup_v5.HumanoidStandupEnv.
#pragma once

#include "envs/mujoco/gym/humanoid.h"

namespace envpool::mujoco::gym {

class HumanoidStandup : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("humanoidstandup.xml", 5,
                          {"trackbodyid=1", "distance=4.0", "lookat=0.0 0.0 0.8925",
                           "elevation=-20.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("uph_cost_weight", 1.0);
    c.Set("ctrl_cost_weight", 0.1);
    c.Set("impact_cost_weight", 5e-7);
    c.Set("impact_cost_range", std::vector<double>{-INFINITY, 10.0});
    c.Set("reset_noise_scale", 1e-2);
    HumanoidObservation::AddDefaults(c);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    return MakeSpec(
        config, m.get(), HumanoidObservation(config).Size(m.get()),
        {"x_position", "y_position", "z_distance_from_origin", "reward_linup", "reward_quadctrl", "reward_impact"},
        HumanoidObservation::TendonInfo(m.get()));
  }

  explicit HumanoidStandup(const Config& config)
      : MujocoEnv(config),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        impact_cost_weight_(config.Get<double>("impact_cost_weight")),
        impact_cost_range_(Range(config, "impact_cost_range")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        obs_(config) {}

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    UniformNoise(rng, data_->qvel, init_qvel_, -reset_noise_scale_, reset_noise_scale_);
    Forward();
    obs_.Write(m_, data_, out.Obs<double>());
    WriteInfo(out, {data_->qpos[0], data_->qpos[1], data_->qpos[2] - init_qpos_[2], 0.0, 0.0, 0.0});
    HumanoidObservation::WriteTendons(m_, data_, out, 6);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    DoSimulation(action.Get<float>());
    // gymnasium v5 computes uph_cost without uph_cost_weight: the kwarg is accepted and unused.
    const double uph_cost = (data_->qpos[2] - 0) / m_->opt.timestep;
    const double quad_ctrl_cost = ctrl_cost_weight_ * SquaredSum(data_->ctrl, static_cast<std::size_t>(m_->nu));
    const double quad_impact_cost =
        Clip(impact_cost_weight_ * SquaredSum(data_->cfrc_ext, static_cast<std::size_t>(6 * m_->nbody)),
             impact_cost_range_.first, impact_cost_range_.second);
    out.reward() = uph_cost - quad_ctrl_cost - quad_impact_cost + 1;
    out.terminated() = false;
    WriteInfo(out, {data_->qpos[0], data_->qpos[1], data_->qpos[2] - init_qpos_[2], uph_cost, -quad_ctrl_cost,
                    -quad_impact_cost});
    HumanoidObservation::WriteTendons(m_, data_, out, 6);
    obs_.Write(m_, data_, out.Obs<double>());
  }

 private:
  double ctrl_cost_weight_, impact_cost_weight_;
  std::pair<double, double> impact_cost_range_;
  double reset_noise_scale_;
  HumanoidObservation obs_;
};

}  // namespace envpool::mujoco::gym
