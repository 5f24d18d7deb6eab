// Humanoid-v5 and -v4: gymnasium.envs.mujoco.humanoid_v5 / humanoid_v4.HumanoidEnv.
// HumanoidObservation is shared with HumanoidStandup.
//
// v4 differs from v5 in: its observation (always all of cinert, cvel, qfrc_actuator and cfrc_ext,
// the world body's and the free joint's entries included: 376 values), its reward (no contact
// cost), its healthy reward (HealthyReward), its kwargs (none for the contact cost or the
// observation's parts) and its info (x_position / y_position are the centre of mass's, no
// tendon arrays).
#pragma once

#include "envs/mujoco/gym/mujoco_env.h"

namespace envpool::mujoco::gym {

// Humanoid(Standup)'s observation: qpos (without x, y by default), qvel, then cinert, cvel,
// qfrc_actuator and cfrc_ext: v5 leaves out the world body's and the free joint's entries and
// takes each part optionally; v4 takes all of them, always.
struct HumanoidObservation {
  int skip;
  bool cinert, cvel, qfrc_actuator, cfrc_ext;
  int first_body, first_dof;  // 1 and 6 in v5 (world body and free joint left out), 0 and 0 in v4

  // HumanoidStandup-v4 takes no exclude_current_positions_from_observation: x, y are left out.
  HumanoidObservation(const Config& c, Version v)
      : skip(!c.Has("exclude_current_positions_from_observation") ||
                     c.Get<bool>("exclude_current_positions_from_observation")
                 ? 2
                 : 0),
        cinert(v == Version::kV4 || c.Get<bool>("include_cinert_in_observation")),
        cvel(v == Version::kV4 || c.Get<bool>("include_cvel_in_observation")),
        qfrc_actuator(v == Version::kV4 || c.Get<bool>("include_qfrc_actuator_in_observation")),
        cfrc_ext(v == Version::kV4 || c.Get<bool>("include_cfrc_ext_in_observation")),
        first_body(v == Version::kV4 ? 0 : 1),
        first_dof(v == Version::kV4 ? 0 : 6) {}

  // v5's kwargs for the observation (v4 has only exclude_current_positions_from_observation).
  static void AddDefaults(Config& c, Version v) {
    c.Set("exclude_current_positions_from_observation", true);
    if (v == Version::kV4) return;
    c.Set("include_cinert_in_observation", true);
    c.Set("include_cvel_in_observation", true);
    c.Set("include_qfrc_actuator_in_observation", true);
    c.Set("include_cfrc_ext_in_observation", true);
  }

  int Size(const mjModel* m) const {
    const int bodies = m->nbody - first_body;
    return m->nq + m->nv - skip + (cinert ? bodies * 10 : 0) + (cvel ? bodies * 6 : 0) +
           (qfrc_actuator ? m->nv - first_dof : 0) + (cfrc_ext ? bodies * 6 : 0);
  }

  void Write(const mjModel* m, const mjData* d, double* obs) const {
    obs = std::copy(d->qpos + skip, d->qpos + m->nq, obs);
    obs = std::copy(d->qvel, d->qvel + m->nv, obs);
    if (cinert) obs = std::copy(d->cinert + 10 * first_body, d->cinert + 10 * m->nbody, obs);
    if (cvel) obs = std::copy(d->cvel + 6 * first_body, d->cvel + 6 * m->nbody, obs);
    if (qfrc_actuator) obs = std::copy(d->qfrc_actuator + first_dof, d->qfrc_actuator + m->nv, obs);
    if (cfrc_ext) std::copy(d->cfrc_ext + 6 * first_body, d->cfrc_ext + 6 * m->nbody, obs);
  }

  // info["tendon_length"], info["tendon_velocity"]: float64 arrays of ntendon values.
  static std::vector<ArraySpec> TendonInfo(const mjModel* m) {
    return {ArraySpec::Box("tendon_length", DType::kFloat64, {static_cast<int>(m->ntendon)}, {}, {}),
            ArraySpec::Box("tendon_velocity", DType::kFloat64, {static_cast<int>(m->ntendon)}, {}, {})};
  }
  static void WriteTendons(const mjModel* m, const mjData* d, Output& out, std::size_t first) {
    std::copy(d->ten_length, d->ten_length + m->ntendon, out.Info<double>(first));
    std::copy(d->ten_velocity, d->ten_velocity + m->ntendon, out.Info<double>(first + 1));
  }
};

template <Version V>
class HumanoidEnv : public MujocoEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig(
        "humanoid.xml", 5,
        {"trackbodyid=1", "distance=4.0", "lookat=0.0 0.0 2.0", "elevation=-20.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("forward_reward_weight", 1.25);
    c.Set("ctrl_cost_weight", 0.1);
    if constexpr (V == Version::kV5) {
      c.Set("contact_cost_weight", 5e-7);
      c.Set("contact_cost_range", std::vector<double>{-INFINITY, 10.0});
    }
    c.Set("healthy_reward", 5.0);
    c.Set("terminate_when_unhealthy", true);
    c.Set("healthy_z_range", std::vector<double>{1.0, 2.0});
    c.Set("reset_noise_scale", 1e-2);
    HumanoidObservation::AddDefaults(c, V);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = SpecModel(config);
    const int size = HumanoidObservation(config, V).Size(m.get());
    if constexpr (V == Version::kV4) {
      return MakeSpec(config, m.get(), size,
                      {"reward_linvel", "reward_quadctrl", "reward_alive", "x_position", "y_position",
                       "distance_from_origin", "x_velocity", "y_velocity", "forward_reward"});
    }
    return MakeSpec(config, m.get(), size,
                    {"x_position", "y_position", "distance_from_origin", "x_velocity", "y_velocity", "reward_survive",
                     "reward_forward", "reward_ctrl", "reward_contact"},
                    HumanoidObservation::TendonInfo(m.get()));
  }

  explicit HumanoidEnv(const Config& config)
      : MujocoEnv(config),
        forward_reward_weight_(config.Get<double>("forward_reward_weight")),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        contact_cost_weight_(V == Version::kV5 ? config.Get<double>("contact_cost_weight") : 0.0),
        contact_cost_range_(V == Version::kV5 ? Range(config, "contact_cost_range") : std::pair<double, double>{}),
        healthy_reward_(config.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(config.Get<bool>("terminate_when_unhealthy")),
        z_range_(Range(config, "healthy_z_range")),
        reset_noise_scale_(config.Get<double>("reset_noise_scale")),
        obs_(config, V) {
    total_mass_ =
        NumpySum<double>(static_cast<std::size_t>(m_->nbody), [this](std::size_t b) { return m_->body_mass[b]; });
  }

  void Reset(Rng& rng, Output& out) override {
    ResetData();
    UniformNoise(rng, data_->qpos, init_qpos_, -reset_noise_scale_, reset_noise_scale_);
    UniformNoise(rng, data_->qvel, init_qvel_, -reset_noise_scale_, reset_noise_scale_);
    Forward();
    obs_.Write(m_, data_, out.Obs<double>());
    if constexpr (V == Version::kV5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
      HumanoidObservation::WriteTendons(m_, data_, out, 9);
    } else {  // gymnasium's v4 reset info is empty
      double xy[2];
      MassCenter(xy);
      WriteInfo(out, {0.0, 0.0, 0.0, xy[0], xy[1], Norm(xy, 2), 0.0, 0.0, 0.0});
    }
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    double before[2], after[2];
    MassCenter(before);
    DoSimulation(action.Get<float>());
    MassCenter(after);
    const double x_velocity = (after[0] - before[0]) / Dt();
    const double y_velocity = (after[1] - before[1]) / Dt();
    obs_.Write(m_, data_, out.Obs<double>());
    const bool healthy = z_range_.first < data_->qpos[2] && data_->qpos[2] < z_range_.second;
    const double forward_reward = forward_reward_weight_ * x_velocity;
    const double healthy_reward = HealthyReward(V, healthy, terminate_when_unhealthy_, healthy_reward_);
    const double ctrl_cost = ctrl_cost_weight_ * SquaredSum(data_->ctrl, static_cast<std::size_t>(m_->nu));
    out.terminated() = !healthy && terminate_when_unhealthy_;
    if constexpr (V == Version::kV4) {
      out.reward() = (forward_reward + healthy_reward) - ctrl_cost;
      WriteInfo(out, {forward_reward, -ctrl_cost, healthy_reward, after[0], after[1], Norm(after, 2), x_velocity,
                      y_velocity, forward_reward});
      return;
    }
    const double contact_cost =
        Clip(contact_cost_weight_ * SquaredSum(data_->cfrc_ext, static_cast<std::size_t>(6 * m_->nbody)),
             contact_cost_range_.first, contact_cost_range_.second);
    out.reward() = (forward_reward + healthy_reward) - (ctrl_cost + contact_cost);
    WriteInfo(out, {data_->qpos[0], data_->qpos[1], Norm(data_->qpos, 2), x_velocity, y_velocity, healthy_reward,
                    forward_reward, -ctrl_cost, -contact_cost});
    HumanoidObservation::WriteTendons(m_, data_, out, 9);
  }

 private:
  // gymnasium's mass_center: sum_b body_mass[b] * xipos[b] / sum_b body_mass[b], (x, y).
  void MassCenter(double xy[2]) const {
    for (int j = 0; j < 2; ++j) {
      double num = 0.0;
      for (int b = 0; b < m_->nbody; ++b) num += m_->body_mass[b] * data_->xipos[3 * b + j];
      xy[j] = num / total_mass_;
    }
  }

  double forward_reward_weight_, ctrl_cost_weight_, contact_cost_weight_;
  std::pair<double, double> contact_cost_range_;
  double healthy_reward_;
  bool terminate_when_unhealthy_;
  std::pair<double, double> z_range_;
  double reset_noise_scale_;
  HumanoidObservation obs_;
  double total_mass_ = 0.0;
};

using Humanoid = HumanoidEnv<Version::kV5>;
using HumanoidV4 = HumanoidEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
