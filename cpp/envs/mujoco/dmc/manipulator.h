// dm_control.suite.manipulator: bring_ball, bring_peg, insert_ball, insert_peg (the props a task
// does not use are removed from manipulator.xml, as dm_control's make_model does).
#pragma once

#include "envs/mujoco/dmc/cartpole.h"  // ReplaceOnce
#include "envs/mujoco/dmc/dmc_env.h"

namespace envpool::mujoco::dmc {

// Removes the <body name="NAME" ...> element (and what it holds) from `xml`.
inline void RemoveBody(std::string& xml, const std::string& name, const char* file) {
  const std::string open = "<body name=\"" + name + "\"";
  const auto start = xml.find(open);
  if (start == std::string::npos)
    throw std::runtime_error(std::string("dm_control's ") + file + " has no body " + name);
  std::size_t at = start + open.size();
  int depth = 1;
  while (depth > 0) {
    const auto next_open = xml.find("<body", at), next_close = xml.find("</body>", at);
    if (next_close == std::string::npos) throw std::runtime_error(std::string("unbalanced <body> in ") + file);
    if (next_open != std::string::npos && next_open < next_close) {
      ++depth;
      at = next_open + 5;
    } else {
      --depth;
      at = next_close + 7;
    }
  }
  xml.erase(start, at - start);
}

class Manipulator : public DmcEnv {
 public:
  static Config DefaultConfig() {
    Config c = BaseConfig("bring_ball", 10, 10.0);
    c.Set("fully_observable", true);
    return c;
  }

  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const std::string t = TaskName(config, {"bring_ball", "bring_peg", "insert_ball", "insert_peg"}, "manipulator");
    const bool peg = t == "bring_peg" || t == "insert_peg", insert = t == "insert_ball" || t == "insert_peg";
    return SuiteModel("manipulator.xml", t, [peg, insert](const std::string& xml) {
      std::vector<std::string> keep =
          peg ? std::vector<std::string>{"peg", "target_peg"} : std::vector<std::string>{"ball", "target_ball"};
      if (insert) keep.push_back(peg ? "slot" : "cup");
      std::string s = xml;
      for (const char* prop : {"ball", "target_ball", "cup", "peg", "target_peg", "slot"}) {
        if (std::find(keep.begin(), keep.end(), prop) == keep.end()) RemoveBody(s, prop, "manipulator.xml");
      }
      return s;
    });
  }

  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    std::vector<ObsField> f = {{"arm_pos", {8, 2}}, {"arm_vel", {8}}, {"touch", {5}}};
    if (config.Get<bool>("fully_observable")) {
      f.push_back({"hand_pos", {4}});
      f.push_back({"object_pos", {4}});
      f.push_back({"object_vel", {3}});
      f.push_back({"target_pos", {4}});
    }
    return MakeSpec(m.get(), config, f);
  }

  explicit Manipulator(const Config& config)
      : DmcEnv(config, Model(config)), fully_observable_(config.Get<bool>("fully_observable")) {
    const std::string t = config.Get<std::string>("task_name");
    use_peg_ = t == "bring_peg" || t == "insert_peg";
    insert_ = t == "insert_ball" || t == "insert_peg";
    const std::string object = use_peg_ ? "peg" : "ball";
    const char* arm[] = {"arm_root", "arm_shoulder", "arm_elbow", "arm_wrist",
                         "finger",   "fingertip",    "thumb",     "thumbtip"};
    for (int i = 0; i < 8; ++i) {
      arm_joint_[i] = Id(m_, mjOBJ_JOINT, arm[i]);
      arm_qpos_[i] = m_->jnt_qposadr[arm_joint_[i]];
      arm_dof_[i] = m_->jnt_dofadr[arm_joint_[i]];
    }
    finger_ = JointQpos("finger");
    thumb_ = JointQpos("thumb");
    for (int i = 0; i < 3; ++i) {
      const std::string joint = object + "_" + "xzy"[i];
      object_qpos_[i] = JointQpos(joint.c_str());
      object_dof_[i] = JointDof(joint.c_str());
    }
    const char* touch[] = {"palm_touch", "finger_touch", "thumb_touch", "fingertip_touch", "thumbtip_touch"};
    for (int i = 0; i < 5; ++i) touch_[i] = SensorAdr(touch[i]);
    hand_ = BodyId("hand");
    object_ = BodyId(object.c_str());
    target_ = BodyId(use_peg_ ? "target_peg" : "target_ball");
    receptacle_ = insert_ ? BodyId(use_peg_ ? "slot" : "cup") : -1;
    grasp_ = SiteId("grasp");
    if (use_peg_) {
      sites_[0] = SiteId("peg_grasp");
      sites_[1] = SiteId("grasp");
      sites_[2] = SiteId("peg_pinch");
      sites_[3] = SiteId("pinch");
      sites_[4] = SiteId("peg");
      sites_[5] = SiteId("target_peg");
      sites_[6] = SiteId("target_peg_tip");
      sites_[7] = SiteId("peg_tip");
    } else {
      sites_[0] = SiteId("ball");
      sites_[1] = SiteId("target_ball");
    }
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
      const double target_x = random_.Uniform(-.4, .4);
      const double target_z = random_.Uniform(.1, .4);
      double target_angle;
      if (insert_) {
        target_angle = random_.Uniform(-M_PI / 3, M_PI / 3);
        m_->body_pos[3 * receptacle_] = target_x;
        m_->body_pos[3 * receptacle_ + 2] = target_z;
        m_->body_quat[4 * receptacle_] = std::cos(target_angle / 2);
        m_->body_quat[4 * receptacle_ + 2] = std::sin(target_angle / 2);
      } else {
        target_angle = random_.Uniform(-M_PI, M_PI);
      }
      m_->body_pos[3 * target_] = target_x;
      m_->body_pos[3 * target_ + 2] = target_z;
      m_->body_quat[4 * target_] = std::cos(target_angle / 2);
      m_->body_quat[4 * target_ + 2] = std::sin(target_angle / 2);
      // choice(['in_hand', 'in_target', 'uniform'], p=[.1, .1, .8]): one uniform draw against
      // the normalized cumulative probabilities (searchsorted, side='right').
      const double p_uniform = 1 - .1 - .1;
      double cdf[3] = {.1, .1 + .1, 0};
      cdf[2] = cdf[1] + p_uniform;
      for (double& c : cdf) c /= cdf[2];
      const double u = random_.Uniform();
      const int init_type = (u >= cdf[0]) + (u >= cdf[1]) + (u >= cdf[2]);  // 0 in_hand, 1 in_target
      double object_x, object_z, object_angle;
      if (init_type == 1) {
        object_x = target_x;
        object_z = target_z;
        object_angle = target_angle;
      } else if (init_type == 0) {
        AfterReset();
        object_x = data_->site_xpos[3 * grasp_];
        object_z = data_->site_xpos[3 * grasp_ + 2];
        const double* g = data_->site_xmat + 9 * grasp_;
        object_angle = M_PI - std::atan2(g[6], g[0]);  // (xx, zx)
      } else {
        object_x = random_.Uniform(-.5, .5);
        object_z = random_.Uniform(0, .7);
        object_angle = random_.Uniform(0, 2 * M_PI);
        data_->qvel[object_dof_[0]] = random_.Uniform(-5, 5);
      }
      data_->qpos[object_qpos_[0]] = object_x;
      data_->qpos[object_qpos_[1]] = object_z;
      data_->qpos[object_qpos_[2]] = object_angle;
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
    double* t = w.Next(5);
    for (int i = 0; i < 5; ++i) t[i] = std::log1p(data_->sensordata[touch_[i]]);
    if (!fully_observable_) return;
    Pose(hand_, w.Next(4));
    Pose(object_, w.Next(4));
    double* ov = w.Next(3);
    for (int i = 0; i < 3; ++i) ov[i] = data_->qvel[object_dof_[i]];
    Pose(target_, w.Next(4));
  }

  double Reward() const override {
    if (!use_peg_) return IsClose(SiteDistance(sites_[0], sites_[1]));
    const double grasp = IsClose(SiteDistance(sites_[0], sites_[1]));
    const double pinch = IsClose(SiteDistance(sites_[2], sites_[3]));
    const double grasping = (grasp + pinch) / 2;
    const double bring = IsClose(SiteDistance(sites_[4], sites_[5]));
    const double bring_tip = IsClose(SiteDistance(sites_[6], sites_[7]));
    const double bringing = (bring + bring_tip) / 2;
    return std::max(bringing, grasping / 3);
  }

 private:
  void Pose(int body, double* out) const {
    out[0] = data_->xpos[3 * body];
    out[1] = data_->xpos[3 * body + 2];
    out[2] = data_->xquat[4 * body];
    out[3] = data_->xquat[4 * body + 2];
  }
  static double IsClose(double distance) { return Tolerance(distance, 0, .01, .01 * 2); }
  // site_distance(site1, site2): the norm of site1 - site2.
  double SiteDistance(int site1, int site2) const {
    double d[3];
    for (int i = 0; i < 3; ++i) d[i] = data_->site_xpos[3 * site1 + i] - data_->site_xpos[3 * site2 + i];
    return Norm(d, 3);
  }
  bool fully_observable_, use_peg_ = false, insert_ = false;
  int arm_joint_[8], arm_qpos_[8], arm_dof_[8], finger_, thumb_, object_qpos_[3], object_dof_[3], touch_[5];
  int hand_, object_, target_, receptacle_, grasp_, sites_[8] = {};
};

}  // namespace envpool::mujoco::dmc
