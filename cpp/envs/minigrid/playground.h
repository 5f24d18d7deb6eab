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
  static EnvSpec Spec(const Config& config) {
    Playground check(config);
    return MiniGridSpec(ViewSize(config, kName));
  }

  explicit Playground(const Config& config)
      : MiniGridEnv(kSize, kSize, MaxSteps(config, kName, 100), ViewSize(config, kName),
                    config.Get<bool>("see_through_walls")) {
    SetMission("");
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = kSize, h = kSize;
    grid_.HorzWall(0, 0);
    grid_.HorzWall(0, h - 1);
    grid_.VertWall(0, 0);
    grid_.VertWall(w - 1, 0);
    const int room_w = w / 3, room_h = h / 3;
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 3; ++i) {
        const int left = i * room_w, top = j * room_h;
        const int right = left + room_w, bottom = top + room_h;
        if (i + 1 < 3) {
          grid_.VertWall(right, top, room_h);
          const int y = RandInt(rng, top + 1, bottom - 1);
          grid_.Set(right, y, Obj::Door(kColorNames[RandInt(rng, 0, 6)], false));
        }
        if (j + 1 < 3) {
          grid_.HorzWall(left, bottom, room_w);
          const int x = RandInt(rng, left + 1, right - 1);
          grid_.Set(x, bottom, Obj::Door(kColorNames[RandInt(rng, 0, 6)], false));
        }
      }
    }
    PlaceAgent(rng);
    static constexpr Type kTypes[3] = {kKey, kBall, kBox};
    for (int k = 0; k < 12; ++k) {
      const Type type = kTypes[RandInt(rng, 0, 3)];
      PlaceObj(rng, Obj::Make(type, kColorNames[RandInt(rng, 0, 6)]));
    }
  }

 private:
  static constexpr const char* kName = "MiniGrid Playground";
  static constexpr int kSize = 19;
};

}  // namespace envpool::minigrid
