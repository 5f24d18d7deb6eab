// dm_control.suite.hopper: stand, hop.
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Hopper : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("stand", 4, 20.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"stand", "hop"}, "hopper");
    return SuiteModel("hopper.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"position", {m->nq - 1}}, {"velocity", {m->nv}}, {"touch", {2}}});
  }
  explicit Hopper(const Config& config)
      : DmcEnv(config, Model(config)),
        hopping_(config.Get<std::string>("task_name") == "hop"),
        torso_(BodyId("torso")),
        foot_(BodyId("foot")),
        speed_(SensorAdr("torso_subtreelinvel")),
        toe_(SensorAdr("touch_toe")),
        heel_(SensorAdr("touch_heel")) {}

 protected:
  void InitializeEpisode() override { RandomizeLimitedAndRotationalJoints(); }
  void WriteObservation(ObsWriter& w) const override {
    w.Put(data_->qpos + 1, m_->nq - 1);
    w.Put(data_->qvel, m_->nv);
    double* t = w.Next(2);
    t[0] = std::log1p(data_->sensordata[toe_]);
    t[1] = std::log1p(data_->sensordata[heel_]);
  }
  double Reward() const override {
    const double height = data_->xipos[3 * torso_ + 2] - data_->xipos[3 * foot_ + 2];
    const double standing = Tolerance(height, 0.6, 2);
    if (hopping_) {
      return standing * Tolerance(data_->sensordata[speed_], 2, INFINITY, 1, Sigmoid::kLinear, 0.5);
    }
    const double mean = NumpySum<double>(m_->nu,
                                         [this](std::size_t i) {
                                           return Tolerance(data_->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0, false);
                                         }) /
                        m_->nu;
    return standing * ((mean + 4) / 5);
  }

 private:
  bool hopping_;
  int torso_, foot_, speed_, toe_, heel_;
};

}  // namespace envpool::mujoco::dmc
