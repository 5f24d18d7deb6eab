// PointMaze (gymnasium_robotics/envs/maze/point_maze.py PointMazeEnv over point.py PointEnv, a
// gymnasium MujocoEnv with frame_skip 1): a force-actuated ball in a maze of walls 0.4 high.
//
// Reset: a goal cell plus noise, a reset cell away from it plus noise, the ball placed there at
// rest (MazeEnv.reset, then PointEnv.reset with init_qpos[:2] = the reset position). Step: the
// action clipped to [-1, 1], the velocity clipped to [-5, 5] (set_state, so mj_forward), one
// mj_step; observation concat(qpos, qvel); reward / terminated from the goals (GoalRules); info
// `success`; then a continuing task with reset_target draws a new goal once this one is reached
// (the observation returned still shows the old one, as upstream's).
//
// kwargs: maze_map, reward_type ("sparse"), continuing_task (true), reset_target (false) and
// MujocoEnv's render kwargs, except default_camera_config, which PointMazeEnv sets itself from the
// map (distance 12.5 for maps of more than 8 rows, else 8.8).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/gym/mujoco_renderer.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/robotics/goal_env.h"
#include "envs/mujoco/robotics/maze/maze.h"
#include "envs/mujoco/state.h"

namespace envpool::mujoco::robotics::maze {

class PointMaze : public Env, public GoalRules {
 public:
  static constexpr double kMazeHeight = 0.4;  // PointMazeEnv: maze_size_scaling 1, maze_height 0.4
  static constexpr double kPositionNoise = 0.25;

  static Config DefaultConfig() {
    Config c{{"maze_map", std::vector<std::string>{"11111", "10001", "11101", "10001", "11111"}},  // U_MAZE
             {"reward_type", std::string("sparse")},
             {"continuing_task", true},
             {"reset_target", false}};
    gym::AddRenderConfig(c, {});
    return c;
  }

  // gymnasium MujocoEnv's render kwargs with PointMazeEnv's camera for this map.
  static Config RenderConfig(const Config& config) {
    Config c = config;
    const auto rows = config.Get<std::vector<std::string>>("maze_map").size();
    c.Set("default_camera_config", std::vector<std::string>{rows > 8 ? "distance=12.5" : "distance=8.8"});
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    Check(config);
    if (!config.Get<std::vector<std::string>>("default_camera_config").empty()) {
      throw std::invalid_argument(
          "default_camera_config: PointMaze sets it from the map (gymnasium-robotics' PointMazeEnv passes its own)");
    }
    EnvSpec spec;
    AddGoalObs(spec, 4, 2);
    spec.action.push_back(ArraySpec::Box("action", DType::kFloat32, {2}, {-1.0}, {1.0}));
    spec.info.push_back(ArraySpec::Box("success", DType::kBool, {}, {}, {}));
    std::tie(spec.render_height, spec.render_width) = gym::FrameSize(config);
    spec.render_fps = 50;  // PointMazeEnv.metadata (its PointEnv declares 100)
    return spec;
  }

  explicit PointMaze(const Config& config)
      : maze_(config.Get<std::vector<std::string>>("maze_map"), 1.0, kMazeHeight),
        reward_type_(Check(config)),
        continuing_task_(config.Get<bool>("continuing_task")),
        reset_target_(config.Get<bool>("reset_target")),
        model_(MazeModel(RoboticsAssetDir() / "point" / "point.xml", maze_)),
        renderer_(RenderConfig(config), model_.get()) {
    const MjApi& mj = Mj();
    m_ = mj.copyModel(nullptr, model_.get());
    if (!m_) throw std::runtime_error("MuJoCo could not copy the maze model");
    data_ = mj.makeData(m_);
    if (!data_) throw std::runtime_error("MuJoCo could not allocate mjData");
    if (m_->nq != 2 || m_->nv != 2 || m_->nu != 2) throw std::invalid_argument("PointMaze needs nq = nv = nu = 2");
    target_site_ = mj.name2id(m_, mjOBJ_SITE, "target");
    init_qpos_.assign(data_->qpos, data_->qpos + m_->nq);
    init_qvel_.assign(data_->qvel, data_->qvel + m_->nv);
  }
  ~PointMaze() override {
    if (data_) Mj().deleteData(data_);
    if (m_) Mj().deleteModel(m_);
  }
  PointMaze(const PointMaze&) = delete;
  PointMaze& operator=(const PointMaze&) = delete;

  void Reset(Rng& rng, Output& out) override {
    goal_ = maze_.DrawGoal(rng, kPositionNoise);
    const Xy cell = maze_.DrawResetCell(rng, goal_, 0.5 * maze_.scaling());
    MoveTarget();
    const Xy start = maze_.AddNoise(rng, cell, kPositionNoise);
    // PointEnv.reset: mj_resetData, set_state(init_qpos with the start, init_qvel), mj_forward.
    const MjApi& mj = Mj();
    mj.resetData(m_, data_);
    std::copy(init_qpos_.begin(), init_qpos_.end(), data_->qpos);
    data_->qpos[0] = start[0];
    data_->qpos[1] = start[1];
    std::copy(init_qvel_.begin(), init_qvel_.end(), data_->qvel);
    mj.forward(m_, data_);
    WriteObs(out);
    *out.Info<bool>(0) = Reached(data_->qpos, goal_.data());
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    const float* a = action.Get<float>();
    const MjApi& mj = Mj();
    // _clip_velocity: set_state(qpos, clip(qvel, -5, 5)), which runs mj_forward.
    for (int i = 0; i < m_->nv; ++i) data_->qvel[i] = std::clamp(data_->qvel[i], -5.0, 5.0);
    mj.forward(m_, data_);
    // do_simulation with the action clipped to [-1, 1] in float32.
    for (int i = 0; i < m_->nu; ++i) data_->ctrl[i] = static_cast<double>(std::clamp(a[i], -1.0f, 1.0f));
    mj.step(m_, data_);
    mj.rnePostConstraint(m_, data_);
    WriteObs(out);
    const double* achieved = data_->qpos;
    out.reward() = Reward(reward_type_, achieved, goal_.data());
    const bool reached = Reached(achieved, goal_.data());
    out.terminated() = !continuing_task_ && reached;
    *out.Info<bool>(0) = reached;
    // update_goal: a continuing task with reset_target draws goals until one is out of reach.
    if (continuing_task_ && reset_target_ && reached && maze_.goals().size() > 1) {
      while (Reached(achieved, goal_.data())) goal_ = maze_.DrawGoal(rng, kPositionNoise);
      MoveTarget();
    }
  }

  void Render(uint8_t* rgb) const override { renderer_.Draw(m_, data_, rgb); }

  std::vector<double> GetState() const override { return ReadStateWithGoal(m_, data_, goal_); }
  // The full layout of envs/mujoco/state.h followed by the goal (x, y).
  void SetState(const std::vector<double>& state) override {
    goal_ = WriteStateWithGoal(m_, data_, state);
    MoveTarget();
    Mj().forward(m_, data_);
  }

 private:
  // update_target_site_pos: the target site drawn at the goal, maze_height / 2 up.
  void MoveTarget() { MoveTargetSite(m_, target_site_, goal_, kMazeHeight / 2 * maze_.scaling()); }

  void WriteObs(const Output& out) const {
    const GoalObs obs = GoalObsOf(out);
    obs.observation[0] = data_->qpos[0];
    obs.observation[1] = data_->qpos[1];
    obs.observation[2] = data_->qvel[0];
    obs.observation[3] = data_->qvel[1];
    obs.achieved_goal[0] = data_->qpos[0];
    obs.achieved_goal[1] = data_->qpos[1];
    obs.desired_goal[0] = goal_[0];
    obs.desired_goal[1] = goal_[1];
  }

  Maze maze_;
  RewardType reward_type_;
  bool continuing_task_, reset_target_;
  std::shared_ptr<const mjModel> model_;
  mutable gym::GymRenderer renderer_;
  mjModel* m_ = nullptr;
  mjData* data_ = nullptr;
  int target_site_ = -1;
  std::vector<double> init_qpos_, init_qvel_;
  Xy goal_{};
};

}  // namespace envpool::mujoco::robotics::maze
