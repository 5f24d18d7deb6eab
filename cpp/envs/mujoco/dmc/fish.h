// dm_control.suite.fish: upright, swim (swim moves the target in the model at every episode).
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

class Fish : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("upright", 10, 40.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"upright", "swim"}, "fish");
    return SuiteModel("fish.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    if (config.Get<std::string>("task_name") == "upright") {
      return MakeSpec(m.get(), config, {{"joint_angles", {7}}, {"upright", {}}, {"velocity", {m->nv}}});
    }
    return MakeSpec(m.get(), config, {{"joint_angles", {7}}, {"upright", {}}, {"target", {3}}, {"velocity", {m->nv}}});
  }
  explicit Fish(const Config& config)
      : DmcEnv(config, Model(config)),
        swim_(config.Get<std::string>("task_name") == "swim"),
        torso_(BodyId("torso")),
        root_(JointQpos("root")),
        target_(GeomId("target")),
        mouth_(GeomId("mouth")) {
    const char* joints[] = {"tail1",          "tail_twist",   "tail2",        "finright_roll",
                            "finright_pitch", "finleft_roll", "finleft_pitch"};
    for (int i = 0; i < 7; ++i) {
      joint_qpos_[i] = JointQpos(joints[i]);
    }
  }

 protected:
  void InitializeEpisode() override {
    double quat[4];
    for (double& q : quat) q = random_.Normal();
    const double norm = Norm(quat, 4);
    for (int i = 0; i < 4; ++i) data_->qpos[root_ + 3 + i] = quat[i] / norm;
    for (int q : joint_qpos_) data_->qpos[q] = random_.Uniform(-.2, .2);
    if (swim_) {
      m_->geom_pos[3 * target_] = random_.Uniform(-.4, .4);
      m_->geom_pos[3 * target_ + 1] = random_.Uniform(-.4, .4);
      m_->geom_pos[3 * target_ + 2] = random_.Uniform(.1, .3);
    } else {
      m_->geom_rgba[4 * target_ + 3] = 0;
    }
  }
  void WriteObservation(ObsWriter& w) const override {
    double* a = w.Next(7);
    for (int i = 0; i < 7; ++i) a[i] = data_->qpos[joint_qpos_[i]];
    w.Put(Upright());
    if (swim_) MouthToTarget(w.Next(3));
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override {
    if (!swim_) return Tolerance(Upright(), 1, 1, 1);
    const double radii = m_->geom_size[3 * mouth_] + m_->geom_size[3 * target_];
    double d[3];
    MouthToTarget(d);
    const double in_target = Tolerance(Norm(d, 3), 0, radii, 2 * radii);
    const double is_upright = 0.5 * (Upright() + 1);
    return (7 * in_target + is_upright) / 8;
  }

 private:
  double Upright() const { return Xmat(torso_, kZZ); }
  // (target - mouth) in the mouth's frame: a row vector times geom_xmat (numpy's v.dot(M)).
  void MouthToTarget(double* out) const {
    double g[3];
    for (int i = 0; i < 3; ++i) g[i] = data_->geom_xpos[3 * target_ + i] - data_->geom_xpos[3 * mouth_ + i];
    const double* r = data_->geom_xmat + 9 * mouth_;
    for (int j = 0; j < 3; ++j) out[j] = g[0] * r[j] + g[1] * r[3 + j] + g[2] * r[6 + j];
  }
  bool swim_;
  int torso_, root_, target_, mouth_;
  int joint_qpos_[7];
};

}  // namespace envpool::mujoco::dmc
