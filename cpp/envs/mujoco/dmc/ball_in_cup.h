// dm_control.suite.ball_in_cup: catch.
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class BallInCup : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("catch", 10, 20.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"catch"}, "ball_in_cup");
    return SuiteModel("ball_in_cup.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"position", {m->nq}}, {"velocity", {m->nv}}});
  }
  explicit BallInCup(const Config& config)
      : DmcEnv(config, Model(config)),
        ball_x_(JointQpos("ball_x")),
        ball_z_(JointQpos("ball_z")),
        target_(SiteId("target")),
        ball_(BodyId("ball")),
        ball_geom_(GeomId("ball")) {}

 protected:
  void InitializeEpisode() override {
    do {  // until the ball does not penetrate the cup
      data_->qpos[ball_x_] = random_.Uniform(-.2, .2);
      data_->qpos[ball_z_] = random_.Uniform(.2, .5);
      AfterReset();
    } while (data_->ncon > 0);
  }
  void WriteObservation(ObsWriter& w) const override {
    w.Put(data_->qpos, m_->nq);
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override {
    const double ball_size = m_->geom_size[3 * ball_geom_];
    for (int i : {0, 2}) {
      const double d = std::abs(data_->site_xpos[3 * target_ + i] - data_->xpos[3 * ball_ + i]);
      if (!(d < m_->site_size[3 * target_ + i] - ball_size)) return 0.0;
    }
    return 1.0;
  }

 private:
  int ball_x_, ball_z_, target_, ball_, ball_geom_;
};

}  // namespace envpool::mujoco::dmc
