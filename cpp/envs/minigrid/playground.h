// MiniGrid-Playground-v0: minigrid.envs.PlaygroundEnv. A 19 x 19 grid of 3 x 3 rooms, each
// inner wall with a closed door of a random colour (row by row: the right wall's position
// then colour, the bottom wall's), the agent (place_agent), then 12 objects (_rand_elem of
// ["key", "ball", "box"], then of COLOR_NAMES; place_obj). No goal, no reward: episodes end
// at max_steps. The mission is empty.
// kwargs: max_steps (0: 100, the env's default), agent_view_size, see_through_walls.
#pragma once

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class Playground : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"max_steps", int64_t{100}}, {"agent_view_size", int64_t{7}}, {"see_through_walls", false}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<Playground>(config, kName); }

  explicit Playground(const Config& config)
      : MiniGridEnv(config, kName, kSize, kSize, 100, config.Get<bool>("see_through_walls")) {
    SetMission("");
  }

 protected:
  void GenGrid(Rng& rng) override {
    RoomsWithOpenings(rng, 3, 1, [](Rng& r) { return Obj::Door(RandColor(r), false); });
    PlaceAgent(rng);
    for (int k = 0; k < 12; ++k) {
      const Type type = RandKind(rng);
      PlaceObj(rng, Obj::Make(type, RandColor(rng)));
    }
  }

 private:
  static constexpr const char* kName = "MiniGrid Playground";
  static constexpr int kSize = 19;
};

}  // namespace envpool::minigrid
