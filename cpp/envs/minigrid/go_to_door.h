// MiniGrid-GoToDoor-*: minigrid.envs.GoToDoorEnv. In a size x size grid, a walled room of
// _rand_int(5, size + 1) x _rand_int(5, size + 1) cells with a door of a distinct random colour
// (_rand_elem(COLOR_NAMES), drawn again on repeats) in each wall; the agent (place_agent within
// the room's extent) must stand next to the target door, drawn last, and say done. Toggle ends
// the episode with 0; done ends it, with the success reward when the agent is next to the
// target door. Mission "go to the <colour> door"; see_through_walls always True.
// kwargs: size (>= 5), max_steps (0: 4 * size^2), agent_view_size.
#pragma once

#include <cstdlib>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class GoToDoor : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{5}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) {
    GoToDoor check(config);
    return MiniGridSpec(ViewSize(config, kName));
  }

  explicit GoToDoor(const Config& config)
      : MiniGridEnv(Size(config), Size(config), MaxSteps(config, kName, 4 * Size(config) * Size(config)),
                    ViewSize(config, kName), true) {
    SetMission("go to the red door");  // replaced at every reset
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    StepResult r = MiniGridStep(a);
    if (a == kToggle) r.terminated = true;
    if (a == kDone) {
      const bool next_to = (agent_x_ == target_x_ && std::abs(agent_y_ - target_y_) == 1) ||
                           (agent_y_ == target_y_ && std::abs(agent_x_ - target_x_) == 1);
      if (next_to) r.reward = SuccessReward();
      r.terminated = true;
    }
    Finish(r, out);
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
      const Color c = kColorNames[RandInt(rng, 0, 6)];
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

  int target_x_ = 0;
  int target_y_ = 0;
};

}  // namespace envpool::minigrid
