// BabyAI's single-room GoTo levels (minigrid 3.2.0, minigrid/envs/babyai/goto.py), on
// BabyAILevel (babyai_level.h): one room of room_size cells, the agent placed first (not facing
// an object), then
//  - GoToRedBallGrey: a red ball and num_dists distractors (not unique) turned grey; "go to the
//    red ball";
//  - GoToRedBall: the same, the distractors keeping their colours ("go to a red ball" when a
//    distractor is a red ball too); GoToRedBallNoDists: no distractors;
//  - GoToObj: one object (a distractor of add_distractors: colour, then type); go to it;
//  - GoToLocal: num_dists distractors (not unique), the target one of them (drawn);
// with check_objs_reachable (RejectSampling: the level is generated again) where minigrid calls
// it. kwargs: room_size (4 .. 64), num_dists (GoToRedBallGrey, GoToRedBall, GoToLocal: 0 ..
// what fits), max_steps (0: room_size^2, one navigation), agent_view_size.
#pragma once

#include <string>
#include <vector>

#include "envs/minigrid/babyai_level.h"

namespace envpool::minigrid {

enum class GoToLevel { kRedBallGrey, kRedBall, kRedBallNoDists, kObj, kLocal };

template <GoToLevel kLevel>
class BabyAIGoTo : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c{{"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
    if constexpr (kLevel != GoToLevel::kRedBallNoDists) c.Set("room_size", int64_t{8});
    if constexpr (kLevel == GoToLevel::kRedBallGrey || kLevel == GoToLevel::kRedBall) c.Set("num_dists", int64_t{7});
    if constexpr (kLevel == GoToLevel::kLocal) c.Set("num_dists", int64_t{8});
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIGoTo>(config, kName); }

  explicit BabyAIGoTo(const Config& config) : BabyAILevel(config, kName, RoomSizeOf(config), 1, 1) {
    if constexpr (kHasDists) {
      // The objects must fit beside the agent (in a corner: it and 2 neighbours) in the
      // (room_size - 2)^2 free cells; minigrid would try forever otherwise.
      const int objects_max = (room_size_ - 2) * (room_size_ - 2) - 3 - (kLevel == GoToLevel::kLocal ? 0 : 1);
      num_dists_ = IntIn(config, kName, "num_dists", 0, std::max(objects_max, 0));
      if constexpr (kLevel == GoToLevel::kLocal) {
        if (num_dists_ < 1)
          throw std::invalid_argument(std::string(kName) + ": num_dists must be >= 1 (the target is one)");
      }
    }
    placed_.reserve(static_cast<std::size_t>(num_dists_ + 1));  // filled at each reset
    SetMission("go to the red ball");                           // the instruction's: at reset
  }

 protected:
  void GenMission(Rng& rng) override {
    PlaceAgentInRandomRoom(rng);
    if constexpr (kLevel == GoToLevel::kRedBallGrey || kLevel == GoToLevel::kRedBall ||
                  kLevel == GoToLevel::kRedBallNoDists) {
      AddTaggedObject(rng, 0, 0, kBall, kRed);
      placed_.clear();
      AddDistractors(rng, kLevel == GoToLevel::kRedBallNoDists ? 0 : num_dists_, &placed_);
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
      placed_.clear();
      AddDistractors(rng, 1, &placed_);
      GoTo(placed_[0].type, placed_[0].color);
    } else {
      placed_.clear();
      AddDistractors(rng, num_dists_, &placed_);
      CheckObjsReachable();
      const Placed& target = placed_[static_cast<std::size_t>(RandInt(rng, 0, static_cast<int>(placed_.size())))];
      GoTo(target.type, target.color);
    }
  }

 private:
  static constexpr bool kHasDists =
      kLevel == GoToLevel::kRedBallGrey || kLevel == GoToLevel::kRedBall || kLevel == GoToLevel::kLocal;
  static constexpr const char* kName = kLevel == GoToLevel::kRedBallGrey      ? "BabyAI GoToRedBallGrey"
                                       : kLevel == GoToLevel::kRedBall        ? "BabyAI GoToRedBall"
                                       : kLevel == GoToLevel::kRedBallNoDists ? "BabyAI GoToRedBallNoDists"
                                       : kLevel == GoToLevel::kObj            ? "BabyAI GoToObj"
                                                                              : "BabyAI GoToLocal";

  static int RoomSizeOf(const Config& config) {
    if constexpr (kLevel == GoToLevel::kRedBallNoDists) {
      return 8;
    } else {
      return IntIn(config, kName, "room_size", 4, 64);
    }
  }

  int num_dists_ = 0;
  std::vector<Placed> placed_;
};

using BabyAIGoToRedBallGrey = BabyAIGoTo<GoToLevel::kRedBallGrey>;
using BabyAIGoToRedBall = BabyAIGoTo<GoToLevel::kRedBall>;
using BabyAIGoToRedBallNoDists = BabyAIGoTo<GoToLevel::kRedBallNoDists>;
using BabyAIGoToObj = BabyAIGoTo<GoToLevel::kObj>;
using BabyAIGoToLocal = BabyAIGoTo<GoToLevel::kLocal>;

}  // namespace envpool::minigrid
