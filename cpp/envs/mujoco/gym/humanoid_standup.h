// HumanoidStandup-v5 and -v4: gymnasium.envs.mujoco.humanoidstandup_v5 / humanoidstandup_v4.
// v4 takes none of v5's kwargs (its weights are v5's defaults), observes all of cinert, cvel,
// qfrc_actuator and cfrc_ext with the world body's and the free joint's entries
// (HumanoidObservation) and has only the three reward terms as info.
#pragma once

#include <utility>
#include <vector>

#include "envs/mujoco/gym/humanoid.h"

namespace envpool::mujoco::gym {

template <Version V>
class HumanoidStandupEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("humanoidstandup.xml", 5,
                          {"trackbodyid=1", "distance=4.0", "lookat=0.0 0.0 0.8925",
                           "elevation=-20.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    if constexpr (V == Version::kV4) return c;
    c.Set("uph_cost_weight", 1.0);
    c.Set("ctrl_cost_weight", 0.1);
    c.Set("impact_cost_weight", 5e-7);
    c.Set("impact_cost_range", std::vector<double>{-INFINITY, 10.0});
    c.Set("reset_noise_scale", 1e-2);
    HumanoidObservation::AddDefaults(c, V);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    if constexpr (V == Version::kV4) {
      return MakeSpec(config, m.get(), HumanoidObservation(config, V).Size(m.get()),
                      {"reward_linup", "reward_quadctrl", "reward_impact"});
    }
    return MakeSpec(
        config, m.get(), HumanoidObservation(config, V).Size(m.get()),
        {"x_position", "y_position", "z_distance_from_origin", "reward_linup", "reward_quadctrl", "reward_impact"},
        HumanoidObservation::TendonInfo(m.get()));
  }

  explicit HumanoidStandupEnv(const Config& config)
      : MujocoEnv(config),
        ctrl_cost_weight_(V == Version::kV5 ? config.Get<double>("ctrl_cost_weight") : 0.1),
        impact_cost_weight_(V == Version::kV5 ? config.Get<double>("impact_cost_weight") : 0.5e-6),
        impact_cost_range_(V == Version::kV5 ? Range(config, "impact_cost_range")
                                             : std::pair<double, double>{-INFINITY, 10.0}),
        reset_noise_scale_(V == Version::kV5 ? config.Get<double>("reset_noise_scale") : 0.01),
        obs_(config, V) {}

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    UniformNoise(rng, data_->qvel, init_qvel_, -reset_noise_scale_, reset_noise_scale_);
    Forward();
    obs_.Write(m_, data_, out.Obs<double>());
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], data_->qpos[2] - init_qpos_[2], 0.0, 0.0, 0.0});
      HumanoidObservation::WriteTendons(m_, data_, out, 6);
    } else {
      WriteInfo(out, {0.0, 0.0, 0.0});  // gymnasium's v4 reset info is empty
    }
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    DoSimulation(action.Get<float>());
    // gymnasium computes uph_cost without uph_cost_weight (v5 accepts the kwarg and leaves it unused).
    const double uph_cost = (data_->qpos[2] - 0) / m_->opt.timestep;
    const double quad_ctrl_cost = ctrl_cost_weight_ * SquaredSum(data_->ctrl, static_cast<std::size_t>(m_->nu));
    // v5's np.clip(cost, low, high) and v4's min(cost, 10) agree, NaN included.
    const double quad_impact_cost =
        Clip(impact_cost_weight_ * SquaredSum(data_->cfrc_ext, static_cast<std::size_t>(6 * m_->nbody)),
             impact_cost_range_.first, impact_cost_range_.second);
    out.reward() = uph_cost - quad_ctrl_cost - quad_impact_cost + 1;
    out.terminated() = false;
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], data_->qpos[2] - init_qpos_[2], uph_cost, -quad_ctrl_cost,
                      -quad_impact_cost});
      HumanoidObservation::WriteTendons(m_, data_, out, 6);
    } else {
      WriteInfo(out, {uph_cost, -quad_ctrl_cost, -quad_impact_cost});
    }
    obs_.Write(m_, data_, out.Obs<double>());
  }

 private:
  double ctrl_cost_weight_, impact_cost_weight_;
  std::pair<double, double> impact_cost_range_;
  double reset_noise_scale_;
  HumanoidObservation obs_;
};

using HumanoidStandup = HumanoidStandupEnv<Version::kV5>;
using HumanoidStandupV4 = HumanoidStandupEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
