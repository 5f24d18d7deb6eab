// MiniGrid-Unlock-v0, MiniGrid-UnlockPickup-v0, MiniGrid-BlockedUnlockPickup-v0:
// minigrid.envs.UnlockEnv, UnlockPickupEnv, BlockedUnlockPickupEnv. Two 6-cell rooms side by
// side (RoomGrid, 1 x 2) joined by a locked door of a random colour, its key in the left room
// with the agent. Unlock: opening the door (toggle) ends the episode with the success reward;
// mission "open the door". UnlockPickup: a box of a random colour in the right room (placed
// first); picking it up ends the episode with the success reward; mission "pick up the
// <colour> box". BlockedUnlockPickup: as UnlockPickup, with a ball of a random colour in front
// of the door on the left.
// kwargs: max_steps (0: 8 * 36, BlockedUnlockPickup 16 * 36), agent_view_size.
#pragma once

#include "envs/minigrid/room_grid.h"

namespace envpool::minigrid {

enum class UnlockKind { kUnlock, kPickup, kBlockedPickup };

template <UnlockKind kKind>
class UnlockEnv : public RoomGridEnv {
 public:
  static Config DefaultConfig() { return {{"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}}; }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<UnlockEnv>(config, kName); }

  explicit UnlockEnv(const Config& config)
      : RoomGridEnv(config, kName, 6, 1, 2, (kKind == UnlockKind::kBlockedPickup ? 16 : 8) * 36) {
    SetMission(kKind == UnlockKind::kUnlock ? "open the door" : "pick up the red box");  // the box's: at reset
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    if constexpr (kKind == UnlockKind::kUnlock) {
      StepResult r = MiniGridStep(a);
      const Obj& door = grid_.Get(door_x_, door_y_);
      if (a == kToggle && door.type == kDoor && door.state == kOpen) {
        r.reward = SuccessReward();
        r.terminated = true;
      }
      Finish(r, out);
    } else {
      Finish(PickupTargetStep(a), out);
    }
  }

 protected:
  void GenGrid(Rng& rng) override {
    GenRooms(rng);
    Obj box{};
    if constexpr (kKind != UnlockKind::kUnlock) box = AddObject(rng, 1, 0, kBox, -1, kTarget);
    const Obj door = AddDoor(rng, 0, 0, 0, -1, 1);
    door_x_ = GetRoom(0, 0).door_x[0];
    door_y_ = GetRoom(0, 0).door_y[0];
    if constexpr (kKind == UnlockKind::kBlockedPickup) {
      grid_.Set(door_x_ - 1, door_y_, Obj::Make(kBall, RandColor(rng)));
    }
    AddObject(rng, 0, 0, kKey, door.color);
    PlaceAgentInRoom(rng, 0, 0);
    if constexpr (kKind != UnlockKind::kUnlock) SetMission({"pick up the ", kColorName[box.color], " box"});
  }

 private:
  static constexpr const char* kName = kKind == UnlockKind::kUnlock   ? "MiniGrid Unlock"
                                       : kKind == UnlockKind::kPickup ? "MiniGrid UnlockPickup"
                                                                      : "MiniGrid BlockedUnlockPickup";

  int door_x_ = 0;
  int door_y_ = 0;
};

using Unlock = UnlockEnv<UnlockKind::kUnlock>;
using UnlockPickup = UnlockEnv<UnlockKind::kPickup>;
using BlockedUnlockPickup = UnlockEnv<UnlockKind::kBlockedPickup>;

}  // namespace envpool::minigrid
