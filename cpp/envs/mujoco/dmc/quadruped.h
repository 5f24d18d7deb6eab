// dm_control.suite.quadruped: walk, run, escape, fetch (the walls, ball, target, terrain and
// rangefinders a task does not use are removed from quadruped.xml, as dm_control's make_model
// does). escape draws a new terrain into the env's model at every episode: random bumps
// smoothed by scipy.ndimage.zoom's cubic-spline interpolation (ZoomCubic below) times a bowl.
#pragma once

#include "envs/mujoco/dmc/cartpole.h"  // ReplaceOnce
#include "envs/mujoco/dmc/dmc_env.h"
#include "envs/mujoco/dmc/manipulator.h"  // RemoveBody

namespace envpool::mujoco::dmc {

// Removes the one-tag element starting with `head` ("<geom name=\"x\"", up to its "/>").
inline void RemoveTag(std::string& xml, const std::string& head, const char* file) {
  const auto start = xml.find(head);
  const auto end = start == std::string::npos ? start : xml.find("/>", start);
  if (end == std::string::npos) throw std::runtime_error(std::string("dm_control's ") + file + " has no " + head);
  xml.erase(start, end + 2 - start);
}

// scipy.ndimage.zoom(a, out / n) of an n x n array with its defaults (order 3, mode 'constant',
// prefilter, grid_mode False): the cubic B-spline coefficients of `a` with mirror boundaries
// (the separable recursive prefilter, gain 6, pole sqrt(3) - 2), evaluated at the output points
// i * (n - 1) / (out - 1) of each axis, the 4 x 4 stencil mirrored at the edges. Agrees with
// scipy 1.17 to ~1e-15 (the sums' order differs); MuJoCo stores the terrain as float32, where
// the two round alike.
inline std::vector<double> ZoomCubic(const std::vector<double>& a, int n, int out) {
  const double z = std::sqrt(3.0) - 2.0;
  std::vector<double> cp(n), line(n);
  const auto prefilter = [&](double* x, int stride) {
    for (int k = 0; k < n; ++k) line[k] = x[k * stride] * 6.0;
    const double zn = std::pow(z, n - 1), z2n = zn * zn;
    double s = line[0] + zn * line[n - 1], zk = z;
    for (int k = 1; k < n - 1; ++k) {
      s += (zk + z2n / zk) * line[k];
      zk *= z;
    }
    cp[0] = s / (1 - z2n);
    for (int k = 1; k < n; ++k) cp[k] = line[k] + z * cp[k - 1];
    x[(n - 1) * stride] = z / (z * z - 1) * (cp[n - 1] + z * cp[n - 2]);
    for (int k = n - 2; k >= 0; --k) x[k * stride] = z * (x[(k + 1) * stride] - cp[k]);
  };
  std::vector<double> c = a;
  for (int j = 0; j < n; ++j) prefilter(c.data() + j, n);      // axis 0
  for (int i = 0; i < n; ++i) prefilter(c.data() + i * n, 1);  // axis 1
  const double step = static_cast<double>(n - 1) / (out - 1);
  const auto weights = [](double x, int& start, double* w) {
    start = static_cast<int>(std::floor(x)) - 1;
    for (int h = 0; h < 4; ++h) {
      const double y = std::abs(start - x + h);
      w[h] = y < 1 ? (4 - 6 * y * y + 3 * y * y * y) / 6 : y < 2 ? (2 - y) * (2 - y) * (2 - y) / 6 : 0.0;
    }
  };
  const auto mirror = [n](int i) { return i < 0 ? -i : i > n - 1 ? 2 * (n - 1) - i : i; };
  std::vector<double> result(static_cast<std::size_t>(out) * out);
  for (int i = 0; i < out; ++i) {
    int s0;
    double w0[4];
    weights(i * step, s0, w0);
    for (int j = 0; j < out; ++j) {
      int s1;
      double w1[4];
      weights(j * step, s1, w1);
      double v = 0;
      for (int p = 0; p < 4; ++p) {
        for (int q = 0; q < 4; ++q) v += c[mirror(s0 + p) * n + mirror(s1 + q)] * w0[p] * w1[q];
      }
      result[static_cast<std::size_t>(i) * out + j] = v;
    }
  }
  return result;
}

class Quadruped : public DmcEnv {
 public:
  static Config DefaultConfig() { return BaseConfig("walk", 4, 20.0); }

  static std::shared_ptr<const mjModel> Model(const Config& config) {
    const std::string t = TaskName(config, {"walk", "run", "escape", "fetch"}, "quadruped");
    return SuiteModel("quadruped.xml", t, [t](const std::string& xml) {
      std::string s = xml;
      // floor_size = _DEFAULT_TIME_LIMIT * speed, written by an f-string (10.0, 100).
      if (t == "walk")
        ReplaceOnce(s, "name=\"floor\" type=\"plane\" size=\"15 15 .5\"",
                    "name=\"floor\" type=\"plane\" size=\"10.0 10.0 .5\"", "quadruped.xml");
      if (t == "run")
        ReplaceOnce(s, "name=\"floor\" type=\"plane\" size=\"15 15 .5\"",
                    "name=\"floor\" type=\"plane\" size=\"100 100 .5\"", "quadruped.xml");
      if (t == "escape")
        ReplaceOnce(s, "name=\"floor\" type=\"plane\" size=\"15 15 .5\"",
                    "name=\"floor\" type=\"plane\" size=\"40 40 .5\"", "quadruped.xml");
      if (t != "fetch") {
        for (const char* wall : {"wall_px", "wall_py", "wall_nx", "wall_ny"}) {
          RemoveTag(s, std::string("<geom name=\"") + wall + "\"", "quadruped.xml");
        }
        RemoveBody(s, "ball", "quadruped.xml");
        RemoveTag(s, "<site name=\"target\"", "quadruped.xml");
      }
      if (t != "escape") {
        RemoveTag(s, "<geom name=\"terrain\"", "quadruped.xml");
        while (s.find("<rangefinder ") != std::string::npos) RemoveTag(s, "<rangefinder ", "quadruped.xml");
      }
      return s;
    });
  }

  // The sensors of the given types, in id order (dm_control's _get_sensor_names).
  static std::vector<int> Sensors(const mjModel* m, std::initializer_list<int> types) {
    std::vector<int> ids;
    for (int i = 0; i < m->nsensor; ++i) {
      for (int t : types) {
        if (m->sensor_type[i] == t) ids.push_back(i);
      }
    }
    return ids;
  }
  static int SensorsDim(const mjModel* m, std::initializer_list<int> types) {
    int n = 0;
    for (int id : Sensors(m, types)) n += m->sensor_dim[id];
    return n;
  }
  static int Hinges(const mjModel* m) {
    int n = 0;
    for (int j = 0; j < m->njnt; ++j) n += m->jnt_type[j] == mjJNT_HINGE;
    return n;
  }

  static EnvSpec Spec(const Config& config) {
    auto m = Model(config);
    std::vector<ObsField> f = {{"egocentric_state", {2 * Hinges(m.get()) + m->na}},
                               {"torso_velocity", {3}},
                               {"torso_upright", {}},
                               {"imu", {SensorsDim(m.get(), {mjSENS_GYRO, mjSENS_ACCELEROMETER})}},
                               {"force_torque", {SensorsDim(m.get(), {mjSENS_FORCE, mjSENS_TORQUE})}}};
    if (config.Get<std::string>("task_name") == "fetch") {
      f.push_back({"ball_state", {9}});
      f.push_back({"target_position", {3}});
    }
    if (config.Get<std::string>("task_name") == "escape") {
      f.push_back({"origin", {3}});
      f.push_back({"rangefinder", {SensorsDim(m.get(), {mjSENS_RANGEFINDER})}});
    }
    return MakeSpec(m.get(), config, f);
  }

  explicit Quadruped(const Config& config)
      : DmcEnv(config, Model(config)),
        torso_(BodyId("torso")),
        root_qpos_(JointQpos("root")),
        root_dof_(JointDof("root")),
        velocimeter_(SensorAdr("velocimeter")),
        workspace_(SiteId("workspace")),
        floor_(GeomId("floor")) {
    const std::string t = config.Get<std::string>("task_name");
    fetch_ = t == "fetch";
    escape_ = t == "escape";
    speed_ = t == "walk" ? 0.5 : 5.0;
    // The terrain changes at every episode: frames upload it again (dm_control's
    // initialize_episode uploads it to its GL context).
    upload_hfields_ = escape_;
    if (escape_) {
      for (int id : Sensors(m_, {mjSENS_RANGEFINDER})) rangefinders_.push_back(m_->sensor_adr[id]);
    }
    for (int j = 0; j < m_->njnt; ++j) {
      if (m_->jnt_type[j] == mjJNT_HINGE) {
        hinge_qpos_.push_back(m_->jnt_qposadr[j]);
        hinge_dof_.push_back(m_->jnt_dofadr[j]);
      }
    }
    for (int id : Sensors(m_, {mjSENS_GYRO, mjSENS_ACCELEROMETER})) imu_.push_back(id);
    for (int id : Sensors(m_, {mjSENS_FORCE, mjSENS_TORQUE})) force_torque_.push_back(id);
    imu_dim_ = SensorsDim(m_, {mjSENS_GYRO, mjSENS_ACCELEROMETER});
    force_torque_dim_ = SensorsDim(m_, {mjSENS_FORCE, mjSENS_TORQUE});
    if (fetch_) {
      ball_ = BodyId("ball");
      ball_geom_ = GeomId("ball");
      ball_qpos_ = JointQpos("ball_root");
      ball_dof_ = JointDof("ball_root");
      target_ = SiteId("target");
    }
  }

 protected:
  void InitializeEpisode() override {
    if (escape_) DrawTerrain();
    double orientation[4];
    double x = 0.0, y = 0.0;
    double spawn_radius = 0;
    if (fetch_) {
      const double azimuth = random_.Uniform(0, 2 * M_PI);
      orientation[0] = std::cos(azimuth / 2);
      orientation[1] = 0;
      orientation[2] = 0;
      orientation[3] = std::sin(azimuth / 2);
      spawn_radius = 0.9 * m_->geom_size[3 * floor_];
      x = random_.Uniform(-spawn_radius, spawn_radius);
      y = random_.Uniform(-spawn_radius, spawn_radius);
    } else {
      for (double& o : orientation) o = random_.Normal();
      const double norm = Norm(orientation, 4);
      for (double& o : orientation) o /= norm;
    }
    FindNonContactingHeight(orientation, x, y);
    if (fetch_) {
      data_->qpos[ball_qpos_] = random_.Uniform(-spawn_radius, spawn_radius);
      data_->qpos[ball_qpos_ + 1] = random_.Uniform(-spawn_radius, spawn_radius);
      data_->qpos[ball_qpos_ + 2] = 2;
      data_->qvel[ball_dof_] = 5 * random_.Normal();
      data_->qvel[ball_dof_ + 1] = 5 * random_.Normal();
    }
  }

  void WriteObservation(ObsWriter& w) const override {
    const int nh = static_cast<int>(hinge_qpos_.size());
    double* e = w.Next(2 * nh + m_->na);
    for (int i = 0; i < nh; ++i) e[i] = data_->qpos[hinge_qpos_[i]];
    for (int i = 0; i < nh; ++i) e[nh + i] = data_->qvel[hinge_dof_[i]];
    std::copy(data_->act, data_->act + m_->na, e + 2 * nh);
    w.Put(data_->sensordata + velocimeter_, 3);
    w.Put(Xmat(torso_, kZZ));
    double* imu = w.Next(imu_dim_);
    for (int id : imu_) {
      imu = std::copy(data_->sensordata + m_->sensor_adr[id],
                      data_->sensordata + m_->sensor_adr[id] + m_->sensor_dim[id], imu);
    }
    double* ft = w.Next(force_torque_dim_);
    for (int id : force_torque_) {
      for (int k = 0; k < m_->sensor_dim[id]; ++k) *ft++ = std::asinh(data_->sensordata[m_->sensor_adr[id] + k]);
    }
    if (escape_) {
      // origin: -torso_pos . torso_frame; rangefinder: tanh of the distance, 1 where no hit (-1).
      const double* frame = data_->xmat + 9 * torso_;
      double p[3];
      for (int i = 0; i < 3; ++i) p[i] = -data_->xpos[3 * torso_ + i];
      double* o = w.Next(3);
      for (int c = 0; c < 3; ++c) o[c] = p[0] * frame[c] + p[1] * frame[3 + c] + p[2] * frame[6 + c];
      double* r = w.Next(rangefinders_.size());
      for (std::size_t i = 0; i < rangefinders_.size(); ++i) {
        const double v = data_->sensordata[rangefinders_[i]];
        r[i] = v == -1.0 ? 1.0 : std::tanh(v);
      }
      return;
    }
    if (!fetch_) return;
    // ball_state: the rows (relative position, relative velocity, angular velocity) times the
    // torso frame, a 3x3 by 3x3 np.dot: OpenBLAS' dgemm, whose kernels fuse multiply-adds.
    const double* frame = data_->xmat + 9 * torso_;
    double rows[9];
    for (int i = 0; i < 3; ++i) {
      rows[i] = data_->xpos[3 * ball_ + i] - data_->xpos[3 * torso_ + i];
      rows[3 + i] = data_->qvel[ball_dof_ + i] - data_->qvel[root_dof_ + i];
      rows[6 + i] = data_->qvel[ball_dof_ + 3 + i];
    }
    double* b = w.Next(9);
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s = std::fma(rows[3 * r + k], frame[3 * k + c], s);
        b[3 * r + c] = s;
      }
    }
    double d[3];
    for (int i = 0; i < 3; ++i) d[i] = data_->site_xpos[3 * target_ + i] - data_->xpos[3 * torso_ + i];
    double* t = w.Next(3);
    for (int c = 0; c < 3; ++c) t[c] = d[0] * frame[c] + d[1] * frame[3 + c] + d[2] * frame[6 + c];
  }

  double Reward() const override {
    // _upright_reward with deviation_angle=0: cos(deg2rad(0)) = 1.
    if (escape_) {
      // _upright_reward(deviation_angle=20) times the escape reward (distance from the origin).
      static const double kDeviation = std::cos(20.0 * (M_PI / 180.0));
      const double upright20 =
          Tolerance(Xmat(torso_, kZZ), kDeviation, INFINITY, 1 + kDeviation, Sigmoid::kLinear, 0, false);
      const double terrain_size = m_->hfield_size[0];
      const double escape = Tolerance(Norm(data_->site_xpos + 3 * workspace_, 3), terrain_size, INFINITY, terrain_size,
                                      Sigmoid::kLinear, 0);
      return upright20 * escape;
    }
    const double upright = Tolerance(Xmat(torso_, kZZ), 1.0, INFINITY, 2.0, Sigmoid::kLinear, 0);
    if (!fetch_) {
      return upright * Tolerance(data_->sensordata[velocimeter_], speed_, INFINITY, speed_, Sigmoid::kLinear, 0.5);
    }
    const double arena_radius = m_->geom_size[3 * floor_] * std::sqrt(2.0);
    const double workspace_radius = m_->site_size[3 * workspace_];
    const double ball_radius = m_->geom_size[3 * ball_geom_];
    double d[2];
    for (int i = 0; i < 2; ++i) d[i] = data_->site_xpos[3 * workspace_ + i] - data_->xpos[3 * ball_ + i];
    const double reach = Tolerance(Norm(d, 2), 0, workspace_radius + ball_radius, arena_radius, Sigmoid::kLinear, 0);
    for (int i = 0; i < 2; ++i) d[i] = data_->site_xpos[3 * target_ + i] - data_->xpos[3 * ball_ + i];
    const double fetch = Tolerance(Norm(d, 2), 0, m_->site_size[3 * target_], arena_radius, Sigmoid::kLinear, 0);
    return upright * (reach * (0.5 + 0.5 * fetch));
  }

 private:
  // Escape.initialize_episode's terrain: a bowl times bumps (uniform(0.15, 1) on a grid of
  // 2 * hfield_size[0] / 2 cells, zoomed to the heightfield's resolution).
  void DrawTerrain() {
    const int res = m_->hfield_nrow[0];
    if (res != m_->hfield_ncol[0]) throw std::runtime_error("quadruped.xml's terrain is not square");
    const double terrain_size = 2 * m_->hfield_size[0];
    const int bump_res = static_cast<int>(terrain_size / 2);
    std::vector<double> bumps(static_cast<std::size_t>(bump_res) * bump_res);
    for (double& b : bumps) b = random_.Uniform(0.15, 1);
    const std::vector<double> smooth = ZoomCubic(bumps, bump_res, res);
    const double step = (1.0 - -1.0) / (res - 1);  // np.ogrid[-1:1:res*1j]
    float* h = m_->hfield_data + m_->hfield_adr[0];
    for (int i = 0; i < res; ++i) {
      const double row = i * step + -1.0;
      for (int j = 0; j < res; ++j) {
        const double col = j * step + -1.0;
        const double radius = std::clamp(std::sqrt(col * col + row * row), .04, 1.0);
        const double bowl = .5 - std::cos(2 * M_PI * radius) / 2;
        h[i * res + j] = static_cast<float>(bowl * smooth[static_cast<std::size_t>(i) * res + j]);
      }
    }
  }

  // _find_non_contacting_height: from z = 0 up in steps of 0.01, each try a fresh
  // reset_context (mj_resetData, the root placed, mj_forward without actuation), until no contact.
  void FindNonContactingHeight(const double* orientation, double x, double y) {
    double z = 0.0;
    for (int attempt = 0;; ++attempt) {
      if (attempt > 10000) throw std::runtime_error("Failed to find a non-contacting configuration.");
      Mj().resetData(m_, data_);
      AfterReset();
      double* q = data_->qpos + root_qpos_;
      q[0] = x;
      q[1] = y;
      q[2] = z;
      std::copy(orientation, orientation + 4, q + 3);
      AfterReset();
      if (data_->ncon == 0) return;
      z += 0.01;
    }
  }

  bool fetch_ = false, escape_ = false;
  std::vector<int> rangefinders_;
  double speed_ = 0.5;
  int torso_, root_qpos_, root_dof_, velocimeter_, workspace_, floor_;
  int ball_ = -1, ball_geom_ = -1, ball_qpos_ = -1, ball_dof_ = -1, target_ = -1;
  std::vector<int> hinge_qpos_, hinge_dof_, imu_, force_torque_;
  int imu_dim_ = 0, force_torque_dim_ = 0;
};

}  // namespace envpool::mujoco::dmc
