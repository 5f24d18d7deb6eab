// Ant-v5 and -v4: gymnasium.envs.mujoco.ant_v5 / ant_v4.AntEnv. `main_body` (v5) is a body name
// or number given as a string ("1", the default, is gymnasium's main_body=1).
//
// v4 differs from v5 in: its kwargs (no forward_reward_weight or main_body: the torso; contact
// forces in the observation and the contact cost in the reward only with use_contact_forces, the
// observation then holding all 14 bodies' clipped cfrc_ext, the world body's too, where v5's
// include_cfrc_ext_in_observation leaves the world body out and always charges the cost), its
// healthy reward (HealthyReward) and its info (x_position / y_position are the torso's, as
// v5's x_velocity is; and with use_contact_forces, reward_ctrl holds minus the contact cost, as
// ant_v4.py writes it).
#pragma once

#include <string>
#include <vector>

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class AntEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("ant.xml", 5, {"distance=4.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    if constexpr (V == Version::kV5) c.Set("forward_reward_weight", 1.0);
    c.Set("ctrl_cost_weight", 0.5);
    if constexpr (V == Version::kV4) c.Set("use_contact_forces", false);
    c.Set("contact_cost_weight", 5e-4);
    c.Set("healthy_reward", 1.0);
    if constexpr (V == Version::kV5) c.Set("main_body", std::string("1"));
    c.Set("terminate_when_unhealthy", true);
    c.Set("healthy_z_range", std::vector<double>{0.2, 1.0});
    c.Set("contact_force_range", std::vector<double>{-1.0, 1.0});
    c.Set("reset_noise_scale", 0.1);
    c.Set("exclude_current_positions_from_observation", true);
    if constexpr (V == Version::kV5) c.Set("include_cfrc_ext_in_observation", true);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    int size = m->nq + m->nv - (config.Get<bool>("exclude_current_positions_from_observation") ? 2 : 0);
    if constexpr (V == Version::kV4) {
      if (config.Get<bool>("use_contact_forces")) size += m->nbody * 6;
      return MakeSpec(config, m.get(), size,
                      {"reward_forward", "reward_ctrl", "reward_survive", "x_position", "y_position",
                       "distance_from_origin", "x_velocity", "y_velocity", "forward_reward"});
    }
    if (config.Get<bool>("include_cfrc_ext_in_observation")) size += (m->nbody - 1) * 6;
    return MakeSpec(config, m.get(), size,
                    {"x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity", "reward_forward",
                     "reward_ctrl", "reward_contact", "reward_survive"});
  }

  explicit AntEnv(const Config& config)
      : MujocoEnv(config),
        forward_reward_weight_(V == Version::kV5 ? config.Get<double>("forward_reward_weight") : 1.0),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        contact_cost_weight_(config.Get<double>("contact_cost_weight")),
        healthy_reward_(config.Get<double>("healthy_reward")),
        main_body_(BodyId(m_, V == Version::kV5 ? config.Get<std::string>("main_body") : std::string("torso"))),
        terminate_when_unhealthy_(config.Get<bool>("terminate_when_unhealthy")),
        z_range_(Range(config, "healthy_z_range")),
        force_range_(Range(config, "contact_force_range")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        skip_(config.Get<bool>("exclude_current_positions_from_observation") ? 2 : 0),
        contact_forces_(static_cast<std::size_t>(m_->nbody) * 6) {
    if constexpr (V == Version::kV4) {
      obs_contact_first_ = config.Get<bool>("use_contact_forces") ? 0 : contact_forces_.size();
      contact_cost_charged_ = config.Get<bool>("use_contact_forces");
    } else {
      obs_contact_first_ = config.Get<bool>("include_cfrc_ext_in_observation") ? 6 : contact_forces_.size();
      contact_cost_charged_ = true;
    }
  }

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    NormalNoise(rng, data_->qvel, init_qvel_, reset_noise_scale_);
    Forward();
    ClipContactForces();
    WriteObs(out);
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
    } else {  // gymnasium's v4 reset info is empty
      const double* xy = data_->xpos + 3 * main_body_;
      WriteInfo(out, {0.0, 0.0, 0.0, xy[0], xy[1], Norm(xy, 2), 0.0, 0.0, 0.0});
    }
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float* a = action.Get<float>();
    const double* xy = data_->xpos + 3 * main_body_;
    const double x_before = xy[0], y_before = xy[1];
    DoSimulation(a);
    const double x_velocity = (xy[0] - x_before) / Dt();
    const double y_velocity = (xy[1] - y_before) / Dt();
    ClipContactForces();
    WriteObs(out);
    const double forward_reward = x_velocity * forward_reward_weight_;
    const bool healthy = IsHealthy();
    const double healthy_reward = HealthyReward(V, healthy, terminate_when_unhealthy_, healthy_reward_);
    const double ctrl_cost = ControlCost(a, m_->nu, ctrl_cost_weight_);
    const double contact_cost =
        contact_cost_charged_ ? contact_cost_weight_ * SquaredSum(contact_forces_.data(), contact_forces_.size()) : 0.0;
    double costs = ctrl_cost;
    if (contact_cost_charged_) costs += contact_cost;
    out.reward() = (forward_reward + healthy_reward) - costs;
    out.terminated() = !healthy && terminate_when_unhealthy_;
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), x_velocity, y_velocity, forward_reward,
                      -ctrl_cost, -contact_cost, healthy_reward});
    } else {
      WriteInfo(out, {forward_reward, contact_cost_charged_ ? -contact_cost : -ctrl_cost, healthy_reward, xy[0], xy[1],
                      Norm(xy, 2), x_velocity, y_velocity, forward_reward});
    }
  }

 private:
  bool IsHealthy() const {
    for (int i = 0; i < m_->nq; ++i) {
      if (!std::isfinite(data_->qpos[i])) return false;
    }
    for (int i = 0; i < m_->nv; ++i) {
      if (!std::isfinite(data_->qvel[i])) return false;
    }
    const double z = data_->qpos[2];
    return z_range_.first <= z && z <= z_range_.second;
  }

  void ClipContactForces() {
    for (std::size_t i = 0; i < contact_forces_.size(); ++i) {
      contact_forces_[i] = Clip(data_->cfrc_ext[i], force_range_.first, force_range_.second);
    }
  }

  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    obs = std::copy(data_->qpos + skip_, data_->qpos + m_->nq, obs);
    obs = std::copy(data_->qvel, data_->qvel + m_->nv, obs);
    std::copy(contact_forces_.begin() + static_cast<std::ptrdiff_t>(obs_contact_first_), contact_forces_.end(), obs);
  }

  double forward_reward_weight_, ctrl_cost_weight_, contact_cost_weight_, healthy_reward_;
  int main_body_;
  bool terminate_when_unhealthy_;
  std::pair<double, double> z_range_, force_range_;
  double reset_noise_scale_;
  int skip_;
  std::vector<double> contact_forces_;  // cfrc_ext clipped to contact_force_range
  // The observation's contact forces start here (the size: none); whether the reward charges them.
  std::size_t obs_contact_first_ = 0;
  bool contact_cost_charged_ = true;
};

using Ant = AntEnv<Version::kV5>;
using AntV4 = AntEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
