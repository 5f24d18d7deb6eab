// BabyAI's Pickup and PutNext levels (minigrid 3.2.0, minigrid/envs/babyai/pickup.py and
// putnext.py), on BabyAILevel (babyai_level.h):
//  - Pickup (3 x 3 rooms of 8): the agent in a random room, connect_all, 18 distractors (not
//    unique), check_objs_reachable, "pick up the/a <colour> <type>" for one of them;
//    UnblockPickup: 20 distractors, and the level is drawn again unless some object is NOT
//    reachable without moving another;
//  - PickupDist (one room of 7): 5 unique distractors, then the agent; the target described
//    by its type, its colour or both (drawn); debug: picking up another object fails;
//  - PickupAbove (3 x 3 rooms of 6, max_steps 288): an object in the room above the middle,
//    an unlocked door between them, the agent in the middle room, connect_all;
//  - PutNextLocal (one room of room_size): num_objs unique objects, "put A next to B" for two
//    of them;
//  - PutNext (1 x 2 rooms of room_size, max_steps 8 * room_size^2): objs_per_room unique
//    objects in each room, the wall between them removed, A and B one from each room (swapped
//    half the time); start_carrying: the agent holds A after reset (the first observation, as
//    minigrid's reset returns it, still shows A where it was).
// PickupLoc is levelgen's (babyai_levelgen.h).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/minigrid/babyai_level.h"

namespace envpool::minigrid {

template <bool kUnblock>
class BabyAIPickupAny : public BabyAILevel {
 public:
  static Config DefaultConfig() { return BabyAIConfig(); }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIPickupAny>(config, kName); }
  explicit BabyAIPickupAny(const Config& config) : BabyAILevel(config, kName, 8, 3, 3) { placed_.reserve(20); }

 protected:
  void GenMission(Rng& rng) override {
    placed_.clear();
    PlaceAgentInRandomRoom(rng);
    ConnectAll(rng);
    AddDistractors(rng, kUnblock ? 20 : 18, false, &placed_);
    if constexpr (kUnblock) {
      if (ObjsReachable()) throw RejectSampling{};
    } else {
      CheckObjsReachable();
    }
    const Placed& obj = RandElem(rng, placed_);
    instrs_.Pickup(instrs_.Desc(obj.type, obj.color));
  }

 private:
  static constexpr const char* kName = kUnblock ? "BabyAI UnblockPickup" : "BabyAI Pickup";
  std::vector<Placed> placed_;
};

using BabyAIPickup = BabyAIPickupAny<false>;
using BabyAIUnblockPickup = BabyAIPickupAny<true>;

class BabyAIPickupDist : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("debug", false);
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIPickupDist>(config, "BabyAI PickupDist"); }
  explicit BabyAIPickupDist(const Config& config)
      : BabyAILevel(config, "BabyAI PickupDist", 7, 1, 1), debug_(config.Get<bool>("debug")) {
    placed_.reserve(5);
  }

 protected:
  void GenMission(Rng& rng) override {
    placed_.clear();
    AddDistractors(rng, 5, true, &placed_);
    PlaceAgentInRoom(rng, 0, 0);
    const Placed& obj = RandElem(rng, placed_);
    const int select_by = RandInt(rng, 0, 3);  // ["type", "color", "both"]
    const int type = select_by == 1 ? -1 : obj.type;
    const int color = select_by == 0 ? -1 : obj.color;
    instrs_.Pickup(instrs_.Desc(type, color), debug_);
  }

 private:
  bool debug_;
  std::vector<Placed> placed_;
};

class BabyAIPickupAbove : public BabyAILevel {
 public:
  static Config DefaultConfig() { return BabyAIConfig(); }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIPickupAbove>(config, "BabyAI PickupAbove"); }
  explicit BabyAIPickupAbove(const Config& config) : BabyAILevel(config, "BabyAI PickupAbove", 6, 3, 3, 8) {}

 protected:
  void GenMission(Rng& rng) override {
    const Obj obj = AddObject(rng, 1, 0);
    AddDoor(rng, 1, 1, 3, -1, 0);
    PlaceAgentInRoom(rng, 1, 1);
    ConnectAll(rng);
    instrs_.Pickup(instrs_.Desc(obj.type, obj.color));
  }
};

class BabyAIPutNextLocal : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("room_size", int64_t{8});
    c.Set("num_objs", int64_t{8});
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIPutNextLocal>(config, kName); }
  explicit BabyAIPutNextLocal(const Config& config)
      : BabyAILevel(config, kName, IntIn(config, kName, "room_size", 4, 64), 1, 1) {
    // Unique objects: at most the 18 (type, colour) pairs, and room beside the agent.
    const int cells = (room_size_ - 2) * (room_size_ - 2);
    num_objs_ = IntIn(config, kName, "num_objs", 2, std::max(2, std::min(18, cells - 3)));
    placed_.reserve(static_cast<std::size_t>(num_objs_));
  }

 protected:
  void GenMission(Rng& rng) override {
    placed_.clear();
    PlaceAgentInRandomRoom(rng);
    AddDistractors(rng, num_objs_, true, &placed_);
    CheckObjsReachable();
    std::array<Placed, 2> pair{};
    RandSubset(rng, placed_.data(), num_objs_, 2, pair.data());
    instrs_.PutNext(instrs_.Desc(pair[0].type, pair[0].color), instrs_.Desc(pair[1].type, pair[1].color));
  }

 private:
  static constexpr const char* kName = "BabyAI PutNextLocal";
  int num_objs_;
  std::vector<Placed> placed_;
};

class BabyAIPutNext : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("room_size", int64_t{5});
    c.Set("objs_per_room", int64_t{2});
    c.Set("start_carrying", false);
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIPutNext>(config, kName); }
  explicit BabyAIPutNext(const Config& config)
      : BabyAILevel(config, kName, IntIn(config, kName, "room_size", 4, 64), 1, 2, 8),
        start_carrying_(config.Get<bool>("start_carrying")) {
    objs_per_room_ = ObjsPerRoom(config, kName, 1);
    left_.reserve(9);
    right_.reserve(9);
  }

 protected:
  void GenMission(Rng& rng) override {
    TwoRoomsOfObjects(rng, objs_per_room_, &left_, &right_);
    Placed a = RandElem(rng, left_);
    Placed b = RandElem(rng, right_);
    if (RandInt(rng, 0, 2) == 0) std::swap(a, b);  // _rand_bool()
    obj_a_x_ = a.x;
    obj_a_y_ = a.y;
    instrs_.PutNext(instrs_.Desc(a.type, a.color), instrs_.Desc(b.type, b.color));
  }

  // PutNext.reset with start_carrying: A leaves the grid for the agent's hands (its cur_pos,
  // as minigrid's, still where it was).
  void AfterResetObs() override {
    if (!start_carrying_) return;
    const Obj a = grid_.Get(obj_a_x_, obj_a_y_);
    grid_.Set(obj_a_x_, obj_a_y_, Obj{});
    SetCarrying(a);
  }

 private:
  static constexpr const char* kName = "BabyAI PutNext";
  bool start_carrying_;
  int objs_per_room_ = 1;
  int obj_a_x_ = 0;
  int obj_a_y_ = 0;
  std::vector<Placed> left_;
  std::vector<Placed> right_;
};

}  // namespace envpool::minigrid
