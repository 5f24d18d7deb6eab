// What gymnasium-robotics 1.4.2's Shadow Dexterous Hand tasks share (envs/shadow_dexterous_hand/
// hand_env.py's MujocoHandEnv on robot_env.py's MujocoRobotEnv): the model read from the
// installed wheel (envs/assets/hand/*.xml), the 20 position actuators driven by a float32
// Box(-1, 1, (20,)) action, 20 mj_steps a step, the robot joints' qpos / qvel in the
// observation, the camera of DEFAULT_CAMERA_CONFIG and a float32 is_success.
//
// The action, as MujocoHandEnv._set_action without relative_control: clipped to [-1, 1]
// (float32, BaseRobotEnv.step), ctrl = centre + action * half range of each actuator's
// ctrlrange (float64, the product rounded before the sum), clipped to the ctrlrange.
#pragma once

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/gym/mujoco_env.h"
#include "envs/mujoco/gym/mujoco_renderer.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/robotics/goal_env.h"

namespace envpool::mujoco::robotics::hand {

inline constexpr int kActions = 20;
inline constexpr int kSubsteps = 20;

// The render kwargs with hand_env.py's DEFAULT_CAMERA_CONFIG.
inline void AddHandRenderConfig(Config& c) {
  gym::AddRenderConfig(c, {"distance=0.5", "azimuth=55.0", "elevation=-25.0", "lookat=1 0.96 0.14"});
}

// The action box, is_success and the frame size (render_fps 25 = 1 / (20 * 0.002)).
inline void AddHandSpec(EnvSpec& spec, const Config& config) {
  spec.action.push_back(ArraySpec::Box("action", DType::kFloat32, {kActions}, {-1.0}, {1.0}));
  spec.info.push_back(ArraySpec::Box("is_success", DType::kFloat32, {}, {}, {}));
  std::tie(spec.render_height, spec.render_width) = gym::FrameSize(config);
  spec.render_fps = 25;
}

// np.linalg.norm(a - b, axis=-1) of one goal row of n values: the squares added as numpy's
// pairwise add.reduce adds them (eight partial sums from 8 values on), then the square root.
inline double GoalRowDistance(const double* a, const double* b, int n) {
  return std::sqrt(gym::NumpySum<double>(static_cast<std::size_t>(n), [a, b](std::size_t i) {
    const double d = a[i] - b[i];
    return d * d;
  }));
}

// One env's model, data and the pieces every Hand task reads.
class HandSim {
 public:
  HandSim(const Config& config, const char* xml)
      : model_(LoadModel((RoboticsAssetDir() / xml).string())), m_(model_.get()), renderer_(config, m_) {
    const MjApi& mj = Mj();
    data_ = mj.makeData(m_);
    if (!data_) throw std::runtime_error("MuJoCo could not allocate mjData");
    if (m_->nu != kActions) throw std::runtime_error(std::string("the Hand model ") + xml + " has no 20 actuators");
    for (int j = 0; j < m_->njnt; ++j) {  // robot_get_obs: the joints named robot*, in id order
      if (std::string(m_->names + m_->name_jntadr[j]).rfind("robot", 0) == 0) {
        robot_qpos_.push_back(m_->jnt_qposadr[j]);
        robot_dof_.push_back(m_->jnt_dofadr[j]);
      }
    }
    for (int i = 0; i < kActions; ++i) {
      const double lo = m_->actuator_ctrlrange[2 * i], hi = m_->actuator_ctrlrange[2 * i + 1];
      ctrl_centre_[i] = (hi + lo) / 2.0;
      ctrl_half_range_[i] = (hi - lo) / 2.0;
    }
  }
  ~HandSim() {
    if (data_) Mj().deleteData(data_);
    if (render_model_) Mj().deleteModel(render_model_);
  }
  HandSim(const HandSim&) = delete;
  HandSim& operator=(const HandSim&) = delete;

  int Id(mjtObj type, const char* name) const {
    const int id = Mj().name2id(m_, type, name);
    if (id < 0) throw std::runtime_error(std::string("the Hand model has no object named ") + name);
    return id;
  }

  // _set_action of an action already in [-1, 1].
  void SetAction(const float* action) {
    for (int i = 0; i < kActions; ++i) {
      const double c = ctrl_centre_[i] + static_cast<double>(action[i]) * ctrl_half_range_[i];
      data_->ctrl[i] = std::min(std::max(c, m_->actuator_ctrlrange[2 * i]), m_->actuator_ctrlrange[2 * i + 1]);
    }
  }

  // BaseRobotEnv.step's clip, _set_action, then n_substeps mj_steps.
  void Step(const float* action) {
    float clipped[kActions];
    for (int i = 0; i < kActions; ++i) clipped[i] = std::clamp(action[i], -1.0f, 1.0f);
    SetAction(clipped);
    StepPhysics();
  }
  void StepPhysics() {
    const MjApi& mj = Mj();
    for (int k = 0; k < kSubsteps; ++k) mj.step(m_, data_);
  }

  // robot_qpos then robot_qvel; returns the end.
  double* WriteRobotObs(double* obs) const {
    for (int adr : robot_qpos_) *obs++ = data_->qpos[adr];
    for (int adr : robot_dof_) *obs++ = data_->qvel[adr];
    return obs;
  }
  int RobotJoints() const { return static_cast<int>(robot_qpos_.size()); }

  // MujocoRobotEnv's record of the state after _env_setup, and its restore (time, qpos, qvel).
  void RecordInitialState() {
    initial_time_ = data_->time;
    initial_qpos_.assign(data_->qpos, data_->qpos + m_->nq);
    initial_qvel_.assign(data_->qvel, data_->qvel + m_->nv);
  }
  void RestoreInitialState() {
    data_->time = initial_time_;
    std::copy(initial_qpos_.begin(), initial_qpos_.end(), data_->qpos);
    std::copy(initial_qvel_.begin(), initial_qvel_.end(), data_->qvel);
  }

  // The model a frame changes (the target sites' or geoms' colours and places): the env's own
  // copy, made at its first frame, which the env then also steps (as upstream steps the model
  // its _render_callback changed).
  mjModel* RenderModel() const {
    if (!render_model_) {
      render_model_ = Mj().copyModel(nullptr, m_);
      if (!render_model_) throw std::runtime_error("MuJoCo could not copy the Hand model");
      m_ = render_model_;
    }
    return render_model_;
  }
  void Draw(uint8_t* rgb) const { renderer_.Draw(m_, data_, rgb); }

  std::shared_ptr<const mjModel> model_;
  mutable const mjModel* m_;  // model_, or render_model_ from the first frame on
  mjData* data_ = nullptr;

 private:
  mutable gym::GymRenderer renderer_;
  mutable mjModel* render_model_ = nullptr;
  std::vector<int> robot_qpos_, robot_dof_;
  double ctrl_centre_[kActions] = {}, ctrl_half_range_[kActions] = {};
  double initial_time_ = 0.0;
  std::vector<double> initial_qpos_, initial_qvel_;
};

}  // namespace envpool::mujoco::robotics::hand
