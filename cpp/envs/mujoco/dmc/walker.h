// dm_control.suite.walker: stand, walk, run.
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Walker : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("stand", 10, 25.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"stand", "walk", "run"}, "walker");
    return SuiteModel("walker.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"orientations", {2 * (m->nbody - 1)}}, {"height", {}}, {"velocity", {m->nv}}});
  }
  explicit Walker(const Config& config)
      : DmcEnv(config, Model(config)), torso_(BodyId("torso")), speed_(SensorAdr("torso_subtreelinvel")) {
    const std::string t = config.Get<std::string>("task_name");
    move_speed_ = t == "stand" ? 0 : t == "walk" ? 1 : 8;
  }

 protected:
  void InitializeEpisode() override { RandomizeLimitedAndRotationalJoints(); }
  void WriteObservation(ObsWriter& w) const override {
    double* o = w.Next(2 * (m_->nbody - 1));
    for (int b = 1; b < m_->nbody; ++b) {
      o[2 * (b - 1)] = Xmat(b, kXX);
      o[2 * (b - 1) + 1] = Xmat(b, kXZ);
    }
    w.Put(Height());
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override {
    const double standing = Tolerance(Height(), 1.2, INFINITY, 1.2 / 2);
    const double upright = (1 + Xmat(torso_, kZZ)) / 2;
    const double stand_reward = (3 * standing + upright) / 4;
    if (move_speed_ == 0) return stand_reward;
    const double move =
        Tolerance(data_->sensordata[speed_], move_speed_, INFINITY, move_speed_ / 2.0, Sigmoid::kLinear, 0.5);
    return stand_reward * (5 * move + 1) / 6;
  }

 private:
  double Height() const { return data_->xpos[3 * torso_ + 2]; }
  int torso_, speed_, move_speed_;
};

}  // namespace envpool::mujoco::dmc
