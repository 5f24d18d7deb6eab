// BabyAI's Open levels (minigrid 3.2.0, minigrid/envs/babyai/open.py), on BabyAILevel
// (babyai_level.h):
//  - Open (3 x 3 rooms of 8): the agent in a random room, connect_all, 18 distractors (not
//    unique), check_objs_reachable; "open the/a <colour> door" for a door drawn from every
//    room's doors (a door two rooms share drawn from both);
//  - OpenRedDoor (1 x 2 rooms of 5): a red unlocked door on the right wall; "open the red door";
//  - OpenDoor (room_size 8): four unlocked doors of the middle room in four colours drawn
//    (_rand_subset), described by the first one's colour or by a location drawn (select_by
//    "color" / "loc", drawn when ""), then the agent in it; debug: opening another door fails;
//  - OpenTwoDoors (room_size 6, max_steps 720): doors of first_color (left wall) and
//    second_color (right wall; both drawn when "", two distinct colours drawn always); "open the
//    A door, then open the B door"; strict: opening B first fails;
//  - OpenDoorsOrder (room_size 6, max_steps 720): num_doors doors of distinct colours, two of
//    them drawn; one of "open A", "open A, then open B", "open A after you open B"; debug: each
//    Open strict.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "envs/minigrid/babyai_level.h"

namespace envpool::minigrid {

class BabyAIOpen : public BabyAILevel {
 public:
  static Config DefaultConfig() { return BabyAIConfig(); }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIOpen>(config, "BabyAI Open"); }
  explicit BabyAIOpen(const Config& config) : BabyAILevel(config, "BabyAI Open", 8, 3, 3) { doors_.reserve(48); }

 protected:
  void GenMission(Rng& rng) override {
    PlaceAgentInRandomRoom(rng);
    ConnectAll(rng);
    AddDistractors(rng, 18, false);
    CheckObjsReachable();
    RoomDoors(&doors_);
    const Placed& door = RandElem(rng, doors_);
    instrs_.Open(instrs_.Desc(kDoor, door.color));
  }

 private:
  std::vector<Placed> doors_;
};

class BabyAIOpenRedDoor : public BabyAILevel {
 public:
  static Config DefaultConfig() { return BabyAIConfig(); }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIOpenRedDoor>(config, "BabyAI OpenRedDoor"); }
  explicit BabyAIOpenRedDoor(const Config& config) : BabyAILevel(config, "BabyAI OpenRedDoor", 5, 1, 2) {}

 protected:
  void GenMission(Rng& rng) override {
    AddDoor(rng, 0, 0, 0, kRed, 0);
    PlaceAgentInRoom(rng, 0, 0);
    instrs_.Open(instrs_.Desc(kDoor, kRed));
  }
};

class BabyAIOpenDoor : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("debug", false);
    c.Set("select_by", std::string());
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIOpenDoor>(config, "BabyAI OpenDoor"); }
  explicit BabyAIOpenDoor(const Config& config)
      : BabyAILevel(config, "BabyAI OpenDoor", 8, 3, 3), debug_(config.Get<bool>("debug")) {
    const auto select_by = config.Get<std::string>("select_by");
    if (select_by == "color") {
      select_by_ = 0;
    } else if (select_by == "loc") {
      select_by_ = 1;
    } else if (!select_by.empty()) {
      throw std::invalid_argument("BabyAI OpenDoor: select_by must be \"\" (drawn), \"color\" or \"loc\", got \"" +
                                  select_by + "\"");
    }
  }

 protected:
  void GenMission(Rng& rng) override {
    std::array<Color, 4> colors{};
    RandSubset(rng, kColorNames, 6, 4, colors.data());
    for (int i = 0; i < 4; ++i) AddDoor(rng, 1, 1, i, colors[static_cast<std::size_t>(i)], 0);
    const int select_by = select_by_ >= 0 ? select_by_ : RandInt(rng, 0, 2);  // ["color", "loc"]
    const int desc =
        select_by == 0 ? instrs_.Desc(kDoor, colors[0]) : instrs_.Desc(kDoor, -1, RandInt(rng, 0, 4));  // LOC_NAMES
    PlaceAgentInRoom(rng, 1, 1);
    instrs_.Open(desc, debug_);
  }

 private:
  bool debug_;
  int select_by_ = -1;  // -1: drawn, 0: colour, 1: location
};

class BabyAIOpenTwoDoors : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("first_color", std::string());
    c.Set("second_color", std::string());
    c.Set("strict", false);
    return c;
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<BabyAIOpenTwoDoors>(config, "BabyAI OpenTwoDoors"); }
  explicit BabyAIOpenTwoDoors(const Config& config)
      : BabyAILevel(config, "BabyAI OpenTwoDoors", 6, 3, 3, 20),
        first_(ColorKwarg(config, "BabyAI OpenTwoDoors", "first_color")),
        second_(ColorKwarg(config, "BabyAI OpenTwoDoors", "second_color")),
        strict_(config.Get<bool>("strict")) {}

 protected:
  void GenMission(Rng& rng) override {
    std::array<Color, 2> colors{};
    RandSubset(rng, kColorNames, 6, 2, colors.data());
    const int first = first_ >= 0 ? first_ : colors[0];
    const int second = second_ >= 0 ? second_ : colors[1];
    AddDoor(rng, 1, 1, 2, first, 0);
    AddDoor(rng, 1, 1, 0, second, 0);
    PlaceAgentInRoom(rng, 1, 1);
    const int a = instrs_.Open(instrs_.Desc(kDoor, first), strict_);
    const int b = instrs_.Open(instrs_.Desc(kDoor, second));
    instrs_.Before(a, b);
  }

 private:
  int first_;
  int second_;
  bool strict_;
};

class BabyAIOpenDoorsOrder : public BabyAILevel {
 public:
  static Config DefaultConfig() {
    Config c = BabyAIConfig();
    c.Set("num_doors", int64_t{2});
    c.Set("debug", false);
    return c;
  }
  static EnvSpec Spec(const Config& config) {
    return CheckedSpec<BabyAIOpenDoorsOrder>(config, "BabyAI OpenDoorsOrder");
  }
  explicit BabyAIOpenDoorsOrder(const Config& config)
      : BabyAILevel(config, "BabyAI OpenDoorsOrder", 6, 3, 3, 20),
        num_doors_(IntIn(config, "BabyAI OpenDoorsOrder", "num_doors", 2, 4)),
        debug_(config.Get<bool>("debug")) {}

 protected:
  void GenMission(Rng& rng) override {
    std::array<Color, 4> colors{};
    RandSubset(rng, kColorNames, 6, num_doors_, colors.data());
    std::array<Color, 4> doors{};
    for (int i = 0; i < num_doors_; ++i) {
      doors[static_cast<std::size_t>(i)] =
          static_cast<Color>(AddDoor(rng, 1, 1, -1, colors[static_cast<std::size_t>(i)], 0).color);
    }
    PlaceAgentInRoom(rng, 1, 1);
    std::array<Color, 2> pair{};
    RandSubset(rng, doors.data(), num_doors_, 2, pair.data());
    const int mode = RandInt(rng, 0, 3);
    const int a = instrs_.Open(instrs_.Desc(kDoor, pair[0]), debug_);
    if (mode == 0) return;
    const int b = instrs_.Open(instrs_.Desc(kDoor, pair[1]), debug_);
    if (mode == 1) {
      instrs_.Before(a, b);
    } else {
      instrs_.After(a, b);
    }
  }

 private:
  int num_doors_;
  bool debug_;
};

}  // namespace envpool::minigrid
