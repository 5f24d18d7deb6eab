// MiniGrid-Empty-*: minigrid.envs.EmptyEnv. A walled size x size room, the goal in the bottom
// right corner; the agent starts at agent_start_pos facing agent_start_dir, or (agent_start_pos
// [], minigrid's None: the Random ids) at a place_agent position and direction. Mission "get to
// the green goal square"; see_through_walls is always True (EmptyEnv fixes it).
// kwargs: size (>= 3; >= 4 with a random start, which needs a free cell), agent_start_pos ([]
// or [x, y] inside the outer wall), agent_start_dir (0..3), max_steps (0: 4 * size^2),
// agent_view_size.
#pragma once

#include <string>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class Empty : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{8}},
            {"agent_start_pos", std::vector<double>{1, 1}},
            {"agent_start_dir", int64_t{0}},
            {"max_steps", int64_t{0}},
            {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<Empty>(config, kName); }

  explicit Empty(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 4 * Size(config) * Size(config), true),
        start_(config, kName, Size(config), Size(config)) {
    if (start_.random && Size(config) < 4) {
      throw std::invalid_argument(std::string(kName) + ": a random start (agent_start_pos=[]) needs size >= 4, got " +
                                  std::to_string(Size(config)));
    }
    SetMission("get to the green goal square");
  }

 protected:
  void GenGrid(Rng& rng) override {
    WallsAndCornerGoal();
    PlaceAgentAt(rng, start_);
  }

 private:
  static constexpr const char* kName = "MiniGrid Empty";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 3, 1024); }

  AgentStart start_;
};

}  // namespace envpool::minigrid
