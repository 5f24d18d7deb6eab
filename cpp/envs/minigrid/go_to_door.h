// MiniGrid-GoToDoor-*: minigrid.envs.GoToDoorEnv. In a size x size grid, a walled room of
// _rand_int(5, size + 1) x _rand_int(5, size + 1) cells with a door of a distinct random colour
// (_rand_elem(COLOR_NAMES), drawn again on repeats) in each wall; the agent (place_agent within
// the room's extent) must stand next to the target door, drawn last, and say done. Toggle ends
// the episode with 0; done ends it, with the success reward when the agent is next to the
// target door. Mission "go to the <colour> door"; see_through_walls always True.
// kwargs: size (>= 5), max_steps (0: 4 * size^2), agent_view_size.
#pragma once

#include "envs/minigrid/go_to_target.h"

namespace envpool::minigrid {

class GoToDoor : public GoToTargetEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{5}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<GoToDoor>(config, kName); }

  explicit GoToDoor(const Config& config)
      : GoToTargetEnv(config, kName, Size(config), Size(config), 4 * Size(config) * Size(config), true) {
    SetMission("go to the red door");  // replaced at every reset
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = RandInt(rng, 5, grid_.width() + 1);
    const int h = RandInt(rng, 5, grid_.height() + 1);
    grid_.WallRect(0, 0, w, h);
    int door_x[4], door_y[4];
    door_x[0] = RandInt(rng, 2, w - 2);
    door_y[0] = 0;
    door_x[1] = RandInt(rng, 2, w - 2);
    door_y[1] = h - 1;
    door_x[2] = 0;
    door_y[2] = RandInt(rng, 2, h - 2);
    door_x[3] = w - 1;
    door_y[3] = RandInt(rng, 2, h - 2);
    Color colors[4];
    for (int n = 0; n < 4;) {
      const Color c = RandColor(rng);
      bool seen = false;
      for (int k = 0; k < n; ++k) seen = seen || colors[k] == c;
      if (!seen) colors[n++] = c;
    }
    for (int k = 0; k < 4; ++k) grid_.Set(door_x[k], door_y[k], Obj::Door(colors[k], false));
    PlaceAgent(rng, 0, 0, w, h);
    const int target = RandInt(rng, 0, 4);
    target_x_ = door_x[target];
    target_y_ = door_y[target];
    SetMission({"go to the ", kColorName[colors[target]], " door"});
  }

 private:
  static constexpr const char* kName = "MiniGrid GoToDoor";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 5, 1024); }
};

}  // namespace envpool::minigrid
