// MiniGrid-DoorKey-*: minigrid.envs.DoorKeyEnv. A walled size x size grid split by a wall at
// column splitIdx = _rand_int(2, size - 2) with a locked yellow door at row _rand_int(1,
// size - 2); the agent (place_agent) and the yellow key (place_obj) left of the wall, the goal in
// the bottom right corner. Mission "use the key to open the door and then get to the goal".
// kwargs: size (>= 5), max_steps (0: 10 * size^2), agent_view_size, see_through_walls.
#pragma once

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class DoorKey : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {
        {"size", int64_t{8}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}, {"see_through_walls", false}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<DoorKey>(config, kName); }

  explicit DoorKey(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 10 * Size(config) * Size(config),
                    config.Get<bool>("see_through_walls")) {
    SetMission("use the key to open the door and then get to the goal");
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width(), h = grid_.height();
    WallsAndCornerGoal();
    const int split = RandInt(rng, 2, w - 2);
    grid_.VertWall(split, 0);
    PlaceAgent(rng, 0, 0, split, h);
    const int door = RandInt(rng, 1, h - 2);
    grid_.Set(split, door, Obj::Door(kYellow, true));
    PlaceObj(rng, Obj::Key(kYellow), 0, 0, split, h);
  }

 private:
  static constexpr const char* kName = "MiniGrid DoorKey";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 5, 1024); }
};

}  // namespace envpool::minigrid
