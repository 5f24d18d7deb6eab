// BabyAI's other levels (minigrid 3.2.0, minigrid/envs/babyai/other.py), on BabyAILevel
// (babyai_level.h):
//  - ActionObjDoor (3 x 3 rooms of 7): 5 unique objects and 4 unlocked doors
//    in the middle room, the agent there, one of the 9 the target: a door to go to or open, an
//    object to go to or pick up (drawn);
//  - FindObj (3 x 3 rooms of room_size, max_steps 20 * room_size^2): an object in a random
//    room, the agent in the middle, connect_all; "pick up the/a <type>";
//  - KeyCorridor (3 columns of num_rows rooms of room_size, max_steps 30 * room_size^2): the
//    middle column one corridor (walls removed), a locked door into a room of the right column
//    with an obj_type object behind it, its key in the left column; "pick up the <type>";
//  - OneRoom (one room of room_size): a ball, then the agent; "pick up the ball";
//  - MoveTwoAcross (1 x 2 rooms of room_size, max_steps 16 * room_size^2): objs_per_room unique
//    objects a room, the wall between removed; "put A next to B, then put C next to D", A and
//    D from the left room, B and C from the right.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/minigrid/babyai_level.h"

namespace envpool::minigrid {

class BabyAIActionObjDoor : public BabyAILevel {
 public:
  static Config DefaultConfig() { return BabyAIConfig(); }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIActionObjDoor>(config, "BabyAI ActionObjDoor"); }
  explicit BabyAIActionObjDoor(const Config& config) : BabyAILevel(config, "BabyAI ActionObjDoor", 7, 3, 3) {
    placed_.reserve(9);
  }

 protected:
  void GenMission(Rng& rng) override {
    placed_.clear();
    AddDistractors(rng, 5, true, &placed_, 1, 1);
    for (int k = 0; k < 4; ++k) {
      const Obj door = AddDoor(rng, 1, 1, -1, -1, 0);
      placed_.push_back(Placed{kDoor, static_cast<Color>(door.color), 0, 0});
    }
    PlaceAgentInRoom(rng, 1, 1);
    const Placed& obj = RandElem(rng, placed_);
    const int desc = instrs_.Desc(obj.type, obj.color);
    if (RandInt(rng, 0, 2) == 0) {  // _rand_bool()
      instrs_.GoTo(desc);
    } else if (obj.type == kDoor) {
      instrs_.Open(desc);
    } else {
      instrs_.Pickup(desc);
    }
  }

 private:
  std::vector<Placed> placed_;
};

class BabyAIFindObj : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("room_size", int64_t{5});
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIFindObj>(config, kName); }
  explicit BabyAIFindObj(const Config& config)
      : BabyAILevel(config, kName, IntIn(config, kName, "room_size", 4, 64), 3, 3, 20) {}

 protected:
  void GenMission(Rng& rng) override {
    const int i = RandInt(rng, 0, num_rows_);
    const int j = RandInt(rng, 0, num_cols_);
    const Obj obj = AddObject(rng, i, j);
    PlaceAgentInRoom(rng, 1, 1);
    ConnectAll(rng);
    instrs_.Pickup(instrs_.Desc(obj.type, -1));
  }

 private:
  static constexpr const char* kName = "BabyAI FindObj";
};

class BabyAIKeyCorridor : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("num_rows", int64_t{3});
    c.Set("obj_type", std::string("ball"));
    c.Set("room_size", int64_t{6});
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIKeyCorridor>(config, kName); }
  explicit BabyAIKeyCorridor(const Config& config)
      : BabyAILevel(config, kName, IntIn(config, kName, "room_size", 3, 64), IntIn(config, kName, "num_rows", 1, 16), 3,
                    30) {
    obj_type_ = ObjTypeKwarg(config, kName);
  }

 protected:
  void GenMission(Rng& rng) override {
    for (int j = 1; j < num_rows_; ++j) RemoveWall(1, j, 3);
    const int room_idx = RandInt(rng, 0, num_rows_);
    const Obj door = AddDoor(rng, 2, room_idx, 2, -1, 1);
    const Obj obj = AddObject(rng, 2, room_idx, obj_type_);
    AddObject(rng, 0, RandInt(rng, 0, num_rows_), kKey, door.color);
    PlaceAgentInRoom(rng, 1, num_rows_ / 2);
    ConnectAll(rng);
    instrs_.Pickup(instrs_.Desc(obj.type, -1));
  }

 private:
  static constexpr const char* kName = "BabyAI KeyCorridor";
  Type obj_type_ = kBall;
};

class BabyAIOneRoom : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("room_size", int64_t{8});
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIOneRoom>(config, kName); }
  explicit BabyAIOneRoom(const Config& config)
      : BabyAILevel(config, kName, IntIn(config, kName, "room_size", 4, 64), 1, 1) {}

 protected:
  void GenMission(Rng& rng) override {
    AddObject(rng, 0, 0, kBall);
    PlaceAgentInRandomRoom(rng);
    instrs_.Pickup(instrs_.Desc(kBall, -1));
  }

 private:
  static constexpr const char* kName = "BabyAI OneRoom";
};

class BabyAIMoveTwoAcross : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("room_size", int64_t{5});
    c.Set("objs_per_room", int64_t{2});
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIMoveTwoAcross>(config, kName); }
  explicit BabyAIMoveTwoAcross(const Config& config)
      : BabyAILevel(config, kName, IntIn(config, kName, "room_size", 4, 64), 1, 2, 16) {
    objs_per_room_ = ObjsPerRoom(config, kName, 2);  // two a room are drawn
    left_.reserve(9);
    right_.reserve(9);
  }

 protected:
  void GenMission(Rng& rng) override {
    TwoRoomsOfObjects(rng, objs_per_room_, &left_, &right_);
    std::array<Placed, 2> l{}, r{};
    RandSubset(rng, left_.data(), objs_per_room_, 2, l.data());
    RandSubset(rng, right_.data(), objs_per_room_, 2, r.data());
    const int first = instrs_.PutNext(instrs_.Desc(l[0].type, l[0].color), instrs_.Desc(r[0].type, r[0].color));
    const int second = instrs_.PutNext(instrs_.Desc(r[1].type, r[1].color), instrs_.Desc(l[1].type, l[1].color));
    instrs_.Before(first, second);
  }

 private:
  static constexpr const char* kName = "BabyAI MoveTwoAcross";
  int objs_per_room_ = 2;
  std::vector<Placed> left_;
  std::vector<Placed> right_;
};

}  // namespace envpool::minigrid
