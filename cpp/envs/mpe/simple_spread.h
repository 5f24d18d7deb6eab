// SimpleSpread-v3: mpe2.simple_spread_v3 (kwargs N, local_ratio, max_cycles,
// continuous_actions, dynamic_rescaling). N agents cover N landmarks: every agent gets the
// shared reward -sum over landmarks of the nearest agent's distance, weighted 1 - local_ratio,
// plus its own collision penalty (-1 per other agent it overlaps), weighted local_ratio.
// State vector: world.h's layout (steps, then pos / vel of the N agents and N landmarks).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/mpe/world.h"

namespace envpool::mpe {

class SimpleSpread : public MpeEnv {
 public:
  static Config DefaultConfig() {
    Config c{{"N", int64_t{3}}, {"local_ratio", 0.5}};
    AddCommonConfig(c);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    const int n = NumAgents(config);
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.push_back("agent_" + std::to_string(i));
    return MakeSpec(config, names, std::vector<int>(n, ObsDim(n)), std::vector<std::string>(n, "agent"));
  }

  explicit SimpleSpread(const Config& config)
      : MpeEnv(config, MakeWorld(NumAgents(config))), local_ratio_(LocalRatio(config)) {
    SetObsWidth(std::vector<int>(world_.num_agents, ObsDim(world_.num_agents)));
  }

 protected:
  void ResetWorld(Rng& rng) override {
    for (Entity& e : world_.entities) {  // agents, then landmarks: uniform(-1, +1, dim_p) each
      e.pos[0] = rng.Uniform(-1.0, 1.0);
      e.pos[1] = rng.Uniform(-1.0, 1.0);
      e.vel[0] = e.vel[1] = 0.0;
    }
  }

  // [p_vel, p_pos, landmarks - p_pos, other agents - p_pos, other agents' comm (zeros)]
  int Observe(int i, double* obs) const override {
    int k = world_.OwnVelPos(i, obs, 0);
    k = world_.LandmarksRelativeTo(i, obs, k);
    k = world_.OthersRelativeTo(i, obs, k);
    for (int j = 0; j < 2 * (world_.num_agents - 1); ++j) obs[k++] = 0.0;
    return k;
  }

  void Rewards(double* rewards) const override {
    double global = 0.0;  // Scenario.global_reward
    for (int l = 0; l < world_.num_landmarks(); ++l) {
      double nearest = INFINITY;
      for (int a = 0; a < world_.num_agents; ++a) {
        nearest = std::min(nearest, Distance(world_.agent(a).pos, world_.landmark(l).pos));
      }
      global -= nearest;
    }
    for (int i = 0; i < world_.num_agents; ++i) {
      double own = 0.0;  // Scenario.reward: -1 per other agent overlapping this one
      for (int a = 0; a < world_.num_agents; ++a) {
        const bool hit =
            a != i && Distance(world_.agent(a).pos, world_.agent(i).pos) < world_.agent(a).size + world_.agent(i).size;
        own -= 1.0 * hit;
      }
      rewards[i] = global * (1 - local_ratio_) + own * local_ratio_;
    }
  }

 private:
  static int NumAgents(const Config& config) {
    const int64_t n = config.Get<int64_t>("N");
    if (n < 1 || n > 1000)
      throw std::invalid_argument("SimpleSpread-v3: N must be in [1, 1000], got " + std::to_string(n));
    return static_cast<int>(n);
  }
  static double LocalRatio(const Config& config) {
    const double r = config.Get<double>("local_ratio");
    if (!(r >= 0.0 && r <= 1.0)) {
      throw std::invalid_argument("SimpleSpread-v3: local_ratio is a proportion. Must be between 0 and 1.");
    }
    return r;
  }
  static int ObsDim(int n) { return 4 + 2 * n + 2 * (n - 1) + 2 * (n - 1); }

  static World MakeWorld(int n) {
    World w;
    w.num_agents = n;
    for (int i = 0; i < n; ++i) {
      Entity a;
      a.movable = true;
      a.collide = true;
      a.size = 0.15;
      SetColor(a, 0.35, 0.35, 0.85);
      w.entities.push_back(a);
    }
    for (int i = 0; i < n; ++i) {
      Entity l;
      l.movable = false;
      l.collide = false;
      SetColor(l, 0.25, 0.25, 0.25);
      w.entities.push_back(l);
    }
    return w;
  }

  double local_ratio_;
};

}  // namespace envpool::mpe
