// gymnasium-robotics 1.4.2's Adroit hand tasks (envs/adroit_hand/adroit_{door,hammer,pen,
// relocate}.py, gymnasium MujocoEnv subclasses), native. The model files are the installed
// gymnasium-robotics wheel's (envs/assets/adroit_hand/*.xml), read at run time.
//
// Upstream, in order:
//   construction: the model's wrist actuators (A_WRJ1 .. A_WRJ0) get gainprm[:3] = (10, 0, 0) and
//     biasprm[:3] = (0, -10, 0), the finger actuators (A_FFJ3 .. A_THJ0) (1, 0, 0) and (0, -1, 0);
//     init_qpos / init_qvel are a fresh MjData's.
//   reset: mj_resetData; reset_model draws the task's object / target placement with np_random and
//     writes it into the model (body_pos, site_pos or body_quat: so each env owns its model copy
//     here); set_state(init_qpos, init_qvel) (mj_forward).
//   step: the action clipped to [-1, 1] (float32), ctrl = act_mean + a * act_rng (float64, from
//     actuator_ctrlrange); 5 mj_steps and mj_rnePostConstraint; the observation; success and the
//     reward (sparse: 10 when successful, else -0.1; dense: the task's shaped reward as 1.4.2 has it,
//     which is what its Dense v1 ids give since 1.2.1). Neither terminated nor truncated (the
//     200-step time limit truncates).
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/gym/mujoco_env.h"
#include "envs/mujoco/gym/mujoco_renderer.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/robotics/fetch/fetch_env.h"
#include "envs/mujoco/robotics/goal_env.h"
#include "envs/mujoco/state.h"

namespace envpool::mujoco::robotics::adroit {

// ---- numpy's arithmetic where the observation or reward depends on its rounding. ----

// `x.dot(y)` of float64 vectors (np.dot, np.linalg.norm's x.dot(x)), as OpenBLAS 0.3.31's x86-64
// ddot (the Haswell kernel numpy 2.4's scipy-openblas runs here) computes it: the first n & -16
// products fused into four four-lane accumulators, the lanes added pairwise, then the rest added
// one rounded product at a time. Measured bit for bit against numpy for n = 16 .. 70 (3,000 random
// vectors each); below 16 it is gym::Norm's sequential sum.
inline double NumpyDot(const double* x, const double* y, int n) {
  const int n1 = n & -16;
  double dot = 0.0;
  if (n1 > 0) {
    double acc[4][4] = {};
    for (int i = 0; i < n1; i += 16) {
      for (int r = 0; r < 4; ++r) {
        for (int l = 0; l < 4; ++l) acc[r][l] = std::fma(x[i + 4 * r + l], y[i + 4 * r + l], acc[r][l]);
      }
    }
    double half[4][2];
    for (int r = 0; r < 4; ++r) {
      for (int l = 0; l < 2; ++l) half[r][l] = acc[r][l] + acc[r][l + 2];
    }
    double lane[2];
    for (int l = 0; l < 2; ++l) lane[l] = (half[0][l] + half[1][l]) + (half[2][l] + half[3][l]);
    dot = lane[0] + lane[1];
  }
  for (int i = n1; i < n; ++i) {
    const double p = y[i] * x[i];  // rounded, then added (not fused)
    dot += p;
  }
  return dot;
}

// np.linalg.norm(a - b) of two 3-vectors.
inline double Distance3(const double* a, const double* b) {
  const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return gym::Norm(d, 3);
}

// rotations.quat2euler: mat2euler(quat2mat(quat)).
inline void Quat2Euler(const double* q, double euler[3]) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double nq = ((w * w + x * x) + y * y) + z * z;
  double mat[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (nq > std::numeric_limits<double>::epsilon()) {
    const double s = 2.0 / nq;
    const double X = x * s, Y = y * s, Z = z * s;
    const double wX = w * X, wY = w * Y, wZ = w * Z;
    const double xX = x * X, xY = x * Y, xZ = x * Z;
    const double yY = y * Y, yZ = y * Z, zZ = z * Z;
    const double m[9] = {1.0 - (yY + zZ), xY - wZ, xZ + wY, xY + wZ,        1.0 - (xX + zZ),
                         yZ - wX,         xZ - wY, yZ + wX, 1.0 - (xX + yY)};
    std::copy(m, m + 9, mat);
  }
  fetch::Mat2Euler(mat, euler);
}

// rotations.euler2quat.
inline void Euler2Quat(const double euler[3], double quat[4]) {
  const double ai = euler[2] / 2, aj = -euler[1] / 2, ak = euler[0] / 2;
  const double si = std::sin(ai), sj = std::sin(aj), sk = std::sin(ak);
  const double ci = std::cos(ai), cj = std::cos(aj), ck = std::cos(ak);
  const double cc = ci * ck, cs = ci * sk, sc = si * ck, ss = si * sk;
  quat[0] = cj * cc + sj * ss;
  quat[3] = cj * sc - sj * cs;
  quat[2] = -(cj * ss + sj * cc);
  quat[1] = cj * cs - sj * sc;
}

// ---- The four tasks. ----

enum class AdroitTask { kDoor, kHammer, kPen, kRelocate };

struct AdroitParams {
  const char* xml;  // under gymnasium_robotics/envs/assets
  int obs_size, nu;
  const char* camera_distance;
  const char* camera_azimuth;
};

template <AdroitTask T>
constexpr AdroitParams Params() {
  if constexpr (T == AdroitTask::kDoor) return {"adroit_hand/adroit_door.xml", 39, 28, "distance=1.5", "azimuth=90.0"};
  if constexpr (T == AdroitTask::kHammer) {
    return {"adroit_hand/adroit_hammer.xml", 46, 26, "distance=2.0", "azimuth=45.0"};
  }
  if constexpr (T == AdroitTask::kPen) return {"adroit_hand/adroit_pen.xml", 45, 24, "distance=1.0", "azimuth=-45.0"};
  return {"adroit_hand/adroit_relocate.xml", 39, 30, "distance=1.5", "azimuth=90.0"};
}

// reward_type: "dense" or "sparse", any case (upstream lowers it); anything else is refused.
inline bool ReadSparse(const Config& config) {
  std::string t = config.Get<std::string>("reward_type");
  std::string lower = t;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "sparse") return true;
  if (lower == "dense") return false;
  throw std::invalid_argument("reward_type must be 'dense' or 'sparse', got '" + t + "'");
}

template <AdroitTask T>
class AdroitEnv : public Env {
  static constexpr AdroitParams kP = Params<T>();
  static constexpr int kFrameSkip = 5;

 public:
  // reward_type (upstream's default "dense"), and gymnasium MujocoEnv's render kwargs with the
  // task's DEFAULT_CAMERA_CONFIG.
  static Config DefaultConfig() {
    Config c{{"reward_type", std::string("dense")}};
    gym::AddRenderConfig(c, {kP.camera_distance, kP.camera_azimuth});
    return c;
  }

  // A float64 Box(-inf, inf) observation, a float32 Box(-1, 1, (nu,)) action, success a bool;
  // render_fps 100 (1 / (5 * 0.002)).
  static EnvSpec Spec(const Config& config) {
    ReadSparse(config);
    EnvSpec spec;
    spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat64, {kP.obs_size}, {-INFINITY}, {INFINITY}));
    spec.action.push_back(ArraySpec::Box("action", DType::kFloat32, {kP.nu}, {-1.0}, {1.0}));
    spec.info.push_back(ArraySpec::Box("success", DType::kBool, {}, {}, {}));
    std::tie(spec.render_height, spec.render_width) = gym::FrameSize(config);
    spec.render_fps = 100;
    return spec;
  }

  explicit AdroitEnv(const Config& config)
      : sparse_(ReadSparse(config)), model_(OwnModel()), m_(model_.get()), renderer_(config, m_) {
    const MjApi& mj = Mj();
    data_ = mj.makeData(m_);
    if (!data_) throw std::runtime_error("MuJoCo could not allocate mjData");
    init_qpos_.assign(data_->qpos, data_->qpos + m_->nq);
    init_qvel_.assign(data_->qvel, data_->qvel + m_->nv);
    for (int i = 0; i < m_->nu; ++i) {
      const double lo = m_->actuator_ctrlrange[2 * i], hi = m_->actuator_ctrlrange[2 * i + 1];
      act_mean_[i] = (lo + hi) / 2.0;
      act_rng_[i] = 0.5 * (hi - lo);
    }
    FindObjects();
  }
  ~AdroitEnv() override {
    if (data_) Mj().deleteData(data_);
  }
  AdroitEnv(const AdroitEnv&) = delete;
  AdroitEnv& operator=(const AdroitEnv&) = delete;

  void Reset(Rng& rng, Output& out) override {
    const MjApi& mj = Mj();
    mj.resetData(m_, data_);
    ResetModel(rng);
    std::copy(init_qpos_.begin(), init_qpos_.end(), data_->qpos);
    std::copy(init_qvel_.begin(), init_qvel_.end(), data_->qvel);
    mj.forward(m_, data_);
    if constexpr (T == AdroitTask::kPen) {
      pen_length_ = Distance3(SiteXpos(obj_top_), SiteXpos(obj_bottom_));
      tar_length_ = Distance3(SiteXpos(tar_top_), SiteXpos(tar_bottom_));
    }
    WriteObs(out.Obs<double>());
    *out.Info<bool>(0) = false;  // upstream's reset info is empty
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float* a = action.Get<float>();
    for (int i = 0; i < kP.nu; ++i) {
      const float clipped = std::clamp(a[i], -1.0f, 1.0f);
      data_->ctrl[i] = act_mean_[i] + static_cast<double>(clipped) * act_rng_[i];
    }
    const MjApi& mj = Mj();
    for (int k = 0; k < kFrameSkip; ++k) mj.step(m_, data_);
    mj.rnePostConstraint(m_, data_);
    WriteObs(out.Obs<double>());
    bool success = false;
    out.reward() = Reward(success);
    *out.Info<bool>(0) = success;
    out.terminated() = false;
  }

  void Render(uint8_t* rgb) const override { renderer_.Draw(m_, data_, rgb); }

  // MujocoEnv's get_state / set_state(qpos, qvel) (then mj_forward), as gym::MujocoEnv's: the
  // placement drawn at reset stays (it lives in the model; upstream's set_env_state sets it too).
  std::vector<double> GetState() const override { return ReadState(m_, data_); }
  void SetState(const std::vector<double>& state) override { SetMujocoEnvState(m_, data_, state); }

 private:
  // The task's model, compiled once per process, copied for this env (reset_model moves bodies
  // and sites in it), with construction's actuator gains.
  struct ModelDeleter {
    void operator()(mjModel* m) const { Mj().deleteModel(m); }
  };
  using OwnedModel = std::unique_ptr<mjModel, ModelDeleter>;

  static OwnedModel OwnModel() {
    std::shared_ptr<const mjModel> source = LoadModel((RoboticsAssetDir() / kP.xml).string());
    OwnedModel owned(Mj().copyModel(nullptr, source.get()));
    mjModel* m = owned.get();
    if (!m) throw std::runtime_error(std::string("MuJoCo could not copy the model of ") + kP.xml);
    auto set = [m](const char* first, const char* last, std::array<double, 3> gain, std::array<double, 3> bias) {
      const int lo = Mj().name2id(m, mjOBJ_ACTUATOR, first), hi = Mj().name2id(m, mjOBJ_ACTUATOR, last);
      if (lo < 0 || hi < lo) throw std::runtime_error(std::string("the Adroit model lacks actuator ") + first);
      for (int i = lo; i <= hi; ++i) {
        std::copy(gain.begin(), gain.end(), m->actuator_gainprm + static_cast<std::ptrdiff_t>(i) * mjNGAIN);
        std::copy(bias.begin(), bias.end(), m->actuator_biasprm + static_cast<std::ptrdiff_t>(i) * mjNBIAS);
      }
    };
    set("A_WRJ1", "A_WRJ0", {10, 0, 0}, {0, -10, 0});
    set("A_FFJ3", "A_THJ0", {1, 0, 0}, {0, -1, 0});
    if (m->nu != kP.nu)
      throw std::runtime_error(std::string("the Adroit model has an unexpected actuator count: ") + kP.xml);
    return owned;
  }

  int Id(mjtObj type, const char* name) const {
    const int id = Mj().name2id(m_, type, name);
    if (id < 0) throw std::runtime_error(std::string("the Adroit model has no object named ") + name);
    return id;
  }
  const double* SiteXpos(int site) const { return data_->site_xpos + 3 * site; }
  const double* BodyXpos(int body) const { return data_->xpos + 3 * body; }

  void FindObjects() {
    grasp_ = Id(mjOBJ_SITE, "S_grasp");
    if constexpr (T == AdroitTask::kDoor) {
      door_hinge_ = m_->jnt_dofadr[Id(mjOBJ_JOINT, "door_hinge")];
      handle_ = Id(mjOBJ_SITE, "S_handle");
      door_body_ = Id(mjOBJ_BODY, "frame");
    } else if constexpr (T == AdroitTask::kHammer) {
      target_site_ = Id(mjOBJ_SITE, "S_target");
      object_ = Id(mjOBJ_BODY, "Object");
      tool_ = Id(mjOBJ_SITE, "tool");
      goal_site_ = Id(mjOBJ_SITE, "nail_goal");
      board_ = Id(mjOBJ_BODY, "nail_board");
      nail_sensor_ = Id(mjOBJ_SENSOR, "S_nail");
    } else if constexpr (T == AdroitTask::kPen) {
      target_body_ = Id(mjOBJ_BODY, "target");
      object_ = Id(mjOBJ_BODY, "Object");
      eps_ball_ = Id(mjOBJ_SITE, "eps_ball");
      obj_top_ = Id(mjOBJ_SITE, "object_top");
      obj_bottom_ = Id(mjOBJ_SITE, "object_bottom");
      tar_top_ = Id(mjOBJ_SITE, "target_top");
      tar_bottom_ = Id(mjOBJ_SITE, "target_bottom");
    } else {
      target_site_ = Id(mjOBJ_SITE, "target");
      object_ = Id(mjOBJ_BODY, "Object");
    }
  }

  // reset_model's draws, in upstream's order.
  void ResetModel(Rng& rng) {
    if constexpr (T == AdroitTask::kDoor) {
      double* pos = m_->body_pos + 3 * door_body_;
      pos[0] = rng.Uniform(-0.3, -0.2);
      pos[1] = rng.Uniform(0.25, 0.35);
      pos[2] = rng.Uniform(0.252, 0.35);
    } else if constexpr (T == AdroitTask::kHammer) {
      m_->body_pos[3 * board_ + 2] = rng.Uniform(0.1, 0.25);
    } else if constexpr (T == AdroitTask::kPen) {
      double euler[3] = {0.0, 0.0, 0.0};
      euler[0] = rng.Uniform(-1.0, 1.0);
      euler[1] = rng.Uniform(-1.0, 1.0);
      Euler2Quat(euler, m_->body_quat + 4 * target_body_);
    } else {
      double* pos = m_->body_pos + 3 * object_;
      pos[0] = rng.Uniform(-0.15, 0.15);
      pos[1] = rng.Uniform(-0.15, 0.3);
      double* site = m_->site_pos + 3 * target_site_;
      site[0] = rng.Uniform(-0.2, 0.2);
      site[1] = rng.Uniform(-0.2, 0.2);
      site[2] = rng.Uniform(0.15, 0.35);
    }
  }

  // (top - bottom) / length of a pair of sites (the pen's and the target's orientation).
  void Orientation(int top, int bottom, double length, double out[3]) const {
    for (int j = 0; j < 3; ++j) out[j] = (SiteXpos(top)[j] - SiteXpos(bottom)[j]) / length;
  }

  void WriteObs(double* obs) const {
    const double* qpos = data_->qpos;
    const int nq = m_->nq;
    if constexpr (T == AdroitTask::kDoor) {
      const double door = qpos[door_hinge_];
      const double *palm = SiteXpos(grasp_), *handle = SiteXpos(handle_);
      obs = std::copy(qpos + 1, qpos + nq - 2, obs);
      *obs++ = qpos[nq - 1];
      *obs++ = door;
      obs = std::copy(palm, palm + 3, obs);
      obs = std::copy(handle, handle + 3, obs);
      for (int j = 0; j < 3; ++j) *obs++ = palm[j] - handle[j];
      *obs = door > 1.0 ? 1.0 : -1.0;
    } else if constexpr (T == AdroitTask::kHammer) {
      const int nv = m_->nv;
      obs = std::copy(qpos, qpos + nq - 6, obs);
      for (int i = nv - 6; i < nv; ++i) *obs++ = gym::Clip(data_->qvel[i], -1.0, 1.0);
      const double *palm = SiteXpos(grasp_), *object = BodyXpos(object_), *target = SiteXpos(target_site_);
      obs = std::copy(palm, palm + 3, obs);
      obs = std::copy(object, object + 3, obs);
      Quat2Euler(data_->xquat + 4 * object_, obs);
      obs += 3;
      obs = std::copy(target, target + 3, obs);
      // upstream indexes sensordata by the sensor's id (its address too: one value per sensor)
      *obs = gym::Clip(data_->sensordata[nail_sensor_], -1.0, 1.0);
    } else if constexpr (T == AdroitTask::kPen) {
      const double *object = BodyXpos(object_), *desired = SiteXpos(eps_ball_);
      double obj_orien[3], desired_orien[3];
      Orientation(obj_top_, obj_bottom_, pen_length_, obj_orien);
      Orientation(tar_top_, tar_bottom_, tar_length_, desired_orien);
      obs = std::copy(qpos, qpos + nq - 6, obs);
      obs = std::copy(object, object + 3, obs);
      obs = std::copy(data_->qvel + m_->nv - 6, data_->qvel + m_->nv, obs);
      obs = std::copy(obj_orien, obj_orien + 3, obs);
      obs = std::copy(desired_orien, desired_orien + 3, obs);
      for (int j = 0; j < 3; ++j) *obs++ = object[j] - desired[j];
      for (int j = 0; j < 3; ++j) *obs++ = obj_orien[j] - desired_orien[j];
    } else {
      const double *palm = SiteXpos(grasp_), *object = BodyXpos(object_), *target = SiteXpos(target_site_);
      obs = std::copy(qpos, qpos + nq - 6, obs);
      for (int j = 0; j < 3; ++j) *obs++ = palm[j] - object[j];
      for (int j = 0; j < 3; ++j) *obs++ = palm[j] - target[j];
      for (int j = 0; j < 3; ++j) *obs++ = object[j] - target[j];
    }
  }

  // The step's reward (sparse or the task's dense one) and success, with upstream's operations
  // in its order.
  double Reward(bool& success) const {
    if constexpr (T == AdroitTask::kDoor) {
      const double goal_distance = data_->qpos[door_hinge_];
      success = goal_distance >= 1.35;
      if (sparse_) return success ? 10.0 : -0.1;
      double reward = 0.1 * Distance3(SiteXpos(grasp_), SiteXpos(handle_));
      reward += -0.1 * (goal_distance - 1.57) * (goal_distance - 1.57);
      reward += -1e-5 * gym::SquaredSum(data_->qvel, static_cast<std::size_t>(m_->nv));
      if (goal_distance > 0.2) reward += 2;
      if (goal_distance > 1.0) reward += 8;
      if (goal_distance > 1.35) reward += 10;
      return reward;
    } else if constexpr (T == AdroitTask::kHammer) {
      const double *hammer = BodyXpos(object_), *palm = SiteXpos(grasp_), *head = SiteXpos(tool_);
      const double *nail = SiteXpos(target_site_), *goal = SiteXpos(goal_site_);
      const double goal_distance = Distance3(nail, goal);
      success = goal_distance < 0.01;
      if (sparse_) return success ? 10.0 : -0.1;
      double reward = 0.1 * Distance3(palm, hammer);
      reward -= Distance3(head, nail);
      reward -= 10 * Distance3(nail, goal);
      reward -= 1e-2 * std::sqrt(NumpyDot(data_->qvel, data_->qvel, m_->nv));
      if (hammer[2] > 0.04 && head[2] > 0.04) reward += 2;
      if (goal_distance < 0.020) reward += 25;
      if (goal_distance < 0.010) reward += 75;
      return reward;
    } else if constexpr (T == AdroitTask::kPen) {
      const double* object = BodyXpos(object_);
      double obj_orien[3], desired_orien[3];
      Orientation(obj_top_, obj_bottom_, pen_length_, obj_orien);
      Orientation(tar_top_, tar_bottom_, tar_length_, desired_orien);
      const double goal_distance = Distance3(object, SiteXpos(eps_ball_));
      const double orien_similarity = NumpyDot(obj_orien, desired_orien, 3);
      success = goal_distance < 0.075 && orien_similarity > 0.95;
      if (sparse_) return success ? 10.0 : -0.1;
      double reward = -goal_distance + orien_similarity;
      if (goal_distance < 0.075 && orien_similarity > 0.9) reward += 10;
      if (goal_distance < 0.075 && orien_similarity > 0.95) reward += 50;
      if (object[2] < 0.075) reward -= 5;
      return reward;
    } else {
      const double *object = BodyXpos(object_), *palm = SiteXpos(grasp_), *target = SiteXpos(target_site_);
      const double goal_distance = Distance3(object, target);
      success = goal_distance < 0.1;
      if (sparse_) return success ? 10.0 : -0.1;
      double reward = 0.1 * Distance3(palm, object);
      if (object[2] > 0.04) {
        reward += 1.0;
        reward += -0.5 * Distance3(palm, target);
        reward += -0.5 * Distance3(object, target);
      }
      if (goal_distance < 0.1) reward += 10.0;
      if (goal_distance < 0.05) reward += 20.0;
      return reward;
    }
  }

  bool sparse_;
  OwnedModel model_;  // this env's copy (reset_model writes into it)
  mjModel* m_;
  mjData* data_ = nullptr;
  mutable gym::GymRenderer renderer_;
  std::vector<double> init_qpos_, init_qvel_;
  std::array<double, kP.nu> act_mean_{}, act_rng_{};
  int grasp_ = -1, door_hinge_ = -1, handle_ = -1, door_body_ = -1;
  int target_site_ = -1, object_ = -1, tool_ = -1, goal_site_ = -1, board_ = -1, nail_sensor_ = -1;
  int target_body_ = -1, eps_ball_ = -1, obj_top_ = -1, obj_bottom_ = -1, tar_top_ = -1, tar_bottom_ = -1;
  double pen_length_ = 1.0, tar_length_ = 1.0;
};

}  // namespace envpool::mujoco::robotics::adroit
