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
  static EnvSpec Spec(const Config& config) {
    Empty check(config);  // the same checks as a constructed env; no draws
    return MiniGridSpec(ViewSize(config, kName));
  }

  explicit Empty(const Config& config)
      : MiniGridEnv(Size(config), Size(config), MaxSteps(config, kName, 4 * Size(config) * Size(config)),
                    ViewSize(config, kName), true) {
    const int size = Size(config);
    random_start_ = !OptionalPos(config, kName, "agent_start_pos", size, size, &start_x_, &start_y_);
    if (random_start_ && size < 4) {
      throw std::invalid_argument(std::string(kName) + ": a random start (agent_start_pos=[]) needs size >= 4, got " +
                                  std::to_string(size));
    }
    start_dir_ = IntIn(config, kName, "agent_start_dir", 0, 3);
    SetMission("get to the green goal square");
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width(), h = grid_.height();
    grid_.WallRect(0, 0, w, h);
    grid_.Set(w - 2, h - 2, Obj::Goal());
    if (random_start_) {
      PlaceAgent(rng);
    } else {
      agent_x_ = start_x_;
      agent_y_ = start_y_;
      agent_dir_ = start_dir_;
    }
  }

 private:
  static constexpr const char* kName = "MiniGrid Empty";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 3, 1024); }

  bool random_start_ = false;
  int start_x_ = 1;
  int start_y_ = 1;
  int start_dir_ = 0;
};

}  // namespace envpool::minigrid
