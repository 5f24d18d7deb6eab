// gymnasium-robotics 1.4.2's Fetch tasks (envs/fetch/fetch_env.py's MujocoFetchEnv and its Reach,
// Push, Slide and PickAndPlace subclasses), native. The model files are the installed
// gymnasium-robotics wheel's (envs/assets/fetch/*.xml), read at run time.
//
// Upstream, in order:
//   construction (_env_setup): the initial joint positions; every weld's eq_data[0:7] set to
//     (0, 0, 0, 0, 0, 0, 1) (reset_mocap_welds, which changes the model: a model per task here,
//     shared by its envs until an env draws its first frame, see Render); mj_forward twice; the
//     mocap moved to the grip site plus a fixed offset, its quaternion (1, 0, 1, 0); 10 x
//     n_substeps mj_steps. The grip site's position then is the centre of every goal; the object
//     site's height is the table height.
//   reset: mj_resetData; time, qpos, qvel of the end of construction; the object's (x, y) drawn
//     until 0.1 away from the gripper; mj_forward; the goal drawn (np_random, in that order).
//   step: the action clipped to [-1, 1] (float32); ctrl of the position actuators = finger qpos +
//     the gripper action (PickAndPlace; the others block the gripper and have no actuators); the
//     mocap = the welded body's pose + (0.05 * dx, dy, dz; quaternion + (1, 0, 1, 0));
//     n_substeps mj_steps; a blocked gripper's finger joints set to 0 and mj_forward; the
//     observation; is_success and the reward from the achieved and desired goals.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/gym/mujoco_env.h"
#include "envs/mujoco/gym/mujoco_renderer.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/robotics/goal_env.h"

namespace envpool::mujoco::robotics::fetch {

// ---- The goal rule: the step's reward and is_success, and compute_reward on a batch. ----

// How a task scores a goal: fetch_env.py's compute_reward (reward_type) and _is_success.
struct GoalRule {
  RewardType type = RewardType::kSparse;
  double distance_threshold = 0.05;
};

// compute_reward: sparse -(d > threshold) as float32 (-1 or -0), dense -d, d = goal_distance
// (np.linalg.norm(a - b, axis=-1)).
inline double GoalReward(const double* achieved, const double* desired, const GoalRule& rule) {
  const double d = GoalDistance(achieved, desired, 3);
  if (rule.type == RewardType::kDense) return -d;
  return d > rule.distance_threshold ? -1.0 : -0.0;
}

// _is_success: (d < threshold) as float32.
inline float GoalSuccess(const double* achieved, const double* desired, const GoalRule& rule) {
  return GoalDistance(achieved, desired, 3) < rule.distance_threshold ? 1.0f : 0.0f;
}

// The reward_type kwarg ("sparse" or "dense"; gymnasium-robotics treats anything but "sparse" as
// dense, which here is refused at make instead).
inline GoalRule ReadGoalRule(const Config& config, double distance_threshold) {
  return GoalRule{ParseRewardType(config), distance_threshold};
}

// ---- numpy's arithmetic where the observation depends on its rounding. ----

// numpy's `jac @ qvel` for a C-contiguous (3, nv) float64 Jacobian: numpy hands it to BLAS as a
// transposed gemv (dgemv_t, m = nv, n = 3). OpenBLAS 0.3.31's x86-64 dgemv_t (the Haswell
// kernel, which numpy 2.4's scipy-openblas runs on AVX2 and AVX-512 CPUs alike) splits m into
// m1 = m - m % 4 rows and a tail: columns 0 and 1 go through its SSE2 two-column kernel (two
// lanes, products added without fusing, the lanes added at the end), column 2 through its
// one-column kernel (two two-lane accumulators); the tail is C code compiled with fused
// multiply-adds. Measured bit for bit against numpy on random (3, nv) products, nv = 14 .. 22.
inline void JacTimesQvel(const double* jac, const double* qvel, int nv, double out[3]) {
  const int m1 = nv - nv % 4;
  for (int r = 0; r < 3; ++r) {
    const double* a = jac + static_cast<std::ptrdiff_t>(r) * nv;
    double s;
    if (r < 2) {
      double lane[2] = {0.0, 0.0};
      for (int i = 0; i < m1; ++i) lane[i % 2] += a[i] * qvel[i];
      s = lane[0] + lane[1];
    } else {
      double lane[4] = {0.0, 0.0, 0.0, 0.0};
      for (int i = 0; i < m1; ++i) lane[i % 4] += a[i] * qvel[i];
      s = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    }
    double y = 0.0 + s;  // y = beta * y (zero) + alpha * s
    const int t = m1;
    switch (nv - m1) {
      case 1:
        y = std::fma(a[t], qvel[t], y);
        break;
      case 2:
        y = y + std::fma(a[t], qvel[t], a[t + 1] * qvel[t + 1]);
        break;
      case 3:
        y = y + std::fma(a[t + 2], qvel[t + 2], std::fma(a[t], qvel[t], a[t + 1] * qvel[t + 1]));
        break;
      default:
        break;
    }
    out[r] = y;
  }
}

// rotations.mat2euler of a row-major 3x3 rotation matrix (both of np.where's branches are
// computed upstream; only the chosen one matters).
inline void Mat2Euler(const double* mat, double euler[3]) {
  constexpr double kEps4 = std::numeric_limits<double>::epsilon() * 4.0;
  const double cy = std::sqrt(mat[8] * mat[8] + mat[5] * mat[5]);
  if (cy > kEps4) {
    euler[2] = -std::atan2(mat[1], mat[0]);
    euler[1] = -std::atan2(-mat[2], cy);
    euler[0] = -std::atan2(mat[5], mat[8]);
  } else {
    euler[2] = -std::atan2(-mat[3], mat[4]);
    euler[1] = -std::atan2(-mat[2], cy);
    euler[0] = 0.0;
  }
}

// ---- The four tasks. ----

// One Fetch task's constants (its module's __init__ arguments).
struct FetchParams {
  const char* xml;  // under gymnasium_robotics/envs/assets
  bool has_object, block_gripper, target_in_the_air;
  double gripper_extra_height, obj_range, target_range, distance_threshold;
  std::array<double, 3> target_offset;
  double slide0;                      // initial_qpos["robot0:slide0"] (slide1 0.48, slide2 0)
  std::array<double, 7> object_qpos;  // initial_qpos["object0:joint"] when has_object
};

enum class FetchTask { kReach, kPush, kSlide, kPickAndPlace };

template <FetchTask T>
constexpr FetchParams Params() {
  if constexpr (T == FetchTask::kReach) {
    return {"fetch/reach.xml", false, true, true, 0.2, 0.15, 0.15, 0.05, {0, 0, 0}, 0.4049, {}};
  } else if constexpr (T == FetchTask::kPush) {
    return {
        "fetch/push.xml", true, true, false, 0.0, 0.15, 0.15, 0.05, {0, 0, 0}, 0.405, {1.25, 0.53, 0.4, 1, 0, 0, 0}};
  } else if constexpr (T == FetchTask::kSlide) {
    return {"fetch/slide.xml",           true, true, false, -0.02, 0.1, 0.3, 0.05, {0.4, 0, 0}, 0.05,
            {1.7, 1.1, 0.41, 1, 0, 0, 0}};
  } else {
    return {"fetch/pick_and_place.xml",   true, false, true, 0.2, 0.15, 0.15, 0.05, {0, 0, 0}, 0.405,
            {1.25, 0.53, 0.4, 1, 0, 0, 0}};
  }
}

// The task's model with reset_mocap_welds applied (a copy of the compiled XML, made once per
// process and file, then shared read-only by the envs).
inline std::shared_ptr<const mjModel> FetchModel(const char* xml) {
  const std::string path = (RoboticsAssetDir() / xml).string();
  std::shared_ptr<const mjModel> source = LoadModel(path);
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const mjModel>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(path); it != cache.end()) return it->second;
  const MjApi& mj = Mj();
  mjModel* m = mj.copyModel(nullptr, source.get());
  if (!m) throw std::runtime_error("MuJoCo could not copy the model of " + path);
  if (m->nmocap > 0) {
    for (int i = 0; i < m->neq; ++i) {
      if (m->eq_type[i] != mjEQ_WELD) continue;
      mjtNum* data = m->eq_data + static_cast<std::ptrdiff_t>(i) * mjNEQDATA;
      std::fill(data, data + 6, 0.0);
      data[6] = 1.0;
    }
  }
  std::shared_ptr<const mjModel> model(m, [](const mjModel*) { /* kept until exit, as LoadModel's */ });
  cache.emplace(path, model);
  return model;
}

template <FetchTask T>
class FetchEnv : public Env {
  static constexpr FetchParams kP = Params<T>();
  static constexpr int kObsSize = kP.has_object ? 25 : 10;
  static constexpr int kSubsteps = 20;

 public:
  // reward_type, and gymnasium MujocoEnv's render kwargs with fetch_env.py's DEFAULT_CAMERA_CONFIG.
  static Config DefaultConfig() {
    Config c{{"reward_type", std::string("sparse")}};
    gym::AddRenderConfig(c, {"distance=2.5", "azimuth=132.0", "elevation=-14.0", "lookat=1.3 0.75 0.55"});
    return c;
  }

  // Dict(achieved_goal, desired_goal, observation) (gymnasium's Dict orders its keys), a float32
  // Box(-1, 1, (4,)) action, is_success a float32 scalar; render_fps 25 (1 / (20 * 0.002)).
  static EnvSpec Spec(const Config& config) {
    ReadGoalRule(config, kP.distance_threshold);
    EnvSpec spec;
    AddGoalObs(spec, kObsSize, 3);
    spec.action.push_back(ArraySpec::Box("action", DType::kFloat32, {4}, {-1.0}, {1.0}));
    spec.info.push_back(ArraySpec::Box("is_success", DType::kFloat32, {}, {}, {}));
    std::tie(spec.render_height, spec.render_width) = gym::FrameSize(config);
    spec.render_fps = 25;
    return spec;
  }

  explicit FetchEnv(const Config& config)
      : rule_(ReadGoalRule(config, kP.distance_threshold)),
        model_(FetchModel(kP.xml)),
        m_(model_.get()),
        renderer_(config, m_) {
    const MjApi& mj = Mj();
    data_ = mj.makeData(m_);
    if (!data_) throw std::runtime_error("MuJoCo could not allocate mjData");
    jac_.assign(static_cast<std::size_t>(3 * m_->nv), 0.0);
    grip_site_ = Id(mjOBJ_SITE, "robot0:grip");
    if constexpr (kP.has_object) object_site_ = Id(mjOBJ_SITE, "object0");
    mocap_ = m_->body_mocapid[Id(mjOBJ_BODY, "robot0:mocap")];
    FindFingerJoints();
    Setup();
  }
  ~FetchEnv() override {
    if (data_) Mj().deleteData(data_);
    if (render_model_) Mj().deleteModel(render_model_);
  }
  FetchEnv(const FetchEnv&) = delete;
  FetchEnv& operator=(const FetchEnv&) = delete;

  void Reset(Rng& rng, Output& out) override {
    const MjApi& mj = Mj();
    mj.resetData(m_, data_);
    data_->time = initial_time_;
    std::copy(initial_qpos_.begin(), initial_qpos_.end(), data_->qpos);
    std::copy(initial_qvel_.begin(), initial_qvel_.end(), data_->qvel);
    if constexpr (kP.has_object) {
      double xy[2] = {initial_grip_[0], initial_grip_[1]};
      double offset[2] = {0.0, 0.0};
      while (gym::Norm(offset, 2) < 0.1) {
        xy[0] = initial_grip_[0] + rng.Uniform(-kP.obj_range, kP.obj_range);
        xy[1] = initial_grip_[1] + rng.Uniform(-kP.obj_range, kP.obj_range);
        offset[0] = xy[0] - initial_grip_[0];
        offset[1] = xy[1] - initial_grip_[1];
      }
      double* q = data_->qpos + m_->jnt_qposadr[Id(mjOBJ_JOINT, "object0:joint")];
      q[0] = xy[0];
      q[1] = xy[1];
    }
    mj.forward(m_, data_);
    SampleGoal(rng);
    WriteObs(out);
    *out.Info<float>(0) = 0.0f;  // upstream's reset info is empty
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const float* a = action.Get<float>();
    float act[4];
    for (int i = 0; i < 4; ++i) act[i] = std::clamp(a[i], -1.0f, 1.0f);
    SetAction(act);
    const MjApi& mj = Mj();
    for (int k = 0; k < kSubsteps; ++k) mj.step(m_, data_);
    if constexpr (kP.block_gripper) {
      for (int adr : finger_qpos_) data_->qpos[adr] = 0.0;
      mj.forward(m_, data_);
    }
    WriteObs(out);
    const double* achieved = GoalObsOf(out).achieved_goal;
    *out.Info<float>(0) = GoalSuccess(achieved, goal_, rule_);
    out.terminated() = false;
    out.reward() = GoalReward(achieved, goal_, rule_);
  }

  // render(): _render_callback moves the target site to the goal and calls mj_forward, which, as
  // upstream, refreshes the poses the next step's mocap starts from; then gymnasium's
  // MujocoRenderer draws the frame. The site moves in the env's own copy of the model, made at its
  // first frame, which the env then also steps (as upstream steps the model it moved the site in).
  void Render(uint8_t* rgb) const override {
    const MjApi& mj = Mj();
    if (!render_model_) {
      render_model_ = mj.copyModel(nullptr, m_);
      if (!render_model_) throw std::runtime_error("MuJoCo could not copy the Fetch model");
      m_ = render_model_;
    }
    const int target = mj.name2id(render_model_, mjOBJ_SITE, "target0");
    if (target >= 0 && render_model_->nsite > 0) {
      double offset[3];  // sites_offset[0] = site_xpos[0] - site_pos[0]
      for (int j = 0; j < 3; ++j) offset[j] = data_->site_xpos[j] - render_model_->site_pos[j];
      for (int j = 0; j < 3; ++j) render_model_->site_pos[3 * target + j] = goal_[j] - offset[j];
    }
    mj.forward(render_model_, data_);
    renderer_.Draw(render_model_, data_, rgb);
  }

  // The goal functions on batches of n goal rows (compute_reward / compute_terminated /
  // compute_truncated): the step's reward function with the config's reward_type; Fetch tasks
  // never terminate nor truncate by themselves (BaseRobotEnv returns False for both).
  static int GoalSize(const Config& /*config*/) { return 3; }
  // The one kwarg they read: envs that differ in others (frame sizes) share compute_reward.
  static std::vector<std::string> GoalConfigKeys() { return {"reward_type"}; }
  static void ComputeReward(const Config& config, const double* achieved, const double* desired, std::size_t n,
                            double* out) {
    const GoalRule rule = ReadGoalRule(config, kP.distance_threshold);
    for (std::size_t i = 0; i < n; ++i) out[i] = GoalReward(achieved + 3 * i, desired + 3 * i, rule);
  }
  static void ComputeTerminated(const Config& /*config*/, const double* /*achieved*/, const double* /*desired*/,
                                std::size_t n, double* out) {
    std::fill(out, out + n, 0.0);
  }
  static void ComputeTruncated(const Config& config, const double* achieved, const double* desired, std::size_t n,
                               double* out) {
    ComputeTerminated(config, achieved, desired, n, out);
  }

 private:
  int Id(mjtObj type, const char* name) const {
    const int id = Mj().name2id(m_, type, name);
    if (id < 0) throw std::runtime_error(std::string("the Fetch model has no object named ") + name);
    return id;
  }

  // robot_get_obs' last two joints (the joints named robot*, in id order: the fingers).
  void FindFingerJoints() {
    std::vector<int> robot;
    for (int j = 0; j < m_->njnt; ++j) {
      const char* name = m_->names + m_->name_jntadr[j];
      if (std::string(name).rfind("robot", 0) == 0) robot.push_back(j);
    }
    if (robot.size() < 2) throw std::runtime_error("the Fetch model has no gripper finger joints");
    for (int k = 0; k < 2; ++k) {
      const int j = robot[robot.size() - 2 + k];
      finger_qpos_[k] = m_->jnt_qposadr[j];
      finger_dof_[k] = m_->jnt_dofadr[j];
    }
  }

  // _env_setup, then MujocoRobotEnv's record of the initial state.
  void Setup() {
    const MjApi& mj = Mj();
    data_->qpos[m_->jnt_qposadr[Id(mjOBJ_JOINT, "robot0:slide0")]] = kP.slide0;
    data_->qpos[m_->jnt_qposadr[Id(mjOBJ_JOINT, "robot0:slide1")]] = 0.48;
    data_->qpos[m_->jnt_qposadr[Id(mjOBJ_JOINT, "robot0:slide2")]] = 0.0;
    if constexpr (kP.has_object) {
      std::copy(kP.object_qpos.begin(), kP.object_qpos.end(),
                data_->qpos + m_->jnt_qposadr[Id(mjOBJ_JOINT, "object0:joint")]);
    }
    mj.forward(m_, data_);  // reset_mocap_welds' (the welds were reset in FetchModel)
    mj.forward(m_, data_);
    const double* grip = data_->site_xpos + 3 * grip_site_;
    const double offset[3] = {-0.498, 0.005, -0.431 + kP.gripper_extra_height};
    for (int j = 0; j < 3; ++j) data_->mocap_pos[3 * mocap_ + j] = offset[j] + grip[j];
    const double quat[4] = {1.0, 0.0, 1.0, 0.0};
    std::copy(quat, quat + 4, data_->mocap_quat + 4 * mocap_);
    for (int k = 0; k < 10 * kSubsteps; ++k) mj.step(m_, data_);
    std::copy(grip, grip + 3, initial_grip_);
    if constexpr (kP.has_object) height_offset_ = data_->site_xpos[3 * object_site_ + 2];
    initial_time_ = data_->time;
    initial_qpos_.assign(data_->qpos, data_->qpos + m_->nq);
    initial_qvel_.assign(data_->qvel, data_->qvel + m_->nv);
  }

  // _sample_goal.
  void SampleGoal(Rng& rng) {
    for (int j = 0; j < 3; ++j) goal_[j] = initial_grip_[j] + rng.Uniform(-kP.target_range, kP.target_range);
    if constexpr (kP.has_object) {
      for (int j = 0; j < 3; ++j) goal_[j] += kP.target_offset[j];
      goal_[2] = height_offset_;
      if (kP.target_in_the_air && rng.Uniform() < 0.5) goal_[2] += rng.Uniform(0.0, 0.45);
    }
  }

  // _set_action: ctrl_set_action, then mocap_set_action (the welded body's pose plus the delta).
  void SetAction(const float* act) {
    double gripper[2] = {static_cast<double>(act[3]), static_cast<double>(act[3])};
    if constexpr (kP.block_gripper) gripper[0] = gripper[1] = 0.0;
    for (int i = 0; i < m_->nu && i < 2; ++i) {
      if (m_->actuator_biastype[i] == mjBIAS_NONE) {
        data_->ctrl[i] = gripper[i];
      } else {
        data_->ctrl[i] = data_->qpos[m_->jnt_qposadr[m_->actuator_trnid[2 * i]]] + gripper[i];
      }
    }
    const double pos_delta[3] = {static_cast<double>(act[0] * 0.05f), static_cast<double>(act[1] * 0.05f),
                                 static_cast<double>(act[2] * 0.05f)};
    const double quat_delta[4] = {1.0, 0.0, 1.0, 0.0};
    for (int i = 0; i < m_->neq; ++i) {
      if (m_->eq_type[i] != mjEQ_WELD) continue;
      int mocap = m_->body_mocapid[m_->eq_obj1id[i]];
      int body = m_->eq_obj2id[i];
      if (mocap == -1) {
        mocap = m_->body_mocapid[m_->eq_obj2id[i]];
        body = m_->eq_obj1id[i];
      }
      if (mocap < 0) continue;
      std::copy(data_->xpos + 3 * body, data_->xpos + 3 * body + 3, data_->mocap_pos + 3 * mocap);
      std::copy(data_->xquat + 4 * body, data_->xquat + 4 * body + 4, data_->mocap_quat + 4 * mocap);
    }
    // mocap_pos += pos_delta for every mocap body (one here).
    for (int k = 0; k < m_->nmocap; ++k) {
      for (int j = 0; j < 3; ++j) data_->mocap_pos[3 * k + j] += pos_delta[j];
      for (int j = 0; j < 4; ++j) data_->mocap_quat[4 * k + j] += quat_delta[j];
    }
  }

  // A site's linear (rot = false) or angular velocity times dt (get_site_xvelp / xvelr * dt).
  void SiteVelocity(int site, bool rot, double dt, double out[3]) {
    double* jac = jac_.data();
    if (rot) {
      Mj().jacSite(m_, data_, nullptr, jac, site);
    } else {
      Mj().jacSite(m_, data_, jac, nullptr, site);
    }
    JacTimesQvel(jac, data_->qvel, m_->nv, out);
    for (int j = 0; j < 3; ++j) out[j] *= dt;
  }

  // _get_obs: achieved_goal, desired_goal, observation.
  void WriteObs(Output& out) {
    const double dt = kSubsteps * m_->opt.timestep;
    const double* grip = data_->site_xpos + 3 * grip_site_;
    double grip_velp[3];
    SiteVelocity(grip_site_, false, dt, grip_velp);
    const GoalObs goal_obs = GoalObsOf(out);
    double* obs = goal_obs.observation;
    obs = std::copy(grip, grip + 3, obs);
    const double* achieved = grip;
    if constexpr (kP.has_object) {
      const double* object = data_->site_xpos + 3 * object_site_;
      achieved = object;
      double rot[3], velp[3], velr[3];
      Mat2Euler(data_->site_xmat + 9 * object_site_, rot);
      SiteVelocity(object_site_, false, dt, velp);
      SiteVelocity(object_site_, true, dt, velr);
      obs = std::copy(object, object + 3, obs);
      for (int j = 0; j < 3; ++j) *obs++ = object[j] - grip[j];
      for (int adr : finger_qpos_) *obs++ = data_->qpos[adr];
      obs = std::copy(rot, rot + 3, obs);
      for (int j = 0; j < 3; ++j) *obs++ = velp[j] - grip_velp[j];
      obs = std::copy(velr, velr + 3, obs);
    } else {
      for (int adr : finger_qpos_) *obs++ = data_->qpos[adr];
    }
    obs = std::copy(grip_velp, grip_velp + 3, obs);
    for (int adr : finger_dof_) *obs++ = data_->qvel[adr] * dt;
    std::copy(achieved, achieved + 3, goal_obs.achieved_goal);
    std::copy(goal_, goal_ + 3, goal_obs.desired_goal);
  }

  GoalRule rule_;
  std::shared_ptr<const mjModel> model_;
  mutable const mjModel* m_;  // model_, or render_model_ from the first frame on
  mjData* data_ = nullptr;
  // Its first frame makes the camera and this copy of the model (the target site moves in it).
  mutable gym::GymRenderer renderer_;
  mutable mjModel* render_model_ = nullptr;
  std::vector<double> jac_;  // 3 x nv, reused by every observation
  int grip_site_ = -1, object_site_ = -1, mocap_ = -1;
  int finger_qpos_[2] = {0, 0}, finger_dof_[2] = {0, 0};
  double initial_grip_[3] = {0, 0, 0};
  double height_offset_ = 0.0;
  double initial_time_ = 0.0;
  std::vector<double> initial_qpos_, initial_qvel_;
  double goal_[3] = {0, 0, 0};
};

}  // namespace envpool::mujoco::robotics::fetch
