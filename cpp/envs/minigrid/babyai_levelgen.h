// BabyAI's LevelGen (minigrid 3.2.0, minigrid/envs/babyai/core/levelgen.py) and the levels on
// it (synth.py: Synth, SynthLoc, SynthSeq, MiniBossLevel, BossLevel, BossLevelNoUnlock;
// goto.py: GoToSeq; pickup.py: PickupLoc), on BabyAILevel (babyai_level.h). A level: with
// probability locked_room_prob a locked room (a door of a random room on a side with a
// neighbour, its key in another room), connect_all, num_dists distractors (not unique) in
// random rooms, the agent in a room other than the locked one (check_objs_reachable unless
// unblocking); then a random instruction: instr_kinds "action" (one of action_kinds: go to,
// pick up, open, put next to), "and" (two actions) or "seq" (two actions or ands, before or
// after), each object described by a type, a colour (or none) and, with locations, half the time
// a location relative to the agent; a description must match an object (outside the locked room
// unless implicit_unlock), else it is drawn again (100 times, then the level is).
#pragma once

#include <string>
#include <vector>

#include "envs/minigrid/babyai_level.h"

namespace envpool::minigrid {

enum class LevelGenId { kGoToSeq, kPickupLoc, kSynth, kSynthLoc, kSynthSeq, kMiniBoss, kBoss, kBossNoUnlock };

template <LevelGenId kLevel>
class BabyAILevelGen : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    if constexpr (kDims) {
      c.Set("room_size", int64_t{8});
      c.Set("num_rows", int64_t{3});
      c.Set("num_cols", int64_t{3});
      c.Set("num_dists", int64_t{18});
    }
    if constexpr (kLockedKwarg) c.Set("locked_room_prob", 0.5);
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAILevelGen>(config, kName); }

  explicit BabyAILevelGen(const Config& config)
      : BabyAILevel(config, kName, Dim(config, "room_size"), Dim(config, "num_rows"), Dim(config, "num_cols")) {
    if constexpr (kDims) {
      // The objects must fit the rooms beside the agent (minigrid would try forever).
      const int cells = num_rows_ * num_cols_ * (room_size_ - 2) * (room_size_ - 2);
      num_dists_ = IntIn(config, kName, "num_dists", 0, std::max(0, cells - 4));
    } else {
      num_dists_ = kLevel == LevelGenId::kPickupLoc ? 8 : 7;
    }
    if constexpr (kLockedKwarg) {
      locked_room_prob_ = config.Get<double>("locked_room_prob");
      if (!(locked_room_prob_ >= 0.0 && locked_room_prob_ <= 1.0)) {
        throw std::invalid_argument(std::string(kName) + ": locked_room_prob must be in [0, 1], got " +
                                    std::to_string(locked_room_prob_));
      }
      if (locked_room_prob_ > 0.0 && num_rows_ * num_cols_ < 2) {
        throw std::invalid_argument(std::string(kName) + ": a locked room needs at least 2 rooms");
      }
    } else {
      locked_room_prob_ = kLevel == LevelGenId::kMiniBoss ? 0.25 : 0.0;
    }
    unblocking_ = kUnblocking;
  }

 protected:
  void GenMission(Rng& rng) override {
    locked_room_ = -1;
    if (rng.Uniform(0.0, 1.0) < locked_room_prob_) AddLockedRoom(rng);
    ConnectAll(rng);
    AddDistractors(rng, num_dists_, false);
    do {
      PlaceAgentInRandomRoom(rng);
    } while (AgentRoom() == locked_room_);
    if (!kUnblocking) CheckObjsReachable();
    RandInstr(rng, kInstrKinds);
  }

 private:
  // instr_kinds, a bit each: action, and, seq (in minigrid's order).
  static constexpr int kAction = 1, kAnd = 2, kSeq = 4;
  // action_kinds, a bit each: goto, pickup, open, putnext.
  static constexpr int kGoToKind = 1, kPickupKind = 2, kOpenKind = 4, kPutNextKind = 8;

  static constexpr const char* kName = kLevel == LevelGenId::kGoToSeq     ? "BabyAI GoToSeq"
                                       : kLevel == LevelGenId::kPickupLoc ? "BabyAI PickupLoc"
                                       : kLevel == LevelGenId::kSynth     ? "BabyAI Synth"
                                       : kLevel == LevelGenId::kSynthLoc  ? "BabyAI SynthLoc"
                                       : kLevel == LevelGenId::kSynthSeq  ? "BabyAI SynthSeq"
                                       : kLevel == LevelGenId::kMiniBoss  ? "BabyAI MiniBossLevel"
                                       : kLevel == LevelGenId::kBoss      ? "BabyAI BossLevel"
                                                                          : "BabyAI BossLevelNoUnlock";
  // Whether the id takes room_size, num_rows, num_cols, num_dists (PickupLoc and MiniBossLevel
  // fix them) and locked_room_prob (GoToSeq, PickupLoc, MiniBossLevel and BossLevelNoUnlock fix
  // it).
  static constexpr bool kDims = kLevel != LevelGenId::kPickupLoc && kLevel != LevelGenId::kMiniBoss;
  static constexpr bool kLockedKwarg = kLevel == LevelGenId::kSynth || kLevel == LevelGenId::kSynthLoc ||
                                       kLevel == LevelGenId::kSynthSeq || kLevel == LevelGenId::kBoss;
  static constexpr int kInstrKinds =
      kLevel == LevelGenId::kPickupLoc || kLevel == LevelGenId::kSynth || kLevel == LevelGenId::kSynthLoc
          ? kAction
          : kAction | kAnd | kSeq;
  static constexpr int kActionKinds = kLevel == LevelGenId::kGoToSeq ? kGoToKind
                                      : kLevel == LevelGenId::kPickupLoc
                                          ? kPickupKind
                                          : kGoToKind | kPickupKind | kOpenKind | kPutNextKind;
  static constexpr bool kLocations = kLevel != LevelGenId::kGoToSeq && kLevel != LevelGenId::kSynth;
  static constexpr bool kUnblocking = kLevel != LevelGenId::kGoToSeq && kLevel != LevelGenId::kPickupLoc;
  static constexpr bool kImplicitUnlock = kLevel == LevelGenId::kGoToSeq || kLevel == LevelGenId::kPickupLoc ||
                                          kLevel == LevelGenId::kMiniBoss || kLevel == LevelGenId::kBoss;

  static int Dim(const Config& config, const char* key) {
    if constexpr (kDims) {
      return IntIn(config, kName, key, std::string(key) == "room_size" ? 4 : 1,
                   std::string(key) == "room_size" ? 64 : 8);
    } else if (kLevel == LevelGenId::kPickupLoc) {
      return std::string(key) == "room_size" ? 8 : 1;
    } else {  // MiniBossLevel
      return std::string(key) == "room_size" ? 5 : 2;
    }
  }

  // _rand_elem of the set bits of `kinds`, in order.
  static int RandKind(Rng& rng, int kinds) {
    int count = 0;
    for (int k = kinds; k != 0; k &= k - 1) ++count;
    int pick = RandInt(rng, 0, count);
    for (int bit = 1;; bit <<= 1) {
      if ((kinds & bit) != 0 && pick-- == 0) return bit;
    }
  }

  // add_locked_room: a locked door (colour drawn) on a side of a random room with a neighbour,
  // its key in another room.
  void AddLockedRoom(Rng& rng) {
    Obj door;
    for (;;) {
      const int i = RandInt(rng, 0, num_cols_);
      const int j = RandInt(rng, 0, num_rows_);
      const int door_idx = RandInt(rng, 0, 4);
      locked_room_ = j * num_cols_ + i;
      if (GetRoom(i, j).neighbor[door_idx] < 0) continue;
      door = AddDoor(rng, i, j, door_idx, -1, 1);
      break;
    }
    for (;;) {
      const int i = RandInt(rng, 0, num_cols_);
      const int j = RandInt(rng, 0, num_rows_);
      if (j * num_cols_ + i == locked_room_) continue;
      AddObject(rng, i, j, kKey, door.color);
      break;
    }
  }

  // rand_obj(types): a description (colour or none, type, location) matching an object.
  int RandObj(Rng& rng, bool doors, bool others) {
    const int num_types = doors && others ? 4 : others ? 3 : 1;
    for (int tries = 0;; ++tries) {
      if (tries > 100) throw RecursionError("BabyAI: failed to find suitable object");
      const int color_pick = RandInt(rng, 0, 7);  // [None, *COLOR_NAMES]
      const int color = color_pick == 0 ? -1 : kColorNames[color_pick - 1];
      const int type = others ? kDescTypes[RandInt(rng, 0, num_types)] : static_cast<int>(kDoor);
      int loc = kNoLoc;
      if (kLocations && RandInt(rng, 0, 2) == 0) loc = RandInt(rng, 0, 4);  // _rand_bool(), LOC_NAMES
      const int d = instrs_.Desc(type, color, loc);
      ObjDesc& desc = instrs_.desc(d);
      FindMatching(desc, true);
      bool ok = desc.num_matched > 0;
      if (ok && !kImplicitUnlock && locked_room_ >= 0) {
        ok = false;
        const Room& locked = RoomAt(locked_room_);
        for (const auto& [x, y] : desc.poss) ok = ok || !PosInside(locked, x, y);
      }
      if (ok) return d;
      instrs_.PopDesc();
    }
  }

  // rand_instr(action_kinds, instr_kinds).
  int RandInstr(Rng& rng, int instr_kinds) {
    const int kind = RandKind(rng, instr_kinds);
    if (kind == kAction) {
      switch (RandKind(rng, kActionKinds)) {
        case kGoToKind:
          return instrs_.GoTo(RandObj(rng, true, true));
        case kPickupKind:
          return instrs_.Pickup(RandObj(rng, false, true));
        case kOpenKind:
          return instrs_.Open(RandObj(rng, true, false));
        default: {
          const int move = RandObj(rng, false, true);
          return instrs_.PutNext(move, RandObj(rng, true, true));
        }
      }
    }
    if (kind == kAnd) {
      const int a = RandInstr(rng, kAction);
      return instrs_.And(a, RandInstr(rng, kAction));
    }
    const int a = RandInstr(rng, kAction | kAnd);
    const int b = RandInstr(rng, kAction | kAnd);
    return RandInt(rng, 0, 2) == 0 ? instrs_.Before(a, b) : instrs_.After(a, b);  // ["before", "after"]
  }

  int num_dists_ = 18;
  double locked_room_prob_ = 0.5;
  int locked_room_ = -1;
};

using BabyAIGoToSeq = BabyAILevelGen<LevelGenId::kGoToSeq>;
using BabyAIPickupLoc = BabyAILevelGen<LevelGenId::kPickupLoc>;
using BabyAISynth = BabyAILevelGen<LevelGenId::kSynth>;
using BabyAISynthLoc = BabyAILevelGen<LevelGenId::kSynthLoc>;
using BabyAISynthSeq = BabyAILevelGen<LevelGenId::kSynthSeq>;
using BabyAIMiniBossLevel = BabyAILevelGen<LevelGenId::kMiniBoss>;
using BabyAIBossLevel = BabyAILevelGen<LevelGenId::kBoss>;
using BabyAIBossLevelNoUnlock = BabyAILevelGen<LevelGenId::kBossNoUnlock>;

}  // namespace envpool::minigrid
