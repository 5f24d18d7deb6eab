// gymnasium-robotics 1.4.2's HandManipulate Block / Egg / Pen tasks and their touch-sensor
// variants (envs/shadow_dexterous_hand/manipulate.py's MujocoManipulateEnv,
// manipulate_touch_sensors.py's MujocoManipulateTouchSensorsEnv), native.
//
// Upstream, in order:
//   construction: no initial joint values (initial_qpos {}), mj_forward; time, qpos, qvel
//     recorded.
//   reset (_reset_sim, repeated until the object lies on the palm): NO mj_resetData (the
//     solver's warm start and the controls carry over from before, as upstream); time, qpos,
//     qvel of construction; mj_forward; the object's initial rotation drawn (randomize_initial_
//     rotation; Pen: none): z: uniform(-pi, pi) about z; parallel: that times one of 24 parallel
//     rotations (integers(24)); xyz: uniform(-pi, pi) about a uniform(-1, 1, 3) axis; its
//     position + normal(scale=0.005, size=3) unless target_position is fixed; the quaternion
//     normalised; 10 x (zero action, 20 mj_steps); on the palm: mj_forward, object:center's
//     height > 0.04. Then the goal (_sample_goal): position = the object's + uniform(range)
//     (random) or the object's (ignore, fixed); rotation drawn as above, normalised.
//   step: hand_env.h's action, 20 mj_steps; observation (robot qpos, qvel, the object's qvel
//     and qpos = achieved_goal; touch variants: the 92 touch sensors' readings, as they are
//     (sensordata), > 0 (boolean) or log(x + 1) (log)).
//   goal distance: d_pos = |pos_a - pos_b| (0 when target_position is ignore), d_rot =
//     2 arccos(clip(w of quat_a * conj(quat_b))), Pen first giving quat_a the z Euler angle of
//     quat_b; is_success = (d_pos < threshold) * (d_rot < 0.1) as float32; reward sparse
//     is_success - 1, dense -(10 d_pos + d_rot).
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "envs/mujoco/robotics/hand/hand_env.h"
#include "envs/mujoco/robotics/hand/rotations.h"

namespace envpool::mujoco::robotics::hand {

enum class HandObject { kBlock, kEgg, kPen };

// One object's constants (its module's __init__ arguments).
struct ObjectParams {
  const char* xml;
  const char* touch_xml;
  bool randomize_initial_rotation;
  bool ignore_z_target_rotation;
  double distance_threshold;
};

template <HandObject O>
constexpr ObjectParams ObjectOf() {
  if constexpr (O == HandObject::kBlock) {
    return {"hand/manipulate_block.xml", "hand/manipulate_block_touch_sensors.xml", true, false, 0.01};
  } else if constexpr (O == HandObject::kEgg) {
    return {"hand/manipulate_egg.xml", "hand/manipulate_egg_touch_sensors.xml", true, false, 0.01};
  } else {
    return {"hand/manipulate_pen.xml", "hand/manipulate_pen_touch_sensors.xml", false, true, 0.05};
  }
}

enum class TargetPosition { kIgnore, kFixed, kRandom };
enum class TargetRotation { kXyz, kZ, kParallel };
enum class TouchObs { kSensordata, kBoolean, kLog };

inline TargetPosition ParseTargetPosition(const Config& config) {
  const auto v = config.Get<std::string>("target_position");
  if (v == "ignore") return TargetPosition::kIgnore;
  if (v == "fixed") return TargetPosition::kFixed;
  if (v == "random") return TargetPosition::kRandom;
  throw std::invalid_argument("target_position must be 'ignore', 'fixed' or 'random', got '" + v + "'");
}

// gymnasium-robotics also names "ignore" and "fixed", whose goal code fails at reset on the
// mujoco bindings (it calls MjData.get_joint_qpos, a mujoco_py method): refused here at make.
inline TargetRotation ParseTargetRotation(const Config& config) {
  const auto v = config.Get<std::string>("target_rotation");
  if (v == "xyz") return TargetRotation::kXyz;
  if (v == "z") return TargetRotation::kZ;
  if (v == "parallel") return TargetRotation::kParallel;
  throw std::invalid_argument("target_rotation must be 'xyz', 'z' or 'parallel', got '" + v +
                              "' (gymnasium-robotics 1.4.2 fails at reset on 'ignore' and 'fixed')");
}

inline TouchObs ParseTouchObs(const Config& config) {
  const auto v = config.Get<std::string>("touch_get_obs");
  if (v == "sensordata") return TouchObs::kSensordata;
  if (v == "boolean") return TouchObs::kBoolean;
  if (v == "log") return TouchObs::kLog;
  throw std::invalid_argument("touch_get_obs must be 'sensordata', 'boolean' or 'log', got '" + v + "'");
}

// How a task scores a goal (the kwargs the goal functions read, and the object's constants).
struct ManipulateRule {
  RewardType type = RewardType::kSparse;
  bool position_ignored = false;
  bool ignore_z = false;
  double distance_threshold = 0.01;
};

template <HandObject O>
ManipulateRule ReadManipulateRule(const Config& config) {
  constexpr ObjectParams kP = ObjectOf<O>();
  return {ParseRewardType(config), ParseTargetPosition(config) == TargetPosition::kIgnore, kP.ignore_z_target_rotation,
          kP.distance_threshold};
}

// _goal_distance of one 7-value goal row: (d_pos, d_rot).
inline std::pair<double, double> ManipulateDistances(const double* a, const double* b, const ManipulateRule& rule) {
  double d_pos = 0.0;
  if (!rule.position_ignored) d_pos = GoalRowDistance(a, b, 3);
  Quat qa{a[3], a[4], a[5], a[6]};
  const Quat qb{b[3], b[4], b[5], b[6]};
  if (rule.ignore_z) {
    Vec3 ea = Quat2Euler(qa);
    ea[2] = Quat2Euler(qb)[2];
    qa = Euler2Quat(ea);
  }
  const double w = QuatMul(qa, QuatConjugate(qb))[0];
  const double d_rot = 2 * std::acos(std::min(std::max(w, -1.0), 1.0));
  return {d_pos, d_rot};
}

inline float ManipulateSuccess(double d_pos, double d_rot, const ManipulateRule& rule) {
  const float pos = d_pos < rule.distance_threshold ? 1.0f : 0.0f;
  const float rot = d_rot < 0.1 ? 1.0f : 0.0f;
  return pos * rot;
}

inline double ManipulateReward(double d_pos, double d_rot, const ManipulateRule& rule) {
  if (rule.type == RewardType::kSparse) return static_cast<double>(ManipulateSuccess(d_pos, d_rot, rule) - 1.0f);
  return -(10.0 * d_pos + d_rot);
}

template <HandObject O, bool kTouch>
class HandManipulateEnv : public Env {
  static constexpr ObjectParams kP = ObjectOf<O>();
  static constexpr int kGoal = 7;
  static constexpr int kTouchSensors = 92;
  static constexpr int kObsSize = 24 * 2 + 6 + kGoal + (kTouch ? kTouchSensors : 0);

 public:
  // reward_type and the id's target_position / target_rotation (touch variants: touch_get_obs).
  static Config DefaultConfig() {
    Config c{{"reward_type", std::string("sparse")},
             {"target_position", std::string("random")},
             {"target_rotation", std::string("xyz")}};
    if constexpr (kTouch) c.Set("touch_get_obs", std::string("sensordata"));
    AddHandRenderConfig(c);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    ReadManipulateRule<O>(config);
    ParseTargetRotation(config);
    if constexpr (kTouch) ParseTouchObs(config);
    EnvSpec spec;
    AddGoalObs(spec, kObsSize, kGoal);
    AddHandSpec(spec, config);
    return spec;
  }

  explicit HandManipulateEnv(const Config& config)
      : rule_(ReadManipulateRule<O>(config)),
        position_(ParseTargetPosition(config)),
        rotation_(ParseTargetRotation(config)),
        touch_(kTouch ? ParseTouchObs(config) : TouchObs::kSensordata),
        sim_(config, kTouch ? kP.touch_xml : kP.xml),
        parallel_quats_(ParallelQuats()) {
    const mjModel* m = sim_.m_;
    if (sim_.RobotJoints() != 24) throw std::runtime_error("the Hand model has no 24 robot joints");
    const int object = sim_.Id(mjOBJ_JOINT, "object:joint");
    object_qpos_ = m->jnt_qposadr[object];
    object_dof_ = m->jnt_dofadr[object];
    const int target = sim_.Id(mjOBJ_JOINT, "target:joint");
    target_qpos_ = m->jnt_qposadr[target];
    target_dof_ = m->jnt_dofadr[target];
    center_site_ = sim_.Id(mjOBJ_SITE, "object:center");
    if constexpr (kTouch) FindTouchSensors();
    Mj().forward(sim_.m_, sim_.data_);
    sim_.RecordInitialState();
  }

  void Reset(Rng& rng, Output& out) override {
    while (!ResetSim(rng)) {
    }
    SampleGoal(rng);
    WriteObs(out);
    *out.Info<float>(0) = 0.0f;  // upstream's reset info is empty
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    sim_.Step(action.Get<float>());
    WriteObs(out);
    const auto [d_pos, d_rot] = ManipulateDistances(GoalObsOf(out).achieved_goal, goal_.data(), rule_);
    *out.Info<float>(0) = ManipulateSuccess(d_pos, d_rot, rule_);
    out.terminated() = false;
    out.reward() = ManipulateReward(d_pos, d_rot, rule_);
  }

  // _render_callback: the target object's joint set to the goal (0.15 to the side when the
  // position is ignored) with zero velocity, object_hidden made opaque where the model has it,
  // mj_forward, then the touch sites coloured by the contacts that forward found (on_touch);
  // then the frame.
  void Render(uint8_t* rgb) const override {
    mjModel* m = sim_.RenderModel();
    mjData* d = sim_.data_;
    std::array<double, kGoal> goal = goal_;
    if (position_ == TargetPosition::kIgnore) goal[0] += 0.15;
    std::copy(goal.begin(), goal.end(), d->qpos + target_qpos_);
    std::fill(d->qvel + target_dof_, d->qvel + target_dof_ + 6, 0.0);
    const int hidden = Mj().name2id(m, mjOBJ_GEOM, "object_hidden");
    if (hidden >= 0) m->geom_rgba[4 * hidden + 3] = 1.0f;
    Mj().forward(m, d);
    if constexpr (kTouch) {
      static constexpr float kTouchColor[4] = {1.0f, 0.0f, 0.0f, 0.5f};
      static constexpr float kNoTouchColor[4] = {0.0f, 0.5f, 0.0f, 0.2f};
      for (std::size_t k = 0; k < touch_sensors_.size(); ++k) {
        const float* color = d->sensordata[touch_sensors_[k]] != 0.0 ? kTouchColor : kNoTouchColor;
        std::copy(color, color + 4, m->site_rgba + 4 * touch_sites_[k]);
      }
    }
    sim_.Draw(rgb);
  }

  static int GoalSize(const Config& /*config*/) { return kGoal; }
  static std::vector<std::string> GoalConfigKeys() { return {"reward_type", "target_position"}; }
  static void ComputeReward(const Config& config, const double* achieved, const double* desired, std::size_t n,
                            double* out) {
    const ManipulateRule rule = ReadManipulateRule<O>(config);
    for (std::size_t i = 0; i < n; ++i) {
      const auto [d_pos, d_rot] = ManipulateDistances(achieved + kGoal * i, desired + kGoal * i, rule);
      out[i] = ManipulateReward(d_pos, d_rot, rule);
    }
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
  // The sensors named robot0:TS_*, in id order, and their sites robot0:T_*.
  void FindTouchSensors() {
    const mjModel* m = sim_.m_;
    for (int s = 0; s < m->nsensor; ++s) {
      const std::string name(m->names + m->name_sensoradr[s]);
      if (name.find("robot0:TS_") == std::string::npos) continue;
      std::string site = name;
      site.replace(site.find("robot0:TS_"), 10, "robot0:T_");
      touch_sensors_.push_back(s);
      touch_sites_.push_back(sim_.Id(mjOBJ_SITE, site.c_str()));
    }
    if (touch_sensors_.size() != kTouchSensors) throw std::runtime_error("the Hand model has no 92 touch sensors");
  }

  // A rotation drawn as the target_rotation says (the initial offset and the goal alike).
  Quat DrawRotation(Rng& rng) const {
    const double angle = rng.Uniform(-M_PI, M_PI);
    if (rotation_ == TargetRotation::kXyz) {
      Vec3 axis;
      for (double& v : axis) v = rng.Uniform(-1.0, 1.0);
      return QuatFromAngleAndAxis(angle, axis);
    }
    const Quat z = QuatFromAngleAndAxis(angle, {0.0, 0.0, 1.0});
    if (rotation_ == TargetRotation::kZ) return z;
    return QuatMul(z, parallel_quats_[rng.Below(parallel_quats_.size())]);
  }

  // One try of _reset_sim; false when the object fell off the palm.
  bool ResetSim(Rng& rng) {
    const MjApi& mj = Mj();
    mjData* d = sim_.data_;
    sim_.RestoreInitialState();
    mj.forward(sim_.m_, d);
    double* q = d->qpos + object_qpos_;
    Vec3 pos{q[0], q[1], q[2]};
    Quat quat{q[3], q[4], q[5], q[6]};
    if (kP.randomize_initial_rotation) quat = QuatMul(quat, DrawRotation(rng));
    if (position_ != TargetPosition::kFixed) {
      for (double& v : pos) v += rng.Normal(0.0, 0.005);
    }
    const double n = Norm(quat);
    for (double& v : quat) v /= n;
    std::copy(pos.begin(), pos.end(), q);
    std::copy(quat.begin(), quat.end(), q + 3);
    static constexpr float kZero[kActions] = {};
    for (int k = 0; k < 10; ++k) {
      sim_.SetAction(kZero);
      sim_.StepPhysics();
    }
    mj.forward(sim_.m_, d);
    return d->site_xpos[3 * center_site_ + 2] > 0.04;
  }

  void SampleGoal(Rng& rng) {
    static constexpr double kLow[3] = {-0.04, -0.06, 0.0}, kHigh[3] = {0.04, 0.02, 0.06};
    const double* q = sim_.data_->qpos + object_qpos_;
    for (int j = 0; j < 3; ++j) goal_[j] = q[j];
    if (position_ == TargetPosition::kRandom) {
      double offset[3];
      for (int j = 0; j < 3; ++j) offset[j] = rng.Uniform(kLow[j], kHigh[j]);
      for (int j = 0; j < 3; ++j) goal_[j] = q[j] + offset[j];
    }
    Quat quat = DrawRotation(rng);
    const double n = Norm(quat);
    for (double& v : quat) v /= n;
    std::copy(quat.begin(), quat.end(), goal_.begin() + 3);
  }

  void WriteObs(Output& out) const {
    const mjData* d = sim_.data_;
    const GoalObs o = GoalObsOf(out);
    double* obs = sim_.WriteRobotObs(o.observation);
    obs = std::copy(d->qvel + object_dof_, d->qvel + object_dof_ + 6, obs);
    obs = std::copy(d->qpos + object_qpos_, d->qpos + object_qpos_ + kGoal, obs);
    if constexpr (kTouch) {
      for (int s : touch_sensors_) {
        const double v = d->sensordata[s];
        if (touch_ == TouchObs::kSensordata) {
          *obs++ = v;
        } else if (touch_ == TouchObs::kBoolean) {
          *obs++ = v > 0.0 ? 1.0 : 0.0;
        } else {
          *obs++ = std::log(v + 1.0);
        }
      }
    }
    std::copy(d->qpos + object_qpos_, d->qpos + object_qpos_ + kGoal, o.achieved_goal);
    std::copy(goal_.begin(), goal_.end(), o.desired_goal);
  }

  ManipulateRule rule_;
  TargetPosition position_;
  TargetRotation rotation_;
  TouchObs touch_;
  HandSim sim_;
  std::vector<Quat> parallel_quats_;
  int object_qpos_ = 0, object_dof_ = 0, target_qpos_ = 0, target_dof_ = 0, center_site_ = -1;
  std::vector<int> touch_sensors_, touch_sites_;
  std::array<double, kGoal> goal_{};
};

}  // namespace envpool::mujoco::robotics::hand
