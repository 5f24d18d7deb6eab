// MiniGrid-ObstructedMaze-*: minigrid.envs.ObstructedMaze_1Dlhb, ObstructedMaze_Full and
// ObstructedMaze_Full_V1 (obstructedmaze.py, obstructedmaze_v1.py). A RoomGrid of 6-cell rooms;
// the door colours are a random ordering of all six (_rand_subset), the target a blue ball,
// locked doors' keys (of the door's colour) in the room the door is added from, hidden in grey
// boxes (key_in_box), and a green ball in front of the door on that side (blocked). Picking up
// the target ends the episode with the success reward; mission "pick up the blue ball".
//  - 1Dlhb (1 x 2 rooms): one locked door from room (0, 0) to the right, the ball in (1, 0),
//    the agent in (0, 0).
//  - Full (3 x 3 rooms): for each of the first num_quarters side rooms (right, bottom, left,
//    top of the middle one), an unlocked door from the middle room to it, then from it a locked
//    door on each side (door k with colour door_colors[k]), each door's key placed as it is
//    added, so a later blocking ball can cover an earlier key (the v0 layouts keep that); the
//    ball in one of the first num_quarters corners (drawn), the agent in agent_room.
//  - Full_V1: as Full, but both locked doors (and their blocking balls) of a side room come
//    before its two keys.
// kwargs: 1Dlhb key_in_box, blocked; Full and Full_V1 also agent_room ([i, j], a room of the
// 3 x 3 grid), num_quarters (1 .. 4), num_rooms_visited (max_steps' default is
// 4 * num_rooms_visited * 36); max_steps (0: that default), agent_view_size.
#pragma once

#include <string>
#include <vector>

#include "envs/minigrid/room_grid.h"

namespace envpool::minigrid {

enum class MazeLayout { k1Dlhb, kFull, kFullV1 };

template <MazeLayout kLayout>
class ObstructedMaze : public RoomGridEnv {
 public:
  static Config DefaultConfig() {
    Config c{{"key_in_box", true}, {"blocked", true}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
    if constexpr (kLayout != MazeLayout::k1Dlhb) {
      c.Set("agent_room", std::vector<double>{1, 1});
      c.Set("num_quarters", int64_t{4});
      c.Set("num_rooms_visited", int64_t{25});
    }
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<ObstructedMaze>(config, kName); }

  explicit ObstructedMaze(const Config& config)
      : RoomGridEnv(config, kName, 6, kFull ? 3 : 1, kFull ? 3 : 2, 4 * RoomsVisited(config) * 36),
        key_in_box_(config.Get<bool>("key_in_box")),
        blocked_(config.Get<bool>("blocked")) {
    if constexpr (kFull) {
      num_quarters_ = IntIn(config, kName, "num_quarters", 1, 4);
      const auto room = config.Get<std::vector<double>>("agent_room");
      const bool ok = room.size() == 2 && room[0] == static_cast<int>(room[0]) &&
                      room[1] == static_cast<int>(room[1]) && room[0] >= 0 && room[0] <= 2 && room[1] >= 0 &&
                      room[1] <= 2;
      if (!ok) {
        throw std::invalid_argument(
            std::string(kName) + ": agent_room must be two integers [i, j], each 0, 1 or 2 (a room of the 3 x 3 maze)");
      }
      agent_room_i_ = static_cast<int>(room[0]);
      agent_room_j_ = static_cast<int>(room[1]);
    }
    SetMission("pick up the blue ball");
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    Finish(PickupTargetStep(static_cast<int>(action.Get<int64_t>()[0])), out);
  }

 protected:
  void GenGrid(Rng& rng) override {
    GenRooms(rng);
    // door_colors = _rand_subset(COLOR_NAMES, 6): _rand_elem of the colours left, removed.
    Color left[6];
    std::copy(std::begin(kColorNames), std::end(kColorNames), left);
    for (int n = 6; n > 0; --n) {
      const int k = RandInt(rng, 0, n);
      door_colors_[6 - n] = left[k];
      std::copy(left + k + 1, left + n, left + k);
    }
    if constexpr (!kFull) {
      AddMazeDoor(rng, 0, 0, 0, door_colors_[0], true, true);
      AddObject(rng, 1, 0, kBall, kBlue, kTarget);
      PlaceAgentInRoom(rng, 0, 0);
    } else {
      static constexpr int kSideI[4] = {2, 1, 0, 1}, kSideJ[4] = {1, 2, 1, 0};
      static constexpr int kCornerI[4] = {2, 2, 0, 0}, kCornerJ[4] = {0, 2, 2, 0};
      for (int i = 0; i < num_quarters_; ++i) {
        AddDoor(rng, 1, 1, i, door_colors_[i], 0);
        for (int k : {-1, 1}) {
          const int side = (i + k + 4) % 4;
          AddMazeDoor(rng, kSideI[i], kSideJ[i], side, door_colors_[(i + k + 6) % 6], true,
                      kLayout == MazeLayout::kFull);
        }
        if constexpr (kLayout == MazeLayout::kFullV1) {
          for (int k : {-1, 1}) AddKey(rng, kSideI[i], kSideJ[i], door_colors_[(i + k + 6) % 6]);
        }
      }
      const int corner = RandInt(rng, 0, num_quarters_);
      AddObject(rng, kCornerI[corner], kCornerJ[corner], kBall, kBlue, kTarget);
      PlaceAgentInRoom(rng, agent_room_i_, agent_room_j_);
    }
  }

 private:
  static constexpr bool kFull = kLayout != MazeLayout::k1Dlhb;
  static constexpr const char* kName = kLayout == MazeLayout::k1Dlhb  ? "MiniGrid ObstructedMaze_1Dlhb"
                                       : kLayout == MazeLayout::kFull ? "MiniGrid ObstructedMaze_Full"
                                                                      : "MiniGrid ObstructedMaze_Full_V1";

  static int RoomsVisited(const Config& config) {
    return kFull ? IntIn(config, kName, "num_rooms_visited", 1, 100'000) : 2;
  }

  // ObstructedMazeEnv.add_door(i, j, door_idx, color, locked, key_in_box, blocked): the door,
  // a green ball in front of it on this room's side if blocked, and (locked, with_key) its key.
  void AddMazeDoor(Rng& rng, int i, int j, int door_idx, Color color, bool locked, bool with_key) {
    const Obj door = AddDoor(rng, i, j, door_idx, color, locked ? 1 : 0);
    if (blocked_) {
      const Room& room = GetRoom(i, j);
      grid_.Set(room.door_x[door_idx] - kDirX[door_idx], room.door_y[door_idx] - kDirY[door_idx],
                Obj::Make(kBall, kGreen));
    }
    if (locked && with_key) AddKey(rng, i, j, static_cast<Color>(door.color));
  }

  // A key of `color` in room (i, j), inside a grey box if key_in_box (place_in_room).
  void AddKey(Rng& rng, int i, int j, Color color) {
    Obj obj = Obj::Key(color);
    if (key_in_box_) {
      obj = Obj::Make(kBox, kGrey);
      obj.inner_type = kKey;
      obj.inner_color = color;
    }
    PlaceInRoom(rng, i, j, obj);
  }

  bool key_in_box_;
  bool blocked_;
  int num_quarters_ = 1;
  int agent_room_i_ = 1;
  int agent_room_j_ = 1;
  Color door_colors_[6] = {};
};

using ObstructedMaze1Dlhb = ObstructedMaze<MazeLayout::k1Dlhb>;
using ObstructedMazeFull = ObstructedMaze<MazeLayout::kFull>;
using ObstructedMazeFullV1 = ObstructedMaze<MazeLayout::kFullV1>;

}  // namespace envpool::minigrid
