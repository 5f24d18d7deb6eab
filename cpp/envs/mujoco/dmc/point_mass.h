// dm_control.suite.point_mass: easy, hard (hard draws new actuator directions in the model).
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class PointMass : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("easy", 1, 20.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"easy", "hard"}, "point_mass");
    return SuiteModel("point_mass.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"position", {m->nq}}, {"velocity", {m->nv}}});
  }
  explicit PointMass(const Config& config)
      : DmcEnv(config, Model(config)),
        randomize_gains_(config.Get<std::string>("task_name") == "hard"),
        target_(GeomId("target")),
        pointmass_(GeomId("pointmass")) {}

 protected:
  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints();
    if (!randomize_gains_) return;
    double dir1[2], dir2[2];
    UnitDirection(dir1);
    do {
      UnitDirection(dir2);
    } while (std::abs(dir1[0] * dir2[0] + dir1[1] * dir2[1]) > 0.9);
    m_->wrap_prm[0] = dir1[0];
    m_->wrap_prm[1] = dir1[1];
    m_->wrap_prm[2] = dir2[0];
    m_->wrap_prm[3] = dir2[1];
  }
  void WriteObservation(ObsWriter& w) const override {
    w.Put(data_->qpos, m_->nq);
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override {
    const double target_size = m_->geom_size[3 * target_];
    double d[3];
    for (int i = 0; i < 3; ++i) d[i] = data_->geom_xpos[3 * target_ + i] - data_->geom_xpos[3 * pointmass_ + i];
    const double near_target = Tolerance(Norm(d, 3), 0, target_size, target_size);
    const double control = NumpySum<double>(m_->nu,
                                            [this](std::size_t i) {
                                              return Tolerance(data_->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0, false);
                                            }) /
                           m_->nu;
    return near_target * ((control + 4) / 5);
  }

 private:
  void UnitDirection(double* dir) {
    dir[0] = random_.Normal();
    dir[1] = random_.Normal();
    const double norm = Norm(dir, 2);
    dir[0] /= norm;
    dir[1] /= norm;
  }
  bool randomize_gains_;
  int target_, pointmass_;
};

}  // namespace envpool::mujoco::dmc
