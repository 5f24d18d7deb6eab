// dm_control.suite.finger: spin, turn_easy, turn_hard.
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Finger : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("spin", 2, 20.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"spin", "turn_easy", "turn_hard"}, "finger");
    return SuiteModel("finger.xml");
  }
  static EnvSpec Spec(const Config& config) {
    std::vector<ObsField> f = {{"position", {4}}, {"velocity", {3}}, {"touch", {2}}};
    if (config.Get<std::string>("task_name") != "spin") {
      f.push_back({"target_position", {2}});
      f.push_back({"dist_to_target", {}});
    }
    return MakeSpec(Model(config).get(), config, f);
  }
  explicit Finger(const Config& config)
      : DmcEnv(config, Model(config)),
        spin_(config.Get<std::string>("task_name") == "spin"),
        target_radius_(config.Get<std::string>("task_name") == "turn_easy" ? 0.07 : 0.03),
        proximal_(SensorAdr("proximal")),
        distal_(SensorAdr("distal")),
        tip_(SensorAdr("tip")),
        spinner_(SensorAdr("spinner")),
        target_(SensorAdr("target")),
        proximal_velocity_(SensorAdr("proximal_velocity")),
        distal_velocity_(SensorAdr("distal_velocity")),
        hinge_velocity_(SensorAdr("hinge_velocity")),
        touchtop_(SensorAdr("touchtop")),
        touchbottom_(SensorAdr("touchbottom")),
        target_site_(SiteId("target")),
        tip_site_(SiteId("tip")),
        hinge_joint_(Id(m_, mjOBJ_JOINT, "hinge")),
        cap1_(GeomId("cap1")) {}

 protected:
  void InitializeEpisode() override {
    if (spin_) {
      m_->site_rgba[4 * target_site_ + 3] = 0;
      m_->site_rgba[4 * tip_site_ + 3] = 0;
      m_->dof_damping[m_->jnt_dofadr[hinge_joint_]] = .03;
    } else {
      const double target_angle = random_.Uniform(-M_PI, M_PI);
      const double hinge_x = data_->xanchor[3 * hinge_joint_], hinge_z = data_->xanchor[3 * hinge_joint_ + 2];
      const double* size = m_->geom_size + 3 * cap1_;
      const double radius = size[0] + size[1] + size[2];
      m_->site_pos[3 * target_site_] = hinge_x + radius * std::sin(target_angle);
      m_->site_pos[3 * target_site_ + 2] = hinge_z + radius * std::cos(target_angle);
      m_->site_size[3 * target_site_] = target_radius_;
    }
    // _set_random_joint_angles: until no contact, at most 1000 tries.
    for (int attempt = 0;; ++attempt) {
      if (attempt == 1000) throw std::runtime_error("Could not find a collision-free state after 1000 attempts");
      RandomizeLimitedAndRotationalJoints();
      AfterReset();
      if (data_->ncon == 0) break;
    }
  }
  void WriteObservation(ObsWriter& w) const override {
    double* p = w.Next(4);
    p[0] = data_->sensordata[proximal_];
    p[1] = data_->sensordata[distal_];
    TipPosition(p + 2);
    double* v = w.Next(3);
    v[0] = data_->sensordata[proximal_velocity_];
    v[1] = data_->sensordata[distal_velocity_];
    v[2] = data_->sensordata[hinge_velocity_];
    double* t = w.Next(2);
    t[0] = std::log1p(data_->sensordata[touchtop_]);
    t[1] = std::log1p(data_->sensordata[touchbottom_]);
    if (!spin_) {
      TargetPosition(w.Next(2));
      w.Put(DistToTarget());
    }
  }
  double Reward() const override {
    if (spin_) return data_->sensordata[hinge_velocity_] <= -15.0 ? 1.0 : 0.0;
    return DistToTarget() <= 0 ? 1.0 : 0.0;
  }

 private:
  void TipPosition(double* out) const {
    out[0] = data_->sensordata[tip_] - data_->sensordata[spinner_];
    out[1] = data_->sensordata[tip_ + 2] - data_->sensordata[spinner_ + 2];
  }
  void TargetPosition(double* out) const {
    out[0] = data_->sensordata[target_] - data_->sensordata[spinner_];
    out[1] = data_->sensordata[target_ + 2] - data_->sensordata[spinner_ + 2];
  }
  double DistToTarget() const {
    double tip[2], target[2], d[2];
    TipPosition(tip);
    TargetPosition(target);
    for (int i = 0; i < 2; ++i) d[i] = target[i] - tip[i];
    return Norm(d, 2) - m_->site_size[3 * target_site_];
  }
  bool spin_;
  double target_radius_;
  int proximal_, distal_, tip_, spinner_, target_, proximal_velocity_, distal_velocity_, hinge_velocity_, touchtop_,
      touchbottom_, target_site_, tip_site_, hinge_joint_, cap1_;
};

}  // namespace envpool::mujoco::dmc
