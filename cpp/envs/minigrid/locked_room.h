// MiniGrid-LockedRoom-v0: minigrid.envs.LockedRoomEnv. A corridor down the middle (columns
// size // 2 - 2 .. size // 2 + 2) and three rooms on each side, each with a door on the
// corridor; one room (_rand_elem) is locked with the goal inside (its rand_pos: x then y), each
// room's door gets a distinct colour (_rand_elem of the sorted colours left), the key of the
// locked door lies in another room (drawn until it differs), and the agent in the corridor
// (place_agent). Mission "get the <colour> key from the <colour> room, unlock the <colour> door
// and go to the goal".
// kwargs: size (odd, >= 13: the doors three cells below each room's top wall stay inside the
// grid, and rooms stay inside the outer wall), max_steps (0: 10 * size), agent_view_size,
// see_through_walls.
#pragma once

#include <string>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class LockedRoom : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{19}},
            {"max_steps", int64_t{0}},
            {"agent_view_size", int64_t{7}},
            {"see_through_walls", false}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<LockedRoom>(config, kName); }

  explicit LockedRoom(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 10 * Size(config),
                    config.Get<bool>("see_through_walls")) {
    SetMission("get the red key from the red room, unlock the red door and go to the goal");  // at reset
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width(), h = grid_.height();
    grid_.OuterWalls();
    const int left_wall = w / 2 - 2, right_wall = w / 2 + 2;
    grid_.VertWall(left_wall, 0);
    grid_.VertWall(right_wall, 0);
    const int room_w = left_wall + 1, room_h = h / 3 + 1;
    for (int n = 0; n < 3; ++n) {
      const int j = n * (h / 3);
      grid_.HorzWall(0, j, left_wall);
      grid_.HorzWall(right_wall, j);
      rooms_[2 * n] = Room{0, j, left_wall, j + 3, kRed};
      rooms_[2 * n + 1] = Room{right_wall, j, right_wall, j + 3, kRed};
    }
    const int locked = RandInt(rng, 0, 6);
    int gx, gy;
    RandPos(rng, rooms_[locked], room_w, room_h, &gx, &gy);
    grid_.Set(gx, gy, Obj::Goal());
    Color left[6];
    for (int k = 0; k < 6; ++k) left[k] = kColorNames[k];
    for (int r = 0; r < 6; ++r) {  // _rand_elem(sorted(colours left)); COLOR_NAMES is sorted
      const int pick = RandInt(rng, 0, 6 - r);
      rooms_[r].color = left[pick];
      for (int k = pick; k + 1 < 6 - r; ++k) left[k] = left[k + 1];
      grid_.Set(rooms_[r].door_x, rooms_[r].door_y, Obj::Door(rooms_[r].color, r == locked));
    }
    int key_room;
    do {
      key_room = RandInt(rng, 0, 6);
    } while (key_room == locked);
    int kx, ky;
    RandPos(rng, rooms_[key_room], room_w, room_h, &kx, &ky);
    grid_.Set(kx, ky, Obj::Key(rooms_[locked].color));
    PlaceAgent(rng, left_wall, 0, right_wall - left_wall, h);
    const char* locked_color = kColorName[rooms_[locked].color];
    SetMission({"get the ", locked_color, " key from the ", kColorName[rooms_[key_room].color], " room, unlock the ",
                locked_color, " door and go to the goal"});
  }

 private:
  static constexpr const char* kName = "MiniGrid LockedRoom";
  static int Size(const Config& config) { return OddIn(config, kName, "size", 13, 1023); }

  struct Room {
    int top_x, top_y, door_x, door_y;
    Color color;
  };

  // LockedRoom.rand_pos: _rand_pos(topX + 1, topX + sizeX - 1, topY + 1, topY + sizeY - 1).
  static void RandPos(Rng& rng, const Room& room, int room_w, int room_h, int* x, int* y) {
    *x = RandInt(rng, room.top_x + 1, room.top_x + room_w - 1);
    *y = RandInt(rng, room.top_y + 1, room.top_y + room_h - 1);
  }

  Room rooms_[6] = {};
};

}  // namespace envpool::minigrid
