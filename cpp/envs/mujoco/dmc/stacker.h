// dm_control.suite.stacker: stack_2, stack_4 (the unused boxes are removed from stacker.xml, as
// dm_control's make_model does).
#pragma once

#include "envs/mujoco/dmc/dmc_env.h"
#include "envs/mujoco/dmc/manipulator.h"  // RemoveBody

namespace envpool::mujoco::dmc {

class Stacker : public DmcEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("stack_2", 10, 10.0);
    c.Set("fully_observable", true);
    return c;
  }

  static int Boxes(const Config& config) {
    return TaskName(config, {"stack_2", "stack_4"}, "stacker") == "stack_2" ? 2 : 4;
  }

  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const int n = Boxes(config);
    return SuiteModel("stacker.xml", std::to_string(n) + " boxes", [n](const std::string& xml) {
      std::string s = xml;
      for (int b = n; b < 4; ++b) RemoveBody(s, "box" + std::to_string(b), "stacker.xml");
      return s;
    });
  }

  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    const int n = Boxes(config);
    std::vector<ObsField> f = {{"arm_pos", {8, 2}}, {"arm_vel", {8}}, {"touch", {m->nsensordata}}};
    if (config.Get<bool>("fully_observable")) {
      f.push_back({"hand_pos", {4}});
      f.push_back({"box_pos", {n, 4}});
      f.push_back({"box_vel", {3 * n}});
      f.push_back({"target_pos", {2}});
    }
    return MakeSpec(m.get(), config, f);
  }

  explicit Stacker(const Config& config)
      : DmcEnv(config, Model(config)), n_(Boxes(config)), fully_observable_(config.Get<bool>("fully_observable")) {
    const char* arm[] = {"arm_root", "arm_shoulder", "arm_elbow", "arm_wrist",
                         "finger",   "fingertip",    "thumb",     "thumbtip"};
    for (int i = 0; i < 8; ++i) {
      arm_joint_[i] = Id(m_, mjOBJ_JOINT, arm[i]);
      arm_qpos_[i] = m_->jnt_qposadr[arm_joint_[i]];
      arm_dof_[i] = m_->jnt_dofadr[arm_joint_[i]];
    }
    finger_ = JointQpos("finger");
    thumb_ = JointQpos("thumb");
    for (int b = 0; b < n_; ++b) {
      const std::string box = "box" + std::to_string(b);
      box_body_[b] = BodyId(box.c_str());
      box_site_[b] = SiteId(box.c_str());
      for (int d = 0; d < 3; ++d) {  // x, y, z
        const std::string joint = box + "_" + "xyz"[d];
        box_qpos_[b][d] = JointQpos(joint.c_str());
        box_dof_[b][d] = JointDof(joint.c_str());
      }
    }
    hand_ = BodyId("hand");
    target_body_ = BodyId("target");
    target_geom_ = GeomId("target");
    target_site_ = SiteId("target");
    grasp_ = SiteId("grasp");
  }

 protected:
  void InitializeEpisode() override {
    do {
      double angles[8];
      for (int i = 0; i < 8; ++i) {
        const int j = arm_joint_[i];
        const bool limited = m_->jnt_limited[j] != 0;
        angles[i] = random_.Uniform(limited ? m_->jnt_range[2 * j] : -M_PI, limited ? m_->jnt_range[2 * j + 1] : M_PI);
      }
      for (int i = 0; i < 8; ++i) data_->qpos[arm_qpos_[i]] = angles[i];
      data_->qpos[finger_] = data_->qpos[thumb_];
      const double target_height = 2 * static_cast<double>(random_.Below(static_cast<uint64_t>(n_))) + 1;
      m_->body_pos[3 * target_body_ + 2] = m_->geom_size[3 * target_geom_] * target_height;
      m_->body_pos[3 * target_body_] = random_.Uniform(-.37, .37);
      for (int b = 0; b < n_; ++b) {
        data_->qpos[box_qpos_[b][0]] = random_.Uniform(.1, .3);
        data_->qpos[box_qpos_[b][2]] = random_.Uniform(0, .7);
        data_->qpos[box_qpos_[b][1]] = random_.Uniform(0, 2 * M_PI);
      }
      AfterReset();
    } while (data_->ncon > 0);
  }

  void WriteObservation(ObsWriter& w) const override {
    double* arm = w.Next(16);
    for (int i = 0; i < 8; ++i) {
      const double q = data_->qpos[arm_qpos_[i]];
      arm[2 * i] = std::sin(q);
      arm[2 * i + 1] = std::cos(q);
    }
    double* v = w.Next(8);
    for (int i = 0; i < 8; ++i) v[i] = data_->qvel[arm_dof_[i]];
    double* t = w.Next(m_->nsensordata);
    for (int i = 0; i < m_->nsensordata; ++i) t[i] = std::log1p(data_->sensordata[i]);
    if (!fully_observable_) return;
    Pose(hand_, w.Next(4));
    double* p = w.Next(4 * n_);
    for (int b = 0; b < n_; ++b) Pose(box_body_[b], p + 4 * b);
    double* bv = w.Next(3 * n_);
    for (int b = 0; b < n_; ++b) {
      for (int d = 0; d < 3; ++d) bv[3 * b + d] = data_->qvel[box_dof_[b][d]];
    }
    double* tp = w.Next(2);
    tp[0] = data_->xpos[3 * target_body_];
    tp[1] = data_->xpos[3 * target_body_ + 2];
  }

  double Reward() const override {
    const double box_size = m_->geom_size[3 * target_geom_];
    double min_distance = INFINITY;
    for (int b = 0; b < n_; ++b) min_distance = std::min(min_distance, SiteDistance(box_site_[b], target_site_));
    const double box_is_close = Tolerance(min_distance, 0, 0, 2 * box_size);
    const double hand_is_far = Tolerance(SiteDistance(grasp_, target_site_), .1, INFINITY, .01);
    return box_is_close * hand_is_far;
  }

 private:
  void Pose(int body, double* out) const {
    out[0] = data_->xpos[3 * body];
    out[1] = data_->xpos[3 * body + 2];
    out[2] = data_->xquat[4 * body];
    out[3] = data_->xquat[4 * body + 2];
  }
  double SiteDistance(int site1, int site2) const {
    double d[3];
    for (int i = 0; i < 3; ++i) d[i] = data_->site_xpos[3 * site1 + i] - data_->site_xpos[3 * site2 + i];
    return Norm(d, 3);
  }
  int n_;
  bool fully_observable_;
  int arm_joint_[8], arm_qpos_[8], arm_dof_[8], finger_, thumb_;
  int box_body_[4], box_site_[4], box_qpos_[4][3], box_dof_[4][3];
  int hand_, target_body_, target_geom_, target_site_, grasp_;
};

}  // namespace envpool::mujoco::dmc
