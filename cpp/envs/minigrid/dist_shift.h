// MiniGrid-DistShift1-v0 / DistShift2-v0: minigrid.envs.DistShiftEnv. A walled width x height
// room, the goal at (width - 2, 1), two strips of lava on row 1 and row strip2_row (columns 3 ..
// width - 4); the agent at agent_start_pos facing agent_start_dir, or place_agent. Mission "get
// to the green goal square"; see_through_walls always True (DistShiftEnv fixes it).
// kwargs: width (>= 5), height (>= 4), agent_start_pos ([] or [x, y] inside the outer wall),
// agent_start_dir (0..3), strip2_row (1 .. height - 2), max_steps (0: 4 * width * height),
// agent_view_size.
#pragma once

#include <string>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class DistShift : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"width", int64_t{9}},           {"height", int64_t{7}},     {"agent_start_pos", std::vector<double>{1, 1}},
            {"agent_start_dir", int64_t{0}}, {"strip2_row", int64_t{2}}, {"max_steps", int64_t{0}},
            {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<DistShift>(config, kName); }

  explicit DistShift(const Config& config)
      : MiniGridEnv(config, kName, Width(config), Height(config), 4 * Width(config) * Height(config), true),
        strip2_row_(IntIn(config, kName, "strip2_row", 1, Height(config) - 2)),
        start_(config, kName, Width(config), Height(config)) {
    SetMission("get to the green goal square");
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width();
    grid_.OuterWalls();
    grid_.Set(w - 2, 1, Obj::Goal());
    for (int i = 0; i < w - 6; ++i) {
      grid_.Set(3 + i, 1, Obj::Lava());
      grid_.Set(3 + i, strip2_row_, Obj::Lava());
    }
    PlaceAgentAt(rng, start_);
  }

 private:
  static constexpr const char* kName = "MiniGrid DistShift";
  static int Width(const Config& config) { return IntIn(config, kName, "width", 5, 1024); }
  static int Height(const Config& config) { return IntIn(config, kName, "height", 4, 1024); }

  int strip2_row_;
  AgentStart start_;
};

}  // namespace envpool::minigrid
