// dm_control.suite.cheetah: run.
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Cheetah : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("run", 1, 10.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"run"}, "cheetah");
    return SuiteModel("cheetah.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config, {{"position", {m->nq - 1}}, {"velocity", {m->nv}}});
  }
  explicit Cheetah(const Config& config) : DmcEnv(config, Model(config)), speed_(SensorAdr("torso_subtreelinvel")) {}

 protected:
  void InitializeEpisode() override {
    // qpos[is_limited] = uniform(lower, upper) (nq == njnt), then 200 physics steps.
    for (int j = 0; j < m_->njnt; ++j) {
      if (m_->jnt_limited[j] == 1) data_->qpos[j] = random_.Uniform(m_->jnt_range[2 * j], m_->jnt_range[2 * j + 1]);
    }
    PhysicsStep(200);
    data_->time = 0;
  }
  void WriteObservation(ObsWriter& w) const override {
    w.Put(data_->qpos + 1, m_->nq - 1);
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override { return Tolerance(data_->sensordata[speed_], 10, INFINITY, 10, Sigmoid::kLinear, 0); }

 private:
  int speed_;
};

}  // namespace envpool::mujoco::dmc
