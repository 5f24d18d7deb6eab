// AntMaze v5 / v4 / v3 (gymnasium_robotics/envs/maze/ant_maze_v5.py, _v4.py, _v3.py): gymnasium's
// Ant (ant_v5.AntEnv for v5, ant_v4.AntEnv for v4 and v3) on gymnasium's ant.xml with the maze's
// walls (cells 4 wide, walls 0.5 high), exclude_current_positions_from_observation=False and
// reset_noise_scale=0. The ant's observation's first two values (the torso's x, y) are the
// achieved goal, the rest the `observation`; the ant's own reward and termination are dropped
// for the maze's, its info kept (plus `success` from v4 on).
//
// v5 / v4 follow maze_v4.MazeEnv (as PointMaze). v3 follows maze.MazeEnv: a reset cell needs only
// be 0.5 (not 0.5 * 4) from the goal; no `success`; no reset_target: a continuing task replaces a
// reached goal by one new draw inside compute_terminated, which runs before compute_reward, so the
// reward of that step is computed against the new goal (the observation shows the old one).
//
// kwargs: the maze's (maze_map, reward_type, continuing_task, reset_target from v4) and the Ant's
// that AntMazeEnv passes through (v5: xml_file, frame_skip, forward_reward_weight, main_body,
// include_cfrc_ext_in_observation, default_camera_config; v4 / v3: use_contact_forces; all:
// ctrl_cost_weight, contact_cost_weight, healthy_reward, terminate_when_unhealthy,
// healthy_z_range, contact_force_range, and MujocoEnv's render kwargs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/gym/mujoco_env.h"
#include "envs/mujoco/gym/mujoco_renderer.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/robotics/goal_env.h"
#include "envs/mujoco/robotics/maze/maze.h"
#include "envs/mujoco/state.h"

namespace envpool::mujoco::robotics::maze {

enum class AntMazeVersion { kV3, kV4, kV5 };

template <AntMazeVersion V>
class AntMaze : public Env, public GoalRules {
  static constexpr bool kAnt5 = V == AntMazeVersion::kV5;
  static constexpr gym::Version kAntVersion = kAnt5 ? gym::Version::kV5 : gym::Version::kV4;
  static constexpr const char* kCamera = "distance=4.0";  // the Ant's DEFAULT_CAMERA_CONFIG

 public:
  static constexpr double kScaling = 4.0, kMazeHeight = 0.5, kPositionNoise = 0.25;

  static Config DefaultConfig() {
    Config c{{"maze_map", std::vector<std::string>{"11111", "10001", "11101", "10001", "11111"}},  // U_MAZE
             {"reward_type", std::string("sparse")},
             {"continuing_task", true},
             {"ctrl_cost_weight", 0.5},
             {"contact_cost_weight", 5e-4},
             {"healthy_reward", 1.0},
             {"terminate_when_unhealthy", true},
             {"healthy_z_range", std::vector<double>{0.2, 1.0}},
             {"contact_force_range", std::vector<double>{-1.0, 1.0}}};
    if constexpr (V != AntMazeVersion::kV3) c.Set("reset_target", false);
    if constexpr (kAnt5) {
      c.Set("xml_file", std::string());  // "": gymnasium's ant.xml
      c.Set("frame_skip", int64_t{5});
      c.Set("forward_reward_weight", 1.0);
      c.Set("main_body", std::string("1"));
      c.Set("include_cfrc_ext_in_observation", true);
    } else {
      c.Set("use_contact_forces", false);
    }
    gym::AddRenderConfig(c, {kCamera});
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    Check(config);
    if constexpr (!kAnt5) {
      if (config.Get<std::vector<std::string>>("default_camera_config") != std::vector<std::string>{kCamera}) {
        throw std::invalid_argument("default_camera_config: ant_v4's AntEnv, which this AntMaze version runs, sets it");
      }
    }
    // gymnasium's MujocoEnv keeps it in a C int as the gym MuJoCo tasks here do; larger would be
    // a step that never ends.
    if (FrameSkip(config) < 1 || FrameSkip(config) > std::numeric_limits<int>::max()) {
      throw std::invalid_argument("frame_skip must be >= 1 and at most 2147483647");
    }
    EnvSpec spec;
    AddGoalObs(spec, ObsSize(config) - 2, 2);
    spec.action.push_back(ArraySpec::Box("action", DType::kFloat32, {8}, {-1.0}, {1.0}));
    for (const char* name : kAnt5 ? kInfo5 : kInfo4)
      spec.info.push_back(ArraySpec::Box(name, DType::kFloat64, {}, {}, {}));
    if constexpr (V != AntMazeVersion::kV3) spec.info.push_back(ArraySpec::Box("success", DType::kBool, {}, {}, {}));
    std::tie(spec.render_height, spec.render_width) = gym::FrameSize(config);
    spec.render_fps = 50;  // AntMazeEnv.metadata
    return spec;
  }

  explicit AntMaze(const Config& config)
      : maze_(config.Get<std::vector<std::string>>("maze_map"), kScaling, kMazeHeight),
        reward_type_(Check(config)),
        continuing_task_(config.Get<bool>("continuing_task")),
        reset_target_(V != AntMazeVersion::kV3 && config.Get<bool>("reset_target")),
        model_(MazeModel(AgentXml(config), maze_)),
        renderer_(config, model_.get()),
        frame_skip_(FrameSkip(config)),
        forward_reward_weight_(kAnt5 ? config.Get<double>("forward_reward_weight") : 1.0),
        ctrl_cost_weight_(config.Get<double>("ctrl_cost_weight")),
        contact_cost_weight_(config.Get<double>("contact_cost_weight")),
        healthy_reward_(config.Get<double>("healthy_reward")),
        terminate_when_unhealthy_(config.Get<bool>("terminate_when_unhealthy")),
        z_range_(gym::Range(config, "healthy_z_range")),
        force_range_(gym::Range(config, "contact_force_range")) {
    const MjApi& mj = Mj();
    m_ = mj.copyModel(nullptr, model_.get());
    if (!m_) throw std::runtime_error("MuJoCo could not copy the maze model");
    data_ = mj.makeData(m_);
    if (!data_) throw std::runtime_error("MuJoCo could not allocate mjData");
    if (m_->nu != 8 || ObsSize(config) != m_->nq + m_->nv + ContactObsSize(config, m_->nbody)) {
      throw std::invalid_argument("AntMaze needs gymnasium's Ant model (8 actuators, 14 bodies)");
    }
    main_body_ = BodyId(m_, kAnt5 ? config.Get<std::string>("main_body") : std::string("torso"));
    target_site_ = mj.name2id(m_, mjOBJ_SITE, "target");
    init_qpos_.assign(data_->qpos, data_->qpos + m_->nq);
    init_qvel_.assign(data_->qvel, data_->qvel + m_->nv);
    contact_forces_.assign(static_cast<std::size_t>(m_->nbody) * 6, 0.0);
    contact_obs_first_ = kAnt5 ? 6 : 0;
    contact_obs_size_ = ContactObsSize(config, m_->nbody);
  }
  ~AntMaze() override {
    if (data_) Mj().deleteData(data_);
    if (m_) Mj().deleteModel(m_);
  }
  AntMaze(const AntMaze&) = delete;
  AntMaze& operator=(const AntMaze&) = delete;

  void Reset(Rng& rng, Output& out) override {
    goal_ = maze_.DrawGoal(rng, kPositionNoise);
    const double min_distance = V == AntMazeVersion::kV3 ? 0.5 : 0.5 * kScaling;
    const Xy cell = maze_.DrawResetCell(rng, goal_, min_distance);
    const Xy start = maze_.AddNoise(rng, cell, kPositionNoise);
    MoveTarget();
    // AntEnv.reset with init_qpos[:2] = the start and no noise (reset_noise_scale=0: the noise
    // the ant draws from its own generator is zero).
    const MjApi& mj = Mj();
    mj.resetData(m_, data_);
    std::copy(init_qpos_.begin(), init_qpos_.end(), data_->qpos);
    data_->qpos[0] = start[0];
    data_->qpos[1] = start[1];
    std::copy(init_qvel_.begin(), init_qvel_.end(), data_->qvel);
    mj.forward(m_, data_);
    ClipContactForces();
    WriteObs(out);
    const double* xy = data_->xpos + 3 * main_body_;
    if constexpr (kAnt5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], gym::Norm(data_->qpos, 2), 0, 0, 0, 0, 0, 0});
    } else {
      WriteInfo(out, {0, 0, 0, xy[0], xy[1], gym::Norm(xy, 2), 0, 0, 0});
    }
    if constexpr (V != AntMazeVersion::kV3) *out.Info<bool>(kInfoCount) = Reached(data_->qpos, goal_.data());
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    const float* a = action.Get<float>();
    AntStep(a, out);
    const double* achieved = data_->qpos;
    const bool reached = Reached(achieved, goal_.data());
    out.terminated() = !continuing_task_ && reached;
    if constexpr (V == AntMazeVersion::kV3) {
      // maze.MazeEnv.compute_terminated: one new goal, before the reward is computed.
      if (continuing_task_ && reached && maze_.goals().size() > 1) {
        goal_ = maze_.DrawGoal(rng, kPositionNoise);
        MoveTarget();
      }
      out.reward() = Reward(reward_type_, achieved, goal_.data());
    } else {
      out.reward() = Reward(reward_type_, achieved, goal_.data());
      *out.Info<bool>(kInfoCount) = reached;
      if (continuing_task_ && reset_target_ && reached && maze_.goals().size() > 1) {
        while (Reached(achieved, goal_.data())) goal_ = maze_.DrawGoal(rng, kPositionNoise);
        MoveTarget();
      }
    }
  }

  void Render(uint8_t* rgb) const override { renderer_.Draw(m_, data_, rgb); }

  // The full layout of envs/mujoco/state.h, then the goal (x, y).
  std::vector<double> GetState() const override { return ReadStateWithGoal(m_, data_, goal_); }
  void SetState(const std::vector<double>& state) override {
    goal_ = WriteStateWithGoal(m_, data_, state);
    MoveTarget();
    Mj().forward(m_, data_);
  }

 private:
  static constexpr const char* kInfo5[] = {"x_position",  "y_position",     "distance_from_origin",
                                           "x_velocity",  "y_velocity",     "reward_forward",
                                           "reward_ctrl", "reward_contact", "reward_survive"};
  static constexpr const char* kInfo4[] = {"reward_forward", "reward_ctrl", "reward_survive",
                                           "x_position",     "y_position",  "distance_from_origin",
                                           "x_velocity",     "y_velocity",  "forward_reward"};
  static constexpr std::size_t kInfoCount = 9;

  static int64_t FrameSkip(const Config& config) { return kAnt5 ? config.Get<int64_t>("frame_skip") : 5; }
  // The Ant's observation: qpos (15), qvel (14), then the clipped contact forces it observes.
  static int ContactObsSize(const Config& config, int nbody) {
    if constexpr (kAnt5) return config.Get<bool>("include_cfrc_ext_in_observation") ? (nbody - 1) * 6 : 0;
    return config.Get<bool>("use_contact_forces") ? nbody * 6 : 0;
  }
  static int ObsSize(const Config& config) { return 15 + 14 + ContactObsSize(config, 14); }
  static std::filesystem::path AgentXml(const Config& config) {
    if constexpr (kAnt5) {
      const std::string file = config.Get<std::string>("xml_file");
      if (!file.empty()) {
        std::error_code ec;
        if (!std::filesystem::exists(file, ec))
          throw std::invalid_argument("xml_file: File " + file + " does not exist");
        return file;
      }
    }
    return ResolveModelPath("ant.xml");  // gymnasium's envs/mujoco/assets/ant.xml
  }

  // ant_v5 / ant_v4 AntEnv.step without its reward and termination: the observation and info.
  void AntStep(const float* a, Output& out) {
    const double* xy = data_->xpos + 3 * main_body_;
    const double x_before = xy[0], y_before = xy[1];
    for (int i = 0; i < m_->nu; ++i) data_->ctrl[i] = static_cast<double>(a[i]);
    const MjApi& mj = Mj();
    for (int64_t k = 0; k < frame_skip_; ++k) mj.step(m_, data_);
    mj.rnePostConstraint(m_, data_);
    const double dt = m_->opt.timestep * static_cast<double>(frame_skip_);
    const double x_velocity = (xy[0] - x_before) / dt, y_velocity = (xy[1] - y_before) / dt;
    ClipContactForces();
    WriteObs(out);
    const double forward_reward = x_velocity * forward_reward_weight_;
    const double healthy_reward =
        gym::HealthyReward(kAntVersion, IsHealthy(), terminate_when_unhealthy_, healthy_reward_);
    const double ctrl_cost = gym::ControlCost(a, m_->nu, ctrl_cost_weight_);
    const double contact_cost = contact_cost_weight_ * gym::SquaredSum(contact_forces_.data(), contact_forces_.size());
    if constexpr (kAnt5) {
      WriteInfo(out, {data_->qpos[0], data_->qpos[1], gym::Norm(data_->qpos, 2), x_velocity, y_velocity, forward_reward,
                      -ctrl_cost, -contact_cost, healthy_reward});
    } else {
      const bool contact = contact_obs_size_ > 0;
      WriteInfo(out, {forward_reward, contact ? -contact_cost : -ctrl_cost, healthy_reward, xy[0], xy[1],
                      gym::Norm(xy, 2), x_velocity, y_velocity, forward_reward});
    }
  }

  bool IsHealthy() const {
    for (int i = 0; i < m_->nq; ++i) {
      if (!std::isfinite(data_->qpos[i])) return false;
    }
    for (int i = 0; i < m_->nv; ++i) {
      if (!std::isfinite(data_->qvel[i])) return false;
    }
    return z_range_.first <= data_->qpos[2] && data_->qpos[2] <= z_range_.second;
  }

  void ClipContactForces() {
    for (std::size_t i = 0; i < contact_forces_.size(); ++i) {
      contact_forces_[i] = gym::Clip(data_->cfrc_ext[i], force_range_.first, force_range_.second);
    }
  }

  void MoveTarget() { MoveTargetSite(m_, target_site_, goal_, kMazeHeight / 2 * kScaling); }

  void WriteObs(const Output& out) const {
    const GoalObs obs = GoalObsOf(out);
    obs.achieved_goal[0] = data_->qpos[0];
    obs.achieved_goal[1] = data_->qpos[1];
    obs.desired_goal[0] = goal_[0];
    obs.desired_goal[1] = goal_[1];
    double* o = std::copy(data_->qpos + 2, data_->qpos + m_->nq, obs.observation);
    o = std::copy(data_->qvel, data_->qvel + m_->nv, o);
    if (contact_obs_size_ > 0) {
      const auto first = contact_forces_.begin() + static_cast<std::ptrdiff_t>(contact_obs_first_);
      std::copy(first, first + contact_obs_size_, o);
    }
  }

  static void WriteInfo(Output& out, std::initializer_list<double> values) {
    std::size_t i = 0;
    for (double v : values) *out.Info<double>(i++) = v;
  }

  Maze maze_;
  RewardType reward_type_;
  bool continuing_task_, reset_target_;
  std::shared_ptr<const mjModel> model_;
  mutable gym::GymRenderer renderer_;
  int64_t frame_skip_;
  double forward_reward_weight_, ctrl_cost_weight_, contact_cost_weight_, healthy_reward_;
  bool terminate_when_unhealthy_;
  std::pair<double, double> z_range_, force_range_;
  mjModel* m_ = nullptr;
  mjData* data_ = nullptr;
  int main_body_ = 1, target_site_ = -1;
  std::vector<double> init_qpos_, init_qvel_, contact_forces_;
  std::size_t contact_obs_first_ = 0;
  std::ptrdiff_t contact_obs_size_ = 0;
  Xy goal_{};
};

}  // namespace envpool::mujoco::robotics::maze
