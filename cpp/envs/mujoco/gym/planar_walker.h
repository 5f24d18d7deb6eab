// The base of gymnasium's two planar walkers, Hopper and Walker2d, v5 and v4 (hopper_v5.py,
// walker2d_v5.py, hopper_v4.py, walker2d_v4.py): the same kwargs, reset noise, forward reward,
// health rule and clipped-velocity observation; they differ in model, camera and health ranges
// (Hopper also bounds every state entry but the root's x and z), which each task's DefaultConfig
// sets. v4 differs from v5 in its healthy reward (HealthyReward) and its info (x_position and
// x_velocity only).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

template <Version V>
class PlanarWalker : public MujocoEnv {
 public:
  // The kwargs both share, with the values both default to (each task sets its own ranges).
  static Config WalkerConfig(const std::string& model_file, std::vector<std::string> camera) {
    Config c = BaseConfig(model_file, 4, std::move(camera));
    c.Set("forward_reward_weight", 1.0);
    c.Set("ctrl_cost_weight", 1e-3);
    c.Set("healthy_reward", 1.0);
    c.Set("terminate_when_unhealthy", true);
    c.Set("reset_noise_scale", 5e-3);
    c.Set("exclude_current_positions_from_observation", true);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto model = SpecModel(config);
    const int skip = config.Get<bool>("exclude_current_positions_from_observation") ? 1 : 0;
    return MakeSpec(config, model.get(), model->nq + model->nv - skip, InfoKeys());
  }

  explicit PlanarWalker(const Config& config)
      : MujocoEnv(config),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        healthy_reward_(config.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(config.Get<bool>("terminate_when_unhealthy")),
        bounds_state_(config.Has("healthy_state_range")),
        state_range_(bounds_state_ ? Range(config, "healthy_state_range")
                                   : std::pair<double, double>{-HUGE_VAL, HUGE_VAL}),
        z_range_(Range(config, "healthy_z_range")),
        angle_range_(Range(config, "healthy_angle_range")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        skip_(config.Get<bool>("exclude_current_positions_from_observation") ? 1 : 0) {}

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    UniformNoise(rng, data_->qvel, init_qvel_, -reset_noise_scale_, reset_noise_scale_);
    Forward();
    WriteObs(out);
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1] - init_qpos_[1], 0.0, 0.0, 0.0, 0.0});
    } else {
      WriteInfo(out, {data_->qpos[0], 0.0});  // gymnasium's v4 reset info is empty
    }
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float* a = action.Get<float>();
    const double x_before = data_->qpos[0];
    DoSimulation(a);
    const double x_after = data_->qpos[0];
    const double x_velocity = (x_after - x_before) / Dt();
    WriteObs(out);
    const bool healthy = IsHealthy();
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const double healthy_reward = HealthyReward(V, healthy, terminate_when_unhealthy_, healthy_reward_);
    const double ctrl_cost = ControlCost(a, m_->nu, ctrl_cost_weight_);
    out.reward() = (forward_reward + healthy_reward) - ctrl_cost;
    out.terminated() = !healthy && terminate_when_unhealthy_;
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {x_after, data_->qpos[1] - init_qpos_[1], x_velocity, forward_reward, -ctrl_cost, healthy_reward});
    } else {
      WriteInfo(out, {x_after, x_velocity});
    }
  }

 private:
  static std::vector<std::string> InfoKeys() {
    if constexpr (V == Version::kV4) return {"x_position", "x_velocity"};
    return {"x_position", "z_distance_from_origin", "x_velocity", "reward_forward", "reward_ctrl", "reward_survive"};
  }

  bool IsHealthy() const {
    const double z = data_->qpos[1], angle = data_->qpos[2];
    bool healthy_state = true;
    if (bounds_state_) {
      for (int i = 2; i < m_->nq + m_->nv; ++i) {
        const double s = i < m_->nq ? data_->qpos[i] : data_->qvel[i - m_->nq];
        healthy_state = healthy_state && state_range_.first < s && s < state_range_.second;
      }
    }
    const bool healthy_z = z_range_.first < z && z < z_range_.second;
    const bool healthy_angle = angle_range_.first < angle && angle < angle_range_.second;
    return healthy_state && healthy_z && healthy_angle;
  }

  void WriteObs(Output& out) const {
    double* obs = out.Obs<double>();
    obs = std::copy(data_->qpos + skip_, data_->qpos + m_->nq, obs);
    for (int i = 0; i < m_->nv; ++i) obs[i] = Clip(data_->qvel[i], -10.0, 10.0);
  }

  double forward_reward_weight_, ctrl_cost_weight_, healthy_reward_;
  bool terminate_when_unhealthy_;
  bool bounds_state_;  // Hopper's healthy_state_range (Walker2d has none)
  std::pair<double, double> state_range_, z_range_, angle_range_;
  double reset_noise_scale_;
  int skip_;
};

}  // namespace envpool::mujoco::gym
