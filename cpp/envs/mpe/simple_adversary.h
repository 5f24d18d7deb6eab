// SimpleAdversary-v3: mpe2.simple_adversary_v3 (kwargs N, max_cycles, continuous_actions,
// dynamic_rescaling). One adversary and N good agents, N landmarks of which one is the goal:
// good agents know which and are rewarded for being near it (the nearest of them) and for the
// adversary being far from it; the adversary does not see which one it is and is rewarded
// for being near it.
// State vector: world.h's layout (steps, then pos / vel of the adversary, the N good agents
// and the N landmarks), then the goal landmark's index (0 .. N - 1).
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/mpe/world.h"

namespace envpool::mpe {

class SimpleAdversary : public MpeEnv {
 public:
  static Config DefaultConfig() {
    Config c{{"N", int64_t{2}}};
    AddCommonConfig(c);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    const int n = NumGood(config);
    std::vector<std::string> names = {"adversary_0"}, groups = {"adversary"};
    for (int i = 0; i < n; ++i) {
      names.push_back("agent_" + std::to_string(i));
      groups.push_back("agent");
    }
    return MakeSpec(config, names, ObsDims(n), groups);
  }

  explicit SimpleAdversary(const Config& config) : MpeEnv(config, MakeWorld(NumGood(config))) {
    SetObsWidth(ObsDims(NumGood(config)));
  }

 protected:
  void ResetWorld(Rng& rng) override {
    // np_random.integers(N) for the goal, then uniform(-1, +1, dim_p) per agent and landmark.
    SetGoal(static_cast<int>(rng.Below(world_.num_landmarks())));
    for (Entity& e : world_.entities) {
      e.pos[0] = rng.Uniform(-1.0, 1.0);
      e.pos[1] = rng.Uniform(-1.0, 1.0);
      e.vel[0] = e.vel[1] = 0.0;
    }
  }

  // good agents: [goal - p_pos, landmarks - p_pos, other agents - p_pos]; the adversary
  // the same without the goal.
  int Observe(int i, double* obs) const override {
    const Entity& me = world_.agent(i);
    int k = 0;
    if (i > 0) {
      obs[k++] = world_.landmark(goal_).pos[0] - me.pos[0];
      obs[k++] = world_.landmark(goal_).pos[1] - me.pos[1];
    }
    k = world_.LandmarksRelativeTo(i, obs, k);
    return world_.OthersRelativeTo(i, obs, k);
  }

  void Rewards(double* rewards) const override {
    const double* goal = world_.landmark(goal_).pos;
    const double adversary_dist = Distance(world_.agent(0).pos, goal);
    rewards[0] = -adversary_dist;
    double nearest = INFINITY;
    for (int a = 1; a < world_.num_agents; ++a) nearest = std::min(nearest, Distance(world_.agent(a).pos, goal));
    const double adv_rew = 0.0 + adversary_dist;  // sum(...) over the one adversary
    const double pos_rew = -nearest;
    for (int i = 1; i < world_.num_agents; ++i) rewards[i] = pos_rew + adv_rew;
  }

  std::size_t NumExtraState() const override { return 1; }
  std::vector<double> ExtraState() const override { return {static_cast<double>(goal_)}; }
  void SetExtraState(const double* extra) override {
    const double g = extra[0];
    if (!(g >= 0 && g < world_.num_landmarks() && g == std::floor(g))) {
      throw std::invalid_argument("the goal landmark index (the state's last value) must be an integer in [0, " +
                                  std::to_string(world_.num_landmarks()) + ")");
    }
    SetGoal(static_cast<int>(g));
  }

 private:
  // The goal landmark and the colours reset_world gives: the adversary red, good agents blue,
  // landmarks dark grey and the goal green.
  void SetGoal(int goal) {
    goal_ = goal;
    SetColor(world_.agent(0), 0.85, 0.35, 0.35);
    for (int i = 1; i < world_.num_agents; ++i) SetColor(world_.agent(i), 0.35, 0.35, 0.85);
    for (int l = 0; l < world_.num_landmarks(); ++l) {
      if (l == goal) {
        SetColor(world_.landmark(l), 0.15, 0.65, 0.15);
      } else {
        SetColor(world_.landmark(l), 0.15, 0.15, 0.15);
      }
    }
  }

  static int NumGood(const Config& config) {
    const int64_t n = config.Get<int64_t>("N");
    if (n < 1 || n > 1000) {
      throw std::invalid_argument("SimpleAdversary-v3: N must be in [1, 1000], got " + std::to_string(n));
    }
    return static_cast<int>(n);
  }

  // The adversary's observation size, then the N good agents' (they also see the goal).
  static std::vector<int> ObsDims(int n) {
    std::vector<int> dims = {4 * n};
    dims.insert(dims.end(), n, 4 * n + 2);
    return dims;
  }

  static World MakeWorld(int n) {
    World w;
    w.num_agents = n + 1;
    for (int i = 0; i < n + 1; ++i) {
      Entity a;
      a.movable = true;
      a.collide = false;
      a.size = 0.15;
      w.entities.push_back(a);
    }
    for (int i = 0; i < n; ++i) {
      Entity l;
      l.movable = false;
      l.collide = false;
      l.size = 0.08;
      w.entities.push_back(l);
    }
    return w;
  }

  int goal_ = 0;
};

}  // namespace envpool::mpe
