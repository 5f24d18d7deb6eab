// dm_control.suite.humanoid (stand, walk, run, run_pure_state) and humanoid_CMU (stand, walk,
// run): the same task on two bodies (the CMU one names its torso `thorax`, measures uprightness
// by its zy entry, and has 56 actuators).
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

// The names and entries that differ between the two bodies.
struct HumanoidBody {
  const char* torso;
  int upright_entry;  // of the torso's xmat: zz (humanoid) or zy (CMU)
  const char* com_velocity;
  const char* limbs[4];
};
inline constexpr HumanoidBody kHumanoidBody = {
    "torso", 8, "torso_subtreelinvel", {"left_hand", "left_foot", "right_hand", "right_foot"}};
inline constexpr HumanoidBody kCmuBody = {"thorax", 7, "thorax_subtreelinvel", {"lhand", "lfoot", "rhand", "rfoot"}};

class Humanoid : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("stand", 5, 25.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"stand", "walk", "run", "run_pure_state"}, "humanoid");
    return SuiteModel("humanoid.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    if (config.Get<std::string>("task_name") == "run_pure_state") {
      return MakeSpec(m.get(), config, {{"position", {m->nq}}, {"velocity", {m->nv}}});
    }
    return MakeSpec(m.get(), config,
                    {{"joint_angles", {m->nq - 7}},
                     {"head_height", {}},
                     {"extremities", {12}},
                     {"torso_vertical", {3}},
                     {"com_velocity", {3}},
                     {"velocity", {m->nv}}});
  }
  explicit Humanoid(const Config& config) : Humanoid(config, Model(config), kHumanoidBody) {}

 protected:
  Humanoid(const Config& config, const std::shared_ptr<const mjModel>& model, const HumanoidBody& body)
      : DmcEnv(config, model),
        pure_state_(config.Get<std::string>("task_name") == "run_pure_state"),
        torso_(BodyId(body.torso)),
        head_(BodyId("head")),
        com_velocity_(SensorAdr(body.com_velocity)),
        upright_entry_(body.upright_entry) {
    const std::string t = config.Get<std::string>("task_name");
    move_speed_ = t == "stand" ? 0 : t == "walk" ? 1 : 10;
    for (int i = 0; i < 4; ++i) limbs_[i] = BodyId(body.limbs[i]);
  }

 protected:
  void InitializeEpisode() override {
    do {
      RandomizeLimitedAndRotationalJoints();
      AfterReset();
    } while (data_->ncon > 0);
  }
  void WriteObservation(ObsWriter& w) const override {
    if (pure_state_) {
      w.Put(data_->qpos, m_->nq);
      w.Put(data_->qvel, m_->nv);
      return;
    }
    w.Put(data_->qpos + 7, m_->nq - 7);
    w.Put(HeadHeight());
    double* e = w.Next(12);
    const double* frame = data_->xmat + 9 * torso_;
    const double* torso = data_->xpos + 3 * torso_;
    for (int k = 0; k < 4; ++k) {
      double d[3];
      for (int i = 0; i < 3; ++i) d[i] = data_->xpos[3 * limbs_[k] + i] - torso[i];
      for (int j = 0; j < 3; ++j) e[3 * k + j] = d[0] * frame[j] + d[1] * frame[3 + j] + d[2] * frame[6 + j];
    }
    double* v = w.Next(3);
    for (int i = 0; i < 3; ++i) v[i] = data_->xmat[9 * torso_ + 6 + i];
    w.Put(data_->sensordata + com_velocity_, 3);
    w.Put(data_->qvel, m_->nv);
  }
  double Reward() const override {
    const double standing = Tolerance(HeadHeight(), 1.4, INFINITY, 1.4 / 4);
    const double upright = Tolerance(Xmat(torso_, upright_entry_), 0.9, INFINITY, 1.9, Sigmoid::kLinear, 0);
    const double stand_reward = standing * upright;
    const double control = NumpySum<double>(m_->nu,
                                            [this](std::size_t i) {
                                              return Tolerance(data_->ctrl[i], 0, 0, 1, Sigmoid::kQuadratic, 0, false);
                                            }) /
                           m_->nu;
    const double small_control = (4 + control) / 5;
    const double* cv = data_->sensordata + com_velocity_;
    if (move_speed_ == 0) {
      const double dont_move = (Tolerance(cv[0], 0, 0, 2, Sigmoid::kGaussian, .1, false) +
                                Tolerance(cv[1], 0, 0, 2, Sigmoid::kGaussian, .1, false)) /
                               2;
      return small_control * stand_reward * dont_move;
    }
    const double move = Tolerance(Norm(cv, 2), move_speed_, INFINITY, move_speed_, Sigmoid::kLinear, 0);
    return small_control * stand_reward * ((5 * move + 1) / 6);
  }

 private:
  double HeadHeight() const { return data_->xpos[3 * head_ + 2]; }
  bool pure_state_;
  int torso_, head_, com_velocity_, upright_entry_, move_speed_;
  int limbs_[4];
};

class HumanoidCMU : public Humanoid {
 public:
  static Config DefaultConfig() { return BaseConfig("stand", 10, 20.0); }
  static std::shared_ptr<const mjModel> Model(const Config& config) {
    TaskName(config, {"stand", "walk", "run"}, "humanoid_CMU");
    return SuiteModel("humanoid_CMU.xml");
  }
  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    return MakeSpec(m.get(), config,
                    {{"joint_angles", {m->nq - 7}},
                     {"head_height", {}},
                     {"extremities", {12}},
                     {"torso_vertical", {3}},
                     {"com_velocity", {3}},
                     {"velocity", {m->nv}}});
  }
  explicit HumanoidCMU(const Config& config) : Humanoid(config, Model(config), kCmuBody) {}
};

}  // namespace envpool::mujoco::dmc
