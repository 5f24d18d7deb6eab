// dm_control.suite.acrobot: swingup, swingup_sparse.
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Acrobot : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("swingup", 1, 10.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"swingup", "swingup_sparse"}, "acrobot");
    return SuiteModel("acrobot.xml");
  }
  static EnvSpec Spec(const Config& config) {
    return MakeSpec(Model(config).get(), config, {{"orientations", {4}}, {"velocity", {2}}});
  }
  explicit Acrobot(const Config& config)
      : DmcEnv(config, Model(config)),
        sparse_(config.Get<std::string>("task_name") == "swingup_sparse"),
        upper_(BodyId("upper_arm")),
        lower_(BodyId("lower_arm")),
        shoulder_(JointQpos("shoulder")),
        elbow_(JointQpos("elbow")),
        target_(SiteId("target")),
        tip_(SiteId("tip")) {}

 protected:
  void InitializeEpisode() override {
    data_->qpos[shoulder_] = random_.Uniform(-M_PI, M_PI);
    data_->qpos[elbow_] = random_.Uniform(-M_PI, M_PI);
  }
  void WriteObservation(ObsWriter& w) const override {
    double* o = w.Next(4);
    o[0] = Xmat(upper_, kXZ);
    o[1] = Xmat(lower_, kXZ);
    o[2] = Xmat(upper_, kZZ);
    o[3] = Xmat(lower_, kZZ);
    w.Put(data_->qvel, 2);
  }
  double Reward() const override {
    double d[3];
    for (int i = 0; i < 3; ++i) d[i] = data_->site_xpos[3 * target_ + i] - data_->site_xpos[3 * tip_ + i];
    return Tolerance(Norm(d, 3), 0, m_->site_size[3 * target_], sparse_ ? 0 : 1);
  }

 private:
  bool sparse_;
  int upper_, lower_, shoulder_, elbow_, target_, tip_;
};

}  // namespace envpool::mujoco::dmc
