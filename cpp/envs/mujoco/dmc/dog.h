// dm_control.suite.dog: stand, walk, trot, run, fetch (meshes and textures from the suite's
// dog_assets/; the ball, target, walls and their cameras removed except for fetch, as
// dm_control's make_model does).
#pragma once

#include "envs/mujoco/dmc/cartpole.h"  // ReplaceOnce
#include "envs/mujoco/dmc/dmc_env.h"
#include "envs/mujoco/dmc/quadruped.h"  // RemoveTag, RemoveBody

namespace envpool::mujoco::dmc {

class Dog : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("stand", 3, 15.0); }

  static double MoveSpeed(const std::string& task) {
    return task == "trot" ? 3 : task == "run" ? 9 : task == "walk" ? 1 : 0;
  }

  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const std::string t = TaskName(config, {"stand", "walk", "trot", "run", "fetch"}, "dog");
    return SuiteModel(
        "dog.xml", t,
        [t](const std::string& xml) {
          std::string s = xml;
          // floor_size: _WALK_SPEED (stand) or the task's speed times _DEFAULT_TIME_LIMIT, 10 for fetch.
          const int floor = t == "fetch" ? 10 : t == "stand" ? 15 : static_cast<int>(MoveSpeed(t)) * 15;
          const std::string size = std::to_string(floor);
          ReplaceOnce(s, "<geom name=\"floor\" type=\"plane\" size=\"10 10 0.1\"",
                      "<geom name=\"floor\" type=\"plane\" size=\"" + size + " " + size + " .1\"", "dog.xml");
          if (t != "fetch") {
            RemoveBody(s, "ball", "dog.xml");
            RemoveTag(s, "<geom name=\"target\"", "dog.xml");
            RemoveTag(s, "<camera name=\"ball\"", "dog.xml");
            RemoveTag(s, "<camera name=\"head\"", "dog.xml");
            for (const char* wall : {"px", "nx", "py", "ny"}) {
              RemoveTag(s, std::string("<geom name=\"wall_") + wall + "\"", "dog.xml");
            }
          }
          return s;
        },
        "dog_assets");
  }

  static int Hinges(const mjModel* m) {
    int n = 0;
    for (int j = 0; j < m->njnt; ++j) n += m->jnt_type[j] == mjJNT_HINGE;
    return n;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    const int h = Hinges(m.get());
    std::vector<ObsField> f = {{"joint_angles", {h}}, {"joint_velocites", {h}},    {"torso_pelvis_height", {2}},
                               {"z_projection", {9}}, {"torso_com_velocity", {3}}, {"inertial_sensors", {9}},
                               {"foot_forces", {12}}, {"touch_sensors", {4}},      {"actuator_state", {m->na}}};
    if (config.Get<std::string>("task_name") == "fetch") {
      f.push_back({"ball_state", {6}});
      f.push_back({"target_position", {3}});
    }
    return MakeSpec(m.get(), config, f);
  }

  explicit Dog(const Config& config)
      : DmcEnv(config, Model(config)),
        task_(config.Get<std::string>("task_name")),
        move_speed_(MoveSpeed(task_)),
        torso_(BodyId("torso")),
        pelvis_(BodyId("pelvis")),
        skull_(BodyId("skull")),
        root_qpos_(JointQpos("root")),
        torso_linvel_(SensorAdr("torso_linvel")) {
    if (m_->nu != m_->na) throw std::runtime_error("dog.xml: every actuator should have an activation");
    for (int j = 0; j < m_->njnt; ++j) {
      if (m_->jnt_type[j] == mjJNT_HINGE) {
        hinge_qpos_.push_back(m_->jnt_qposadr[j]);
        hinge_dof_.push_back(m_->jnt_dofadr[j]);
      }
    }
    const char* inertial[] = {"accelerometer", "velocimeter", "gyro"};
    for (int i = 0; i < 3; ++i) inertial_[i] = SensorAdr(inertial[i]);
    const char* forces[] = {"foot_L", "foot_R", "hand_L", "hand_R"};
    for (int i = 0; i < 4; ++i) forces_[i] = SensorAdr(forces[i]);
    const char* touch[] = {"palm_L", "palm_R", "sole_L", "sole_R"};
    for (int i = 0; i < 4; ++i) touch_[i] = SensorAdr(touch[i]);
    if (task_ == "fetch") {
      head_site_ = SiteId("head");
      upper_bite_ = SiteId("upper_bite");
      lower_bite_ = SiteId("lower_bite");
      ball_geom_ = GeomId("ball");
      target_geom_ = GeomId("target");
      floor_geom_ = GeomId("floor");
      ball_qpos_ = JointQpos("ball_root");
      ball_dof_ = JointDof("ball_root");
    }
  }

 protected:
  void InitializeEpisode() override {
    Mj().resetData(m_, data_);  // Stand.initialize_episode: physics.reset()
    AfterReset();
    for (int i = 0; i < 2; ++i) stand_height_[i] = TorsoPelvisHeight(i) * 0.9;
    body_weight_ = -m_->opt.gravity[2] * m_->body_subtreemass[torso_];
    const double azimuth = random_.Uniform(0, 2 * M_PI);
    double* q = data_->qpos + root_qpos_ + 3;
    q[0] = std::cos(azimuth / 2);
    q[1] = 0;
    q[2] = 0;
    q[3] = std::sin(azimuth / 2);
    data_->qvel[0] = 2 * random_.Normal();
    data_->qvel[1] = 2 * random_.Normal();
    data_->qvel[5] = 2 * random_.Normal();
    for (int a = 0; a < m_->nu; ++a) {
      data_->act[a] = random_.Uniform(m_->actuator_ctrlrange[2 * a], m_->actuator_ctrlrange[2 * a + 1]);
    }
    if (task_ != "fetch") return;
    const double radius = 0.75 * m_->geom_size[3 * floor_geom_];
    const double ball_azimuth = random_.Uniform(0, 2 * M_PI);
    double* b = data_->qpos + ball_qpos_;
    b[0] = radius * std::sin(ball_azimuth);
    b[1] = radius * std::cos(ball_azimuth);
    b[2] = 0.05;
    const double vertical_height = random_.Uniform(0, 3);
    const double gravity = -m_->opt.gravity[2];
    const double vertical_velocity = std::sqrt(2 * gravity * vertical_height);
    const double horizontal_speed = random_.Uniform(0, 5);
    const double dx = -std::sin(ball_azimuth) + 0.05 * random_.Normal();
    const double dy = -std::cos(ball_azimuth) + 0.05 * random_.Normal();
    double* v = data_->qvel + ball_dof_;
    v[0] = horizontal_speed * dx;
    v[1] = horizontal_speed * dy;
    v[2] = vertical_velocity;
  }

  void WriteObservation(ObsWriter& w) const override {
    const int h = static_cast<int>(hinge_qpos_.size());
    double* a = w.Next(h);
    for (int i = 0; i < h; ++i) a[i] = data_->qpos[hinge_qpos_[i]];
    double* v = w.Next(h);
    for (int i = 0; i < h; ++i) v[i] = data_->qvel[hinge_dof_[i]];
    double* tp = w.Next(2);
    tp[0] = TorsoPelvisHeight(0);
    tp[1] = TorsoPelvisHeight(1);
    double* z = w.Next(9);
    for (int b : {skull_, torso_, pelvis_}) z = std::copy(data_->xmat + 9 * b + 6, data_->xmat + 9 * b + 9, z);
    TorsoComVelocity(w.Next(3));
    double* in = w.Next(9);
    for (int i = 0; i < 3; ++i)
      in = std::copy(data_->sensordata + inertial_[i], data_->sensordata + inertial_[i] + 3, in);
    double* f = w.Next(12);
    for (int i = 0; i < 4; ++i) f = std::copy(data_->sensordata + forces_[i], data_->sensordata + forces_[i] + 3, f);
    double* t = w.Next(4);
    for (int i = 0; i < 4; ++i) t[i] = data_->sensordata[touch_[i]];
    w.Put(data_->act, m_->na);
    if (task_ != "fetch") return;
    // ball_in_head_frame: position and velocity (mj_objectVelocity, world frame) of the ball
    // relative to the head site, in the head's frame; then the target's position likewise.
    const double* frame = data_->site_xmat + 9 * head_site_;
    double head_vel[6], ball_vel[6], d[3];
    Mj().objectVelocity(m_, data_, mjOBJ_SITE, head_site_, head_vel, 0);
    Mj().objectVelocity(m_, data_, mjOBJ_GEOM, ball_geom_, ball_vel, 0);
    double* bs = w.Next(6);
    for (int i = 0; i < 3; ++i) d[i] = data_->geom_xpos[3 * ball_geom_ + i] - data_->site_xpos[3 * head_site_ + i];
    RowTimesFrame(d, frame, bs);
    for (int i = 0; i < 3; ++i) d[i] = ball_vel[3 + i] - head_vel[3 + i];
    RowTimesFrame(d, frame, bs + 3);
    for (int i = 0; i < 3; ++i) d[i] = data_->geom_xpos[3 * target_geom_ + i] - data_->site_xpos[3 * head_site_ + i];
    RowTimesFrame(d, frame, w.Next(3));
  }

  double Reward() const override {
    // np.prod of the reward factors, in order: torso, pelvis, upright (3), touch[, forward]
    // [, reach_ball, fetch_ball].
    static const double kMinUprightCosine = std::cos(30.0 * (M_PI / 180.0));
    double r = Tolerance(TorsoPelvisHeight(0), stand_height_[0], INFINITY, stand_height_[0]);
    r *= Tolerance(TorsoPelvisHeight(1), stand_height_[1], INFINITY, stand_height_[1]);
    for (int b : {skull_, torso_, pelvis_}) {
      r *= Tolerance(Xmat(b, kZZ), kMinUprightCosine, INFINITY, kMinUprightCosine + 1, Sigmoid::kLinear, 0, false);
    }
    double touch = data_->sensordata[touch_[0]];
    for (int i = 1; i < 4; ++i) touch += data_->sensordata[touch_[i]];
    r *= Tolerance(touch, body_weight_, INFINITY, body_weight_, Sigmoid::kLinear, 0.9);
    if (task_ == "fetch") {
      const double bite_radius = m_->site_size[3 * upper_bite_];
      double du[3], dl[3], dt[3];
      for (int i = 0; i < 3; ++i) {
        const double ball = data_->geom_xpos[3 * ball_geom_ + i];
        du[i] = ball - data_->site_xpos[3 * upper_bite_ + i];
        dl[i] = ball - data_->site_xpos[3 * lower_bite_ + i];
        dt[i] = ball - data_->geom_xpos[3 * target_geom_ + i];
      }
      const double mouth = 0.5 * (Norm(du, 3) + Norm(dl, 3));
      double reach_ball = (6 * Tolerance(mouth, 0, bite_radius, 2, Sigmoid::kReciprocal) + 1) / 7;
      const double target_radius = m_->geom_size[3 * target_geom_];
      const double to_target = Norm(dt, 3);
      const double near_target =
          Tolerance(to_target, 0, target_radius, m_->geom_size[3 * floor_geom_], Sigmoid::kReciprocal);
      const double fetch_ball = (near_target + 1) / 2;
      if (to_target < 2 * target_radius) reach_ball = 1;
      return r * reach_ball * fetch_ball;
    }
    if (task_ != "stand") {
      double com[3];
      TorsoComVelocity(com);
      const double forward =
          Tolerance(com[0], move_speed_, 2 * move_speed_, std::max(1.0, move_speed_), Sigmoid::kLinear, 0);
      r *= (4 * forward + 1) / 5;
    }
    return r;
  }

 private:
  double TorsoPelvisHeight(int i) const { return data_->xpos[3 * (i == 0 ? torso_ : pelvis_) + 2]; }
  static void RowTimesFrame(const double* d, const double* frame, double* out) {
    for (int c = 0; c < 3; ++c) out[c] = d[0] * frame[c] + d[1] * frame[3 + c] + d[2] * frame[6 + c];
  }
  void TorsoComVelocity(double* out) const {
    RowTimesFrame(data_->sensordata + torso_linvel_, data_->xmat + 9 * torso_, out);
  }

  std::string task_;
  double move_speed_;
  int torso_, pelvis_, skull_, root_qpos_, torso_linvel_;
  int inertial_[3], forces_[4], touch_[4];
  int head_site_ = -1, upper_bite_ = -1, lower_bite_ = -1, ball_geom_ = -1, target_geom_ = -1, floor_geom_ = -1;
  int ball_qpos_ = -1, ball_dof_ = -1;
  std::vector<int> hinge_qpos_, hinge_dof_;
  double stand_height_[2] = {0, 0}, body_weight_ = 0;
};

}  // namespace envpool::mujoco::dmc
