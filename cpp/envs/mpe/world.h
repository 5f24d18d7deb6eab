// The physics shared by the MPE scenarios: mpe2's _mpe_utils/core.py (World.step) and the
// parts of _mpe_utils/simple_env.py every scenario uses (turning an action into a force,
// counting cycles, the spaces), in float64 with numpy's operation order, so positions,
// velocities, observations and rewards agree with mpe2 to the last bit.
//
// All three scenarios built here have silent agents (their communication state is always
// zero and they send nothing), no motor noise and unit masses; the world keeps only what
// these need: per entity a position, a velocity and its constant properties (and its colour,
// for the frames drawn in render/frame.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/agents.h"
#include "core/env.h"
#include "core/spec.h"
#include "envs/mpe/render/frame.h"

namespace envpool::mpe {

struct Entity {
  double pos[2] = {0, 0};
  double vel[2] = {0, 0};
  double size = 0.05;
  bool movable = false;
  bool collide = true;
  double max_speed = -1;  // < 0: none (mpe2's max_speed = None)
  double accel = -1;      // < 0: none (the action's sensitivity is then 5.0)
  double mass = 1.0;
  double color[3] = {0, 0, 0};  // mpe2's entity.color (drawn x 200)
};

// entity.color = np.array([r, g, b]), as a scenario sets it.
inline void SetColor(Entity& e, double r, double g, double b) {
  e.color[0] = r;
  e.color[1] = g;
  e.color[2] = b;
}

// numpy's logaddexp(x, y) (npy_logaddexp): the C library's exp and log1p, in its branch order.
inline double LogAddExp(double x, double y) {
  if (x == y) return x + M_LN2;
  const double tmp = x - y;
  if (tmp > 0) return x + std::log1p(std::exp(-tmp));
  if (tmp <= 0) return y + std::log1p(std::exp(tmp));
  return tmp;  // NaN
}

// np.sqrt(np.sum(np.square(a - b))) for two positions.
inline double Distance(const double* a, const double* b) {
  const double d0 = a[0] - b[0];
  const double d1 = a[1] - b[1];
  return std::sqrt(d0 * d0 + d1 * d1);
}

class World {
 public:
  // Agents first (mpe2's world.agents), then landmarks: mpe2's world.entities order.
  std::vector<Entity> entities;
  int num_agents = 0;

  static constexpr double kDt = 0.1;
  static constexpr double kDamping = 0.25;
  static constexpr double kContactForce = 1e2;
  static constexpr double kContactMargin = 1e-3;

  Entity& agent(int i) { return entities[i]; }
  const Entity& agent(int i) const { return entities[i]; }
  Entity& landmark(int i) { return entities[num_agents + i]; }
  const Entity& landmark(int i) const { return entities[num_agents + i]; }
  int num_landmarks() const { return static_cast<int>(entities.size()) - num_agents; }

  // Observation pieces the scenarios share, written from obs[k]; each returns the next k.
  // [p_vel, p_pos] of agent i.
  int OwnVelPos(int i, double* obs, int k) const {
    const Entity& me = agent(i);
    obs[k++] = me.vel[0];
    obs[k++] = me.vel[1];
    obs[k++] = me.pos[0];
    obs[k++] = me.pos[1];
    return k;
  }
  // Every landmark's position relative to agent i (mpe2's entity_pos).
  int LandmarksRelativeTo(int i, double* obs, int k) const {
    const Entity& me = agent(i);
    for (int l = 0; l < num_landmarks(); ++l) {
      obs[k++] = landmark(l).pos[0] - me.pos[0];
      obs[k++] = landmark(l).pos[1] - me.pos[1];
    }
    return k;
  }
  // Every other agent's position relative to agent i (mpe2's other_pos).
  int OthersRelativeTo(int i, double* obs, int k) const {
    const Entity& me = agent(i);
    for (int j = 0; j < num_agents; ++j) {
      if (j == i) continue;
      obs[k++] = agent(j).pos[0] - me.pos[0];
      obs[k++] = agent(j).pos[1] - me.pos[1];
    }
    return k;
  }

  // World.step with the agents' physical actions `u` (2 per agent, already scaled by the
  // sensitivity, as mpe2's agent.action.u).
  void Step(const double* u) {
    const int n = static_cast<int>(entities.size());
    force_.assign(2 * n, 0.0);
    has_force_.assign(n, false);
    // apply_action_force: p_force[i] = action.u + noise (noise = 0.0: no u_noise here)
    for (int i = 0; i < num_agents; ++i) {
      if (!entities[i].movable) continue;
      force_[2 * i] = u[2 * i] + 0.0;
      force_[2 * i + 1] = u[2 * i + 1] + 0.0;
      has_force_[i] = true;
    }
    // apply_environment_force: every pair a < b of colliding entities
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        const Entity& ea = entities[a];
        const Entity& eb = entities[b];
        if (!ea.collide || !eb.collide) continue;
        const double delta[2] = {ea.pos[0] - eb.pos[0], ea.pos[1] - eb.pos[1]};
        const double dist = std::sqrt(delta[0] * delta[0] + delta[1] * delta[1]);
        const double dist_min = ea.size + eb.size;
        const double penetration = LogAddExp(0.0, -(dist - dist_min) / kContactMargin) * kContactMargin;
        double f[2];
        for (int c = 0; c < 2; ++c) f[c] = kContactForce * delta[c] / dist * penetration;
        if (ea.movable) AddForce(a, f[0], f[1]);
        if (eb.movable) AddForce(b, -f[0], -f[1]);
      }
    }
    // integrate_state
    for (int i = 0; i < n; ++i) {
      Entity& e = entities[i];
      if (!e.movable) continue;
      for (int c = 0; c < 2; ++c) e.pos[c] = e.pos[c] + e.vel[c] * kDt;
      for (int c = 0; c < 2; ++c) e.vel[c] = e.vel[c] * (1 - kDamping);
      if (has_force_[i]) {
        for (int c = 0; c < 2; ++c) e.vel[c] = e.vel[c] + (force_[2 * i + c] / e.mass) * kDt;
      }
      if (e.max_speed >= 0) {
        const double speed = std::sqrt(e.vel[0] * e.vel[0] + e.vel[1] * e.vel[1]);
        if (speed > e.max_speed) {
          const double norm = std::sqrt(e.vel[0] * e.vel[0] + e.vel[1] * e.vel[1]);
          for (int c = 0; c < 2; ++c) e.vel[c] = e.vel[c] / norm * e.max_speed;
        }
      }
    }
    // update_agent_state: silent agents' communication state stays zero (nothing to keep).
  }

 private:
  // p_force[i] = f + p_force[i] (None counting as 0.0)
  void AddForce(int i, double f0, double f1) {
    force_[2 * i] = f0 + (has_force_[i] ? force_[2 * i] : 0.0);
    force_[2 * i + 1] = f1 + (has_force_[i] ? force_[2 * i + 1] : 0.0);
    has_force_[i] = true;
  }

  std::vector<double> force_;
  std::vector<bool> has_force_;
};

// What the three scenarios share as envpool envs: the kwargs, the spaces, actions to forces,
// the cycle count and truncation, the per-agent output. A scenario fills the world, draws
// its reset, writes observations and rewards.
//
// State vector (GetState / SetState), all doubles:
//   [0]                      steps taken in this episode (mpe2's env.steps)
//   then per entity, in world.entities order (agents, then landmarks):
//                            pos x, pos y, vel x, vel y
//   then the scenario's extra values (ExtraState), e.g. simple_adversary's goal landmark index.
// Landmarks never move in these scenarios, but their velocities are kept for a uniform layout.
// Frames (render_mode="rgb_array") are mpe2's, drawn by render/frame.h; their zoom is taken at
// the last reset (not part of the state vector: set_state keeps it, as mpe2 does when positions
// are written into its world).
class MpeEnv : public Env {
 public:
  void Reset(Rng& rng, Output& out) override {
    ResetWorld(rng);
    original_cam_range_ = render::CamRange(world_.entities);  // mpe2's reset() takes the zoom here
    steps_ = 0;
    WriteObs(out);
    AgentRows rows(out);
    for (int i = 0; i < num_agents_; ++i) {
      rows.reward[i] = 0.0;
      rows.terminated[i] = false;
      rows.truncated[i] = false;
      rows.active[i] = true;
      rows.needs_action[i] = true;
    }
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    for (int i = 0; i < num_agents_; ++i) ActionForce(action, i, &u_[2 * i]);
    world_.Step(u_.data());
    Rewards(rewards_.data());
    steps_ += 1;
    const bool truncated = steps_ >= max_cycles_;  // mpe2 never terminates these scenarios
    WriteObs(out);
    AgentRows rows(out);
    double total = 0.0;
    for (int i = 0; i < num_agents_; ++i) {
      rows.reward[i] = rewards_[i];
      rows.terminated[i] = false;
      rows.truncated[i] = truncated;
      rows.active[i] = true;
      rows.needs_action[i] = !truncated;  // after the last cycle no action is used
      total += rewards_[i];
    }
    out.reward() = total;
    out.terminated() = false;
    out.truncated() = truncated;
  }

  // mpe2's render() with render_mode="rgb_array" (render/frame.h): 700 x 700.
  void Render(uint8_t* rgb) const override {
    render::DrawEntities(world_.entities, original_cam_range_, dynamic_rescaling_, rgb);
  }

  std::vector<double> GetState() const override {
    std::vector<double> s = {static_cast<double>(steps_)};
    for (const Entity& e : world_.entities) s.insert(s.end(), {e.pos[0], e.pos[1], e.vel[0], e.vel[1]});
    const std::vector<double> extra = ExtraState();
    s.insert(s.end(), extra.begin(), extra.end());
    return s;
  }

  void SetState(const std::vector<double>& state) override {
    const std::size_t n = world_.entities.size();
    CheckStateSize(state, 1 + 4 * n + NumExtraState());
    if (!(state[0] >= 0 && state[0] == std::floor(state[0]) && state[0] < 1e9)) {
      throw std::invalid_argument("state[0] (the step count) must be a non-negative integer");
    }
    steps_ = static_cast<int>(state[0]);
    for (std::size_t i = 0; i < n; ++i) {
      Entity& e = world_.entities[i];
      const double* v = &state[1 + 4 * i];
      e.pos[0] = v[0];
      e.pos[1] = v[1];
      e.vel[0] = v[2];
      e.vel[1] = v[3];
    }
    SetExtraState(&state[1 + 4 * n]);
  }

 protected:
  // The spec every scenario shares. `obs_dims`: each agent's observation size; agents whose
  // sizes differ from the largest form their own groups (adversaries first, as in the world).
  static EnvSpec MakeSpec(const Config& config, const std::vector<std::string>& names, const std::vector<int>& obs_dims,
                          const std::vector<std::string>& group_names) {
    const int n = static_cast<int>(names.size());
    int max_dim = 0;
    for (int d : obs_dims) max_dim = std::max(max_dim, d);
    EnvSpec spec;
    spec.obs = {ArraySpec::Box("obs", DType::kFloat32, {n, max_dim}, {}, {})};
    if (config.Get<bool>("continuous_actions")) {
      spec.action = {ArraySpec::Box("action", DType::kFloat32, {n, kActionSize}, {0.0}, {1.0})};
    } else {
      spec.action = {ArraySpec{"action", DType::kInt64, {n}, {0.0}, {kActionSize - 1.0}, true}};
    }
    std::vector<AgentGroup> groups;
    bool same = true;
    for (int d : obs_dims) same = same && d == max_dim;
    if (!same) {
      int first = 0;
      for (int i = 1; i <= n; ++i) {
        if (i == n || group_names[i] != group_names[first]) {
          groups.push_back(AgentGroup{group_names[first], first, i - first, {obs_dims[first]}});
          first = i;
        }
      }
    }
    MultiAgentSpec(spec, names, std::move(groups));
    spec.render_height = spec.render_width = render::kFrameSide;
    spec.render_fps = 10;  // mpe2's metadata["render_fps"], every scenario's
    return spec;
  }

  // kwargs every scenario takes. dynamic_rescaling only changes the frames: whether the circles'
  // radii follow the zoom (render/frame.h).
  static void AddCommonConfig(Config& config) {
    config.Set("max_cycles", int64_t{25});
    config.Set("continuous_actions", false);
    config.Set("dynamic_rescaling", true);
  }

  MpeEnv(const Config& config, World world)
      : world_(std::move(world)),
        num_agents_(world_.num_agents),
        max_cycles_(static_cast<int>(std::clamp<int64_t>(config.Get<int64_t>("max_cycles"), -1, 1 << 30))),
        continuous_(config.Get<bool>("continuous_actions")),
        dynamic_rescaling_(config.Get<bool>("dynamic_rescaling")),
        u_(2 * world_.num_agents, 0.0),
        rewards_(world_.num_agents, 0.0) {}

  // The scenario's reset_world: exactly its draws, in its order.
  virtual void ResetWorld(Rng& rng) = 0;
  // Agent i's observation (float64, mpe2's np.concatenate order) into `obs`; returns its size.
  virtual int Observe(int i, double* obs) const = 0;
  // Each agent's reward after a world step, as SimpleEnv._execute_world_step computes it.
  virtual void Rewards(double* rewards) const = 0;
  virtual std::size_t NumExtraState() const { return 0; }
  virtual std::vector<double> ExtraState() const { return {}; }
  virtual void SetExtraState(const double* /*extra*/) {}

  World world_;

 private:
  static constexpr int kActionSize = 5;  // no-op, -x, +x, -y, +y (dim_p * 2 + 1)

  // SimpleEnv._set_action for a movable, silent agent: agent.action.u.
  void ActionForce(const Action& action, int i, double* u) const {
    const Entity& agent = world_.agent(i);
    u[0] = 0.0;
    u[1] = 0.0;
    if (continuous_) {
      // pettingzoo's ClipOutOfBoundsWrapper clips the float32 action to [0, 1]; the
      // differences are float32 (numpy float32 scalars), added to float64 zeros.
      float a[kActionSize];
      const float* row = action.Get<float>() + kActionSize * i;
      for (int k = 0; k < kActionSize; ++k) a[k] = std::min(std::max(row[k], 0.0f), 1.0f);
      const float dx = a[2] - a[1];
      const float dy = a[4] - a[3];
      u[0] += static_cast<double>(dx);
      u[1] += static_cast<double>(dy);
    } else {
      switch (action.Get<int64_t>()[i]) {
        case 1:
          u[0] = -1.0;
          break;
        case 2:
          u[0] = +1.0;
          break;
        case 3:
          u[1] = -1.0;
          break;
        case 4:
          u[1] = +1.0;
          break;
        default:
          break;
      }
    }
    const double sensitivity = agent.accel >= 0 ? agent.accel : 5.0;
    u[0] *= sensitivity;
    u[1] *= sensitivity;
  }

  void WriteObs(Output& out) {
    float* obs = out.Obs<float>();
    const int width = obs_width_;
    for (int i = 0; i < num_agents_; ++i) {
      const int d = Observe(i, obs_buf_.data());
      if (d != obs_dims_[i]) [[unlikely]] {  // obs_buf_ holds any agent's, the row only its spec's
        throw std::logic_error("agent " + std::to_string(i) + " observed " + std::to_string(d) +
                               " values where its spec has " + std::to_string(obs_dims_[i]));
      }
      float* row = obs + static_cast<std::size_t>(i) * width;
      for (int k = 0; k < d; ++k) row[k] = static_cast<float>(obs_buf_[k]);
      for (int k = d; k < width; ++k) row[k] = 0.0f;
    }
  }

 protected:
  // Called by the scenario's constructor once the world is built, with each agent's observation
  // size as its spec has them (MakeSpec): a row is as wide as the widest of these.
  void SetObsWidth(std::vector<int> obs_dims) {
    if (static_cast<int>(obs_dims.size()) != num_agents_) throw std::logic_error("one observation size per agent");
    obs_dims_ = std::move(obs_dims);
    obs_width_ = *std::max_element(obs_dims_.begin(), obs_dims_.end());
    // Observe may write any agent's full observation (4 values of its own, 2 per other entity,
    // 2 per other agent): the scratch holds that, whatever the spec says.
    const std::size_t most = 4 + 2 * world_.entities.size() + 2 * static_cast<std::size_t>(num_agents_);
    obs_buf_.assign(std::max<std::size_t>(most, static_cast<std::size_t>(obs_width_)), 0.0);
  }

 private:
  int num_agents_;
  int max_cycles_;
  bool continuous_;
  bool dynamic_rescaling_;
  // The frames' zoom at the last reset (mpe2's original_cam_range); set_state keeps it, as
  // writing positions into mpe2's world does.
  double original_cam_range_ = 1.0;
  int steps_ = 0;
  int obs_width_ = 0;
  std::vector<int> obs_dims_;  // each agent's observation size (its spec's)
  std::vector<double> u_;
  std::vector<double> rewards_;
  std::vector<double> obs_buf_;
};

}  // namespace envpool::mpe
