// dm_control.suite.pendulum: swingup.
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Pendulum : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("swingup", 1, 20.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"swingup"}, "pendulum");
    return SuiteModel("pendulum.xml");
  }
  static EnvSpec Spec(const Config& config) {
    return MakeSpec(Model(config).get(), config, {{"orientation", {2}}, {"velocity", {1}}});
  }
  explicit Pendulum(const Config& config)
      : DmcEnv(config, Model(config)),
        pole_(BodyId("pole")),
        hinge_(JointQpos("hinge")),
        hinge_dof_(JointDof("hinge")) {}

 protected:
  void InitializeEpisode() override { data_->qpos[hinge_] = random_.Uniform(-M_PI, M_PI); }
  void WriteObservation(ObsWriter& w) const override {
    double* o = w.Next(2);
    o[0] = Xmat(pole_, kZZ);
    o[1] = Xmat(pole_, kXZ);
    w.Put(data_->qvel[hinge_dof_]);
  }
  double Reward() const override {
    // np.cos(np.deg2rad(8)): deg2rad multiplies by pi / 180.
    static const double kCosineBound = std::cos(8.0 * (M_PI / 180.0));
    return Tolerance(Xmat(pole_, kZZ), kCosineBound, 1);
  }

 private:
  int pole_, hinge_, hinge_dof_;
};

}  // namespace envpool::mujoco::dmc
