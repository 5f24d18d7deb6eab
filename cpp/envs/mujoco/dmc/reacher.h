// dm_control.suite.reacher: easy, hard (the target moves in the model at every episode).
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Reacher : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("easy", 1, 20.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"easy", "hard"}, "reacher");
    return SuiteModel("reacher.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"position", {m->nq}}, {"to_target", {2}}, {"velocity", {m->nv}}});
  }
  explicit Reacher(const Config& config)
      : DmcEnv(config, Model(config)),
        target_size_(config.Get<std::string>("task_name") == "easy" ? .05 : .015),
        target_(GeomId("target")),
        finger_(GeomId("finger")) {}

 protected:
  void InitializeEpisode() override {
    m_->geom_size[3 * target_] = target_size_;
    RandomizeLimitedAndRotationalJoints();
    const double angle = random_.Uniform(0, 2 * M_PI);
    const double radius = random_.Uniform(.05, .20);
    m_->geom_pos[3 * target_] = radius * std::sin(angle);
    m_->geom_pos[3 * target_ + 1] = radius * std::cos(angle);
  }
  void WriteObservation(ObsWriter& w) const override {
    w.Put(data_->qpos, m_->nq);
    double* d = w.Next(2);
    ToTarget(d);
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override {
    const double radii = m_->geom_size[3 * target_] + m_->geom_size[3 * finger_];
    double d[2];
    ToTarget(d);
    return Tolerance(Norm(d, 2), 0, radii);
  }

 private:
  void ToTarget(double* d) const {
    for (int i = 0; i < 2; ++i) d[i] = data_->geom_xpos[3 * target_ + i] - data_->geom_xpos[3 * finger_ + i];
  }
  double target_size_;
  int target_, finger_;
};

}  // namespace envpool::mujoco::dmc
