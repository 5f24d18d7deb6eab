// BabyAI's Unlock levels (minigrid 3.2.0, minigrid/envs/babyai/unlock.py) and GoToImpUnlock
// (goto.py), on BabyAILevel (babyai_level.h):
//  - Unlock (3 x 3 rooms of 8): a locked door of a random room, its key in a random room,
//    connect_all (half the time with door colours other than the locked door's), 3 distractors
//    (not unique) in every room, the agent outside the locked room; "open the <colour> door";
//  - GoToImpUnlock: the same with connect_all's own colours and 2 distractors a room; then one
//    more object in the locked room, the target of "go to the/a <colour> <type>";
//  - UnlockLocal (room_size 8): a locked door of the middle room and its key in it (distractors:
//    3 unique ones too), the agent there; "open the door";
//  - KeyInBox: the key inside a box of a colour drawn;
//  - UnlockPickup (1 x 2 rooms of 6): a box in the right room, a locked door between, its key
//    in the left room (distractors: 4 unique ones in random rooms), the agent on the left;
//    "pick up the <colour> box". minigrid's `if max is None` (the builtin, never None) leaves
//    its max_steps the instruction's: 72;
//  - BlockedUnlockPickup (max_steps 576): the same, a ball of a colour drawn blocking the door;
//    "pick up the box";
//  - UnlockToUnlock (1 x 3 rooms of 6, max_steps 1080): two locked doors of distinct colours,
//    each key behind the other door, a ball behind the first; "pick up the ball".
// Unlock and GoToImpUnlock compare numpy integers with `is` (`ik is id and jk is jd`, `i is not
// id or j is not jd`), never true of two draws: the key may go in the locked room, and every
// room, the locked one too, gets its distractors. So here.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/minigrid/babyai_level.h"

namespace envpool::minigrid {

template <bool kGoTo>
class BabyAIUnlockAny : public BabyAILevel {
 public:
  static Config DefaultConfig() { return BabyAIConfig(); }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIUnlockAny>(config, kName); }
  explicit BabyAIUnlockAny(const Config& config) : BabyAILevel(config, kName, 8, 3, 3) { placed_.reserve(1); }

 protected:
  void GenMission(Rng& rng) override {
    const int id = RandInt(rng, 0, num_cols_);
    const int jd = RandInt(rng, 0, num_rows_);
    const Obj door = AddDoor(rng, id, jd, -1, -1, 1);
    const int locked_room = jd * num_cols_ + id;
    const int ik = RandInt(rng, 0, num_cols_);
    const int jk = RandInt(rng, 0, num_rows_);
    AddObject(rng, ik, jk, kKey, door.color);
    if (!kGoTo && RandInt(rng, 0, 2) == 0) {  // _rand_bool()
      ConnectAll(rng, door.color);
    } else {
      ConnectAll(rng);
    }
    for (int i = 0; i < num_cols_; ++i) {
      for (int j = 0; j < num_rows_; ++j) AddDistractors(rng, kGoTo ? 2 : 3, false, nullptr, i, j);
    }
    do {
      PlaceAgentInRandomRoom(rng);
    } while (AgentRoom() == locked_room);
    CheckObjsReachable();
    if constexpr (kGoTo) {
      placed_.clear();
      AddDistractors(rng, 1, false, &placed_, id, jd);
      GoTo(placed_[0].type, placed_[0].color);
    } else {
      instrs_.Open(instrs_.Desc(kDoor, door.color));
    }
  }

 private:
  static constexpr const char* kName = kGoTo ? "BabyAI GoToImpUnlock" : "BabyAI Unlock";
  std::vector<Placed> placed_;
};

using BabyAIUnlock = BabyAIUnlockAny<false>;
using BabyAIGoToImpUnlock = BabyAIUnlockAny<true>;

// UnlockLocal and KeyInBox: a locked door of the middle room, its key in the room (in a box).
template <bool kKeyInBox>
class BabyAIUnlockLocalAny : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    if constexpr (!kKeyInBox) c.Set("distractors", false);
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIUnlockLocalAny>(config, kName); }
  explicit BabyAIUnlockLocalAny(const Config& config) : BabyAILevel(config, kName, 8, 3, 3) {
    if constexpr (!kKeyInBox) distractors_ = config.Get<bool>("distractors");
  }

 protected:
  void GenMission(Rng& rng) override {
    const Obj door = AddDoor(rng, 1, 1, -1, -1, 1);
    if constexpr (kKeyInBox) {
      Obj box = Obj::Make(kBox, RandColor(rng));
      box.inner_type = kKey;
      box.inner_color = door.color;
      PlaceInRoom(rng, 1, 1, box);
    } else {
      AddObject(rng, 1, 1, kKey, door.color);
      if (distractors_) AddDistractors(rng, 3, true, nullptr, 1, 1);
    }
    PlaceAgentInRoom(rng, 1, 1);
    instrs_.Open(instrs_.Desc(kDoor, -1));
  }

 private:
  static constexpr const char* kName = kKeyInBox ? "BabyAI KeyInBox" : "BabyAI UnlockLocal";
  bool distractors_ = false;
};

using BabyAIUnlockLocal = BabyAIUnlockLocalAny<false>;
using BabyAIKeyInBox = BabyAIUnlockLocalAny<true>;

// UnlockPickup and BlockedUnlockPickup.
template <bool kBlocked>
class BabyAIUnlockPickupAny : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    if constexpr (!kBlocked) c.Set("distractors", false);
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIUnlockPickupAny>(config, kName); }
  explicit BabyAIUnlockPickupAny(const Config& config) : BabyAILevel(config, kName, 6, 1, 2, kBlocked ? 16 : 0) {
    if constexpr (!kBlocked) distractors_ = config.Get<bool>("distractors");
  }

 protected:
  void GenMission(Rng& rng) override {
    const Obj box = AddObject(rng, 1, 0, kBox);
    const Obj door = AddDoor(rng, 0, 0, 0, -1, 1);
    if constexpr (kBlocked) {
      const Room& room = GetRoom(0, 0);
      grid_.Set(room.door_x[0] - 1, room.door_y[0], Obj::Make(kBall, RandColor(rng)));
    }
    AddObject(rng, 0, 0, kKey, door.color);
    if (distractors_) AddDistractors(rng, 4, true);
    PlaceAgentInRoom(rng, 0, 0);
    instrs_.Pickup(instrs_.Desc(kBox, kBlocked ? -1 : box.color));
  }

 private:
  static constexpr const char* kName = kBlocked ? "BabyAI BlockedUnlockPickup" : "BabyAI UnlockPickup";
  bool distractors_ = false;
};

using BabyAIUnlockPickup = BabyAIUnlockPickupAny<false>;
using BabyAIBlockedUnlockPickup = BabyAIUnlockPickupAny<true>;

class BabyAIUnlockToUnlock : public BabyAILevel {
 public:
  static Config DefaultConfig() { return BabyAIConfig(); }
  static EnvSpec Spec(const Config& config) {
    return CheckedSpec<BabyAIUnlockToUnlock>(config, "BabyAI UnlockToUnlock");
  }
  explicit BabyAIUnlockToUnlock(const Config& config) : BabyAILevel(config, "BabyAI UnlockToUnlock", 6, 1, 3, 30) {}

 protected:
  void GenMission(Rng& rng) override {
    std::array<Color, 2> colors{};
    RandSubset(rng, kColorNames, 6, 2, colors.data());
    AddDoor(rng, 0, 0, 0, colors[0], 1);
    AddObject(rng, 2, 0, kKey, colors[0]);
    AddDoor(rng, 1, 0, 0, colors[1], 1);
    AddObject(rng, 1, 0, kKey, colors[1]);
    AddObject(rng, 0, 0, kBall);
    PlaceAgentInRoom(rng, 1, 0);
    instrs_.Pickup(instrs_.Desc(kBall, -1));
  }
};

}  // namespace envpool::minigrid
