// MiniGrid-RedBlueDoors-*: minigrid.envs.RedBlueDoorEnv. A 2 * size x size grid with a walled
// size x size room in its middle; the agent inside it (place_agent), a red door on its left wall
// and a blue one on its right, rows _rand_int(1, size - 1) each. Opening the blue door ends the
// episode, with the success reward if the red one was open before the step, else 0; opening
// the red one after the blue ends it with 0. Mission "open the red door then the blue door".
// kwargs: size (>= 4), max_steps (0: 20 * size^2), agent_view_size, see_through_walls.
#pragma once

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class RedBlueDoors : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {
        {"size", int64_t{8}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}, {"see_through_walls", false}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<RedBlueDoors>(config, kName); }

  explicit RedBlueDoors(const Config& config)
      : MiniGridEnv(config, kName, 2 * Size(config), Size(config), 20 * Size(config) * Size(config),
                    config.Get<bool>("see_through_walls")),
        size_(Size(config)) {
    SetMission("open the red door then the blue door");
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const bool red_before = IsOpen(red_y_, size_ / 2);
    const bool blue_before = IsOpen(blue_y_, size_ / 2 + size_ - 1);
    StepResult r = MiniGridStep(static_cast<int>(action.Get<int64_t>()[0]));
    const bool red_after = IsOpen(red_y_, size_ / 2);
    const bool blue_after = IsOpen(blue_y_, size_ / 2 + size_ - 1);
    if (blue_after) {
      r.reward = red_before ? SuccessReward() : 0.0;
      r.terminated = true;
    } else if (red_after && blue_before) {
      r.reward = 0.0;
      r.terminated = true;
    }
    Finish(r, out);
  }

 protected:
  void GenGrid(Rng& rng) override {
    grid_.OuterWalls();
    grid_.WallRect(size_ / 2, 0, size_, size_);
    PlaceAgent(rng, size_ / 2, 0, size_, size_);
    red_y_ = RandInt(rng, 1, size_ - 1);
    grid_.Set(size_ / 2, red_y_, Obj::Door(kRed, false));
    blue_y_ = RandInt(rng, 1, size_ - 1);
    grid_.Set(size_ / 2 + size_ - 1, blue_y_, Obj::Door(kBlue, false));
  }

 private:
  static constexpr const char* kName = "MiniGrid RedBlueDoors";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 4, 512); }
  // The doors stay where they are (doors cannot be picked up), so their cells tell their state.
  bool IsOpen(int y, int x) const { return grid_.Get(x, y).type == kDoor && grid_.Get(x, y).state == kOpen; }

  int size_;
  int red_y_ = 1;
  int blue_y_ = 1;
};

}  // namespace envpool::minigrid
