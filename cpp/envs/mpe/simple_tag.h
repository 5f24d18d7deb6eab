// SimpleTag-v3: mpe2.simple_tag_v3 (kwargs num_good, num_adversaries, num_obstacles,
// max_cycles, continuous_actions, dynamic_rescaling). Slow adversaries chase fast good agents
// around obstacles: +10 to every adversary per (good agent, adversary) collision, -10 to a good
// agent per adversary touching it and a penalty for leaving the [-1, 1] square.
// State vector: world.h's layout (steps, then pos / vel of the adversaries, good agents and
// obstacles).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/mpe/numpy_exp.h"
#include "envs/mpe/world.h"

namespace envpool::mpe {

class SimpleTag : public MpeEnv {
 public:
  static Config DefaultConfig() {
    Config c{{"num_good", int64_t{1}}, {"num_adversaries", int64_t{3}}, {"num_obstacles", int64_t{2}}};
    AddCommonConfig(c);
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    const Sizes s = GetSizes(config);
    std::vector<std::string> names, groups;
    for (int i = 0; i < s.adversaries + s.good; ++i) {
      const bool adv = i < s.adversaries;
      names.push_back(adv ? "adversary_" + std::to_string(i) : "agent_" + std::to_string(i - s.adversaries));
      groups.push_back(adv ? "adversary" : "agent");
    }
    return MakeSpec(config, names, ObsDims(s), groups);
  }

  explicit SimpleTag(const Config& config) : MpeEnv(config, MakeWorld(GetSizes(config))), sizes_(GetSizes(config)) {
    SetObsWidth(ObsDims(sizes_));
  }

 protected:
  void ResetWorld(Rng& rng) override {
    for (int i = 0; i < world_.num_agents; ++i) {
      Entity& a = world_.agent(i);
      a.pos[0] = rng.Uniform(-1.0, 1.0);
      a.pos[1] = rng.Uniform(-1.0, 1.0);
      a.vel[0] = a.vel[1] = 0.0;
    }
    for (int l = 0; l < world_.num_landmarks(); ++l) {  // no boundary landmarks
      Entity& e = world_.landmark(l);
      e.pos[0] = rng.Uniform(-0.9, 0.9);
      e.pos[1] = rng.Uniform(-0.9, 0.9);
      e.vel[0] = e.vel[1] = 0.0;
    }
  }

  // [p_vel, p_pos, obstacles - p_pos, other agents - p_pos, other good agents' p_vel]
  int Observe(int i, double* obs) const override {
    int k = world_.OwnVelPos(i, obs, 0);
    k = world_.LandmarksRelativeTo(i, obs, k);
    k = world_.OthersRelativeTo(i, obs, k);
    for (int j = sizes_.adversaries; j < world_.num_agents; ++j) {
      if (j == i) continue;
      obs[k++] = world_.agent(j).vel[0];
      obs[k++] = world_.agent(j).vel[1];
    }
    return k;
  }

  void Rewards(double* rewards) const override {
    const int num_adv = sizes_.adversaries;
    double adversary_reward = 0.0;  // the same for every adversary
    for (int g = num_adv; g < world_.num_agents; ++g) {
      for (int a = 0; a < num_adv; ++a) {
        if (Collides(g, a)) adversary_reward += 10;
      }
    }
    for (int i = 0; i < world_.num_agents; ++i) {
      if (i < num_adv) {
        rewards[i] = adversary_reward;
        continue;
      }
      double rew = 0.0;
      for (int a = 0; a < num_adv; ++a) {
        if (Collides(a, i)) rew -= 10;
      }
      for (int p = 0; p < 2; ++p) rew -= Bound(std::fabs(world_.agent(i).pos[p]));
      rewards[i] = rew;
    }
  }

 private:
  struct Sizes {
    int good, adversaries, obstacles;
  };

  static Sizes GetSizes(const Config& config) {
    auto get = [&](const char* key, int64_t min) {
      const int64_t v = config.Get<int64_t>(key);
      if (v < min || v > 1000) {
        throw std::invalid_argument(std::string("SimpleTag-v3: ") + key + " must be in [" + std::to_string(min) +
                                    ", 1000], got " + std::to_string(v));
      }
      return static_cast<int>(v);
    };
    const Sizes s{get("num_good", 0), get("num_adversaries", 0), get("num_obstacles", 0)};
    if (s.good + s.adversaries < 1) {
      throw std::invalid_argument("SimpleTag-v3 needs at least one agent: num_good and num_adversaries are both 0");
    }
    return s;
  }
  // Each agent's observation size, adversaries first. Only the agents there are count: without
  // adversaries the rows are the good agents' width, not the (absent) adversaries' wider one.
  static std::vector<int> ObsDims(const Sizes& s) {
    const int n = s.good + s.adversaries;
    std::vector<int> dims;
    for (int i = 0; i < n; ++i) {
      const bool adversary = i < s.adversaries;
      dims.push_back(4 + 2 * s.obstacles + 2 * (n - 1) + 2 * (adversary ? s.good : s.good - 1));
    }
    return dims;
  }

  static World MakeWorld(const Sizes& s) {
    World w;
    w.num_agents = s.adversaries + s.good;
    for (int i = 0; i < w.num_agents; ++i) {
      const bool adv = i < s.adversaries;
      Entity a;
      a.movable = true;
      a.collide = true;
      a.size = adv ? 0.075 : 0.05;
      a.accel = adv ? 3.0 : 4.0;
      a.max_speed = adv ? 1.0 : 1.3;
      if (adv) {
        SetColor(a, 0.85, 0.35, 0.35);
      } else {
        SetColor(a, 0.35, 0.85, 0.35);
      }
      w.entities.push_back(a);
    }
    for (int l = 0; l < s.obstacles; ++l) {
      Entity e;
      e.movable = false;
      e.collide = true;
      e.size = 0.2;
      SetColor(e, 0.25, 0.25, 0.25);
      w.entities.push_back(e);
    }
    return w;
  }

  // Scenario.is_collision(agent1, agent2)
  bool Collides(int a, int b) const {
    const Entity& ea = world_.agent(a);
    const Entity& eb = world_.agent(b);
    return Distance(ea.pos, eb.pos) < ea.size + eb.size;
  }

  // agent_reward's bound(x): nothing inside 0.9, linear to 1, then exponential capped at 10.
  static double Bound(double x) {
    if (x < 0.9) return 0.0;
    if (x < 1.0) return (x - 0.9) * 10;
    const double e = NumpyExp(2 * x - 2);  // np.exp, as numpy computes it on this CPU
    return 10.0 < e ? 10.0 : e;            // min(e, 10)
  }

  Sizes sizes_;
};

}  // namespace envpool::mpe
