// BabyAI's GoTo levels (minigrid 3.2.0, minigrid/envs/babyai/goto.py), on BabyAILevel
// (babyai_level.h). In one room of room_size cells, the agent placed first (not facing an
// object), then
//  - GoToRedBallGrey: a red ball and num_dists distractors (not unique) turned grey; "go to the
//    red ball";
//  - GoToRedBall: the same, the distractors keeping their colours ("go to a red ball" when a
//    distractor is a red ball too); GoToRedBallNoDists: no distractors;
//  - GoToObj: one object (a distractor of add_distractors: colour, then type); go to it;
//  - GoToLocal: num_dists distractors (not unique), the target one of them (drawn);
//  - GoToRedBlueBall: num_dists distractors, none a red or blue ball (else RejectSampling), then
//    a ball of a colour drawn from red and blue, the target.
// In num_rows x num_cols rooms (3 x 3):
//  - GoTo (GoTo, GoToOpen, GoToObjMaze*): the agent in a random room, connect_all, num_dists
//    distractors in random rooms, the target one of them; doors_open opens every door;
//  - GoToDoor (room_size 7): four doors of the middle room (add_door: side, colour and lock
//    drawn), then the agent in it, the target one of the doors;
//  - GoToObjDoor (room_size 8): the agent in the middle room, 8 distractors and 4 doors there,
//    the target one of those 12.
// check_objs_reachable (RejectSampling: the level is generated again) where minigrid calls it.
// kwargs: room_size (4 .. 64; GoToDoor, GoToObjDoor and GoToRedBallNoDists fix it), num_dists
// (0 .. what fits), num_rows / num_cols (GoTo, 1 .. 8), doors_open (GoTo), max_steps (0:
// room_size^2 * num_rows * num_cols, one navigation), agent_view_size.
#pragma once

#include <string>
#include <vector>

#include "envs/minigrid/babyai_level.h"

namespace envpool::minigrid {

enum class GoToLevel { kRedBallGrey, kRedBall, kRedBallNoDists, kObj, kLocal, kRedBlueBall, kMaze, kDoor, kObjDoor };

template <GoToLevel kLevel>
class BabyAIGoTo : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c{{"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
    if constexpr (kRoomSizeKwarg) c.Set("room_size", int64_t{8});
    if constexpr (kLevel == GoToLevel::kRedBallGrey || kLevel == GoToLevel::kRedBall ||
                  kLevel == GoToLevel::kRedBlueBall) {
      c.Set("num_dists", int64_t{7});
    }
    if constexpr (kLevel == GoToLevel::kLocal) c.Set("num_dists", int64_t{8});
    if constexpr (kLevel == GoToLevel::kMaze) {
      c.Set("num_rows", int64_t{3});
      c.Set("num_cols", int64_t{3});
      c.Set("num_dists", int64_t{18});
      c.Set("doors_open", false);
    }
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIGoTo>(config, kName); }

  explicit BabyAIGoTo(const Config& config)
      : BabyAILevel(config, kName, RoomSizeOf(config), Rooms(config, "num_rows"), Rooms(config, "num_cols")) {
    if constexpr (kLevel == GoToLevel::kMaze) doors_open_ = config.Get<bool>("doors_open");
    if constexpr (kHasDists) {
      // The objects must fit beside the agent (in a corner: it and 2 neighbours) in the
      // (room_size - 2)^2 free cells of a room; minigrid would try forever otherwise.
      const int cells = (room_size_ - 2) * (room_size_ - 2);
      const int objects_max = kLevel == GoToLevel::kMaze    ? num_rows_ * num_cols_ * cells - 3
                              : kLevel == GoToLevel::kLocal ? cells - 3
                                                            : cells - 4;
      num_dists_ = IntIn(config, kName, "num_dists", 0, std::max(objects_max, 0));
      if ((kLevel == GoToLevel::kLocal || kLevel == GoToLevel::kMaze) && num_dists_ < 1) {
        throw std::invalid_argument(std::string(kName) + ": num_dists must be >= 1 (the target is one of them)");
      }
    }
    placed_.reserve(static_cast<std::size_t>(num_dists_ + 12));  // filled at each reset
    SetMission("go to the red ball");                            // the instruction's: at reset
  }

 protected:
  void GenMission(Rng& rng) override {
    placed_.clear();
    if constexpr (kLevel == GoToLevel::kRedBallGrey || kLevel == GoToLevel::kRedBall ||
                  kLevel == GoToLevel::kRedBallNoDists) {
      PlaceAgentInRandomRoom(rng);
      AddObject(rng, 0, 0, kBall, kRed);
      AddDistractors(rng, kLevel == GoToLevel::kRedBallNoDists ? 0 : num_dists_, false, &placed_);
      if constexpr (kLevel == GoToLevel::kRedBallGrey) {
        for (const Placed& p : placed_) {
          Obj obj = grid_.Get(p.x, p.y);
          obj.color = kGrey;
          grid_.Set(p.x, p.y, obj);
        }
      }
      CheckObjsReachable();
      GoTo(kBall, kRed);
    } else if constexpr (kLevel == GoToLevel::kObj) {
      PlaceAgentInRandomRoom(rng);
      AddDistractors(rng, 1, false, &placed_);
      GoTo(placed_[0].type, placed_[0].color);
    } else if constexpr (kLevel == GoToLevel::kLocal) {
      PlaceAgentInRandomRoom(rng);
      AddDistractors(rng, num_dists_, false, &placed_);
      CheckObjsReachable();
      GoToOneOf(rng);
    } else if constexpr (kLevel == GoToLevel::kRedBlueBall) {
      PlaceAgentInRandomRoom(rng);
      AddDistractors(rng, num_dists_, false, &placed_);
      for (const Placed& p : placed_) {
        if (p.type == kBall && (p.color == kBlue || p.color == kRed)) throw RejectSampling{};
      }
      const Color color = RandInt(rng, 0, 2) == 0 ? kRed : kBlue;  // _rand_elem(["red", "blue"])
      AddObject(rng, 0, 0, kBall, color);
      CheckObjsReachable();
      GoTo(kBall, color);
    } else if constexpr (kLevel == GoToLevel::kMaze) {
      PlaceAgentInRandomRoom(rng);
      ConnectAll(rng);
      AddDistractors(rng, num_dists_, false, &placed_);
      CheckObjsReachable();
      GoToOneOf(rng);
      if (doors_open_) OpenAllDoors();
    } else if constexpr (kLevel == GoToLevel::kDoor) {
      AddMiddleDoors(rng);
      PlaceAgentInRoom(rng, 1, 1);
      GoToOneOf(rng);
    } else {  // kObjDoor
      PlaceAgentInRoom(rng, 1, 1);
      AddDistractors(rng, 8, false, &placed_, 1, 1);
      AddMiddleDoors(rng);
      CheckObjsReachable();
      GoToOneOf(rng);
    }
  }

 private:
  static constexpr bool kHasDists = kLevel == GoToLevel::kRedBallGrey || kLevel == GoToLevel::kRedBall ||
                                    kLevel == GoToLevel::kLocal || kLevel == GoToLevel::kRedBlueBall ||
                                    kLevel == GoToLevel::kMaze;
  static constexpr bool kRoomSizeKwarg =
      kLevel != GoToLevel::kRedBallNoDists && kLevel != GoToLevel::kDoor && kLevel != GoToLevel::kObjDoor;
  static constexpr const char* kName = kLevel == GoToLevel::kRedBallGrey      ? "BabyAI GoToRedBallGrey"
                                       : kLevel == GoToLevel::kRedBall        ? "BabyAI GoToRedBall"
                                       : kLevel == GoToLevel::kRedBallNoDists ? "BabyAI GoToRedBallNoDists"
                                       : kLevel == GoToLevel::kObj            ? "BabyAI GoToObj"
                                       : kLevel == GoToLevel::kLocal          ? "BabyAI GoToLocal"
                                       : kLevel == GoToLevel::kRedBlueBall    ? "BabyAI GoToRedBlueBall"
                                       : kLevel == GoToLevel::kMaze           ? "BabyAI GoTo"
                                       : kLevel == GoToLevel::kDoor           ? "BabyAI GoToDoor"
                                                                              : "BabyAI GoToObjDoor";

  static int RoomSizeOf(const Config& config) {
    if constexpr (kRoomSizeKwarg) {
      return IntIn(config, kName, "room_size", 4, 64);
    } else {
      return kLevel == GoToLevel::kDoor ? 7 : 8;
    }
  }
  // The level's rooms along `key` (num_rows, num_cols): GoTo's kwarg, else 3 (GoToDoor,
  // GoToObjDoor: RoomGrid's default) or 1.
  static int Rooms(const Config& config, const std::string& key) {
    if constexpr (kLevel == GoToLevel::kMaze) {
      return IntIn(config, kName, key, 1, 8);
    } else {
      return kLevel == GoToLevel::kDoor || kLevel == GoToLevel::kObjDoor ? 3 : 1;
    }
  }

  // Four add_door(1, 1) (side, colour and lock drawn), each a candidate target.
  void AddMiddleDoors(Rng& rng) {
    for (int k = 0; k < 4; ++k) {
      const Obj door = AddDoor(rng, 1, 1);
      placed_.push_back(Placed{kDoor, static_cast<Color>(door.color), 0, 0});
    }
  }

  // The target: _rand_elem of the objects placed.
  void GoToOneOf(Rng& rng) {
    const Placed& target = RandElem(rng, placed_);
    GoTo(target.type, target.color);
  }

  int num_dists_ = 0;
  bool doors_open_ = false;
  std::vector<Placed> placed_;
};

using BabyAIGoToRedBallGrey = BabyAIGoTo<GoToLevel::kRedBallGrey>;
using BabyAIGoToRedBall = BabyAIGoTo<GoToLevel::kRedBall>;
using BabyAIGoToRedBallNoDists = BabyAIGoTo<GoToLevel::kRedBallNoDists>;
using BabyAIGoToObj = BabyAIGoTo<GoToLevel::kObj>;
using BabyAIGoToLocal = BabyAIGoTo<GoToLevel::kLocal>;
using BabyAIGoToRedBlueBall = BabyAIGoTo<GoToLevel::kRedBlueBall>;
using BabyAIGoToMaze = BabyAIGoTo<GoToLevel::kMaze>;
using BabyAIGoToDoor = BabyAIGoTo<GoToLevel::kDoor>;
using BabyAIGoToObjDoor = BabyAIGoTo<GoToLevel::kObjDoor>;

}  // namespace envpool::minigrid
