// MiniGrid-KeyCorridorS*R*: minigrid.envs.KeyCorridorEnv. A RoomGrid of num_rows x num_cols
// rooms whose middle column is a corridor (the walls between its rooms removed); behind a
// locked door on the left wall of a right-column room (its row drawn) the target object
// (obj_type, colour drawn), its key in a left-column room (row drawn); the agent in the
// corridor's middle room; then connect_all's random unlocked doors until every room is
// reachable. Picking up the target (that object: minigrid compares identity) ends the episode
// with the success reward. Mission "pick up the <colour> <obj_type>".
// kwargs: num_rows (1 .. 16), num_cols (3 .. 16, RoomGrid's), room_size (3 .. 64), obj_type
// ("ball", "box" or "key"), max_steps (0: 30 * room_size^2), agent_view_size.
#pragma once

#include <string>

#include "envs/minigrid/room_grid.h"

namespace envpool::minigrid {

class KeyCorridor : public RoomGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"num_rows", int64_t{3}},          {"num_cols", int64_t{3}},  {"room_size", int64_t{6}},
            {"obj_type", std::string("ball")}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<KeyCorridor>(config, kName); }

  explicit KeyCorridor(const Config& config)
      : RoomGridEnv(config, kName, Size(config), IntIn(config, kName, "num_rows", 1, 16),
                    IntIn(config, kName, "num_cols", 3, 16), 30 * Size(config) * Size(config)) {
    obj_type_ = ObjTypeKwarg(config, kName);
    SetMission("pick up the red ball");  // the target's: at reset
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    Finish(PickupTargetStep(static_cast<int>(action.Get<int64_t>()[0])), out);
  }

 protected:
  void GenGrid(Rng& rng) override {
    GenRooms(rng);
    for (int j = 1; j < num_rows_; ++j) RemoveWall(1, j, 3);
    const int room_idx = RandInt(rng, 0, num_rows_);
    const Obj door = AddDoor(rng, 2, room_idx, 2, -1, 1);
    const Obj target = AddObject(rng, 2, room_idx, obj_type_, -1, kTarget);
    AddObject(rng, 0, RandInt(rng, 0, num_rows_), kKey, door.color);
    PlaceAgentInRoom(rng, 1, num_rows_ / 2);
    ConnectAll(rng);
    SetMission({"pick up the ", kColorName[target.color], " ", kTypeName[obj_type_]});
  }

 private:
  static constexpr const char* kName = "MiniGrid KeyCorridor";
  static int Size(const Config& config) { return RoomSize(config, kName, "room_size", 3); }

  Type obj_type_ = kBall;
};

}  // namespace envpool::minigrid
