// MiniGrid-LavaGapS*: minigrid.envs.LavaGapEnv. A walled size x size room crossed by a column
// of lava with one gap at (_rand_int(2, size - 2), _rand_int(1, size - 1)); the agent at (1, 1)
// facing right, the goal in the bottom right corner. Mission "avoid the lava and get to the
// green goal square"; see_through_walls is always False (LavaGapEnv fixes it).
// kwargs: size (>= 5), max_steps (0: 4 * size^2), agent_view_size. (minigrid's obstacle_type
// takes a class, which a kwarg here cannot: the lava ids only.)
#pragma once

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class LavaGap : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{5}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<LavaGap>(config, kName); }

  explicit LavaGap(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 4 * Size(config) * Size(config), false) {
    SetMission("avoid the lava and get to the green goal square");
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width(), h = grid_.height();
    WallsAndCornerGoal();
    SetAgent(1, 1, 0);
    const int gap_x = RandInt(rng, 2, w - 2);
    const int gap_y = RandInt(rng, 1, h - 1);
    grid_.VertWall(gap_x, 1, h - 2, Obj::Lava());
    grid_.Set(gap_x, gap_y, Obj{});
  }

 private:
  static constexpr const char* kName = "MiniGrid LavaGap";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 5, 1024); }
};

}  // namespace envpool::minigrid
