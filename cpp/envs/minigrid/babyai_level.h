// BabyAI's RoomGridLevel (minigrid 3.2.0, minigrid/envs/babyai/core/roomgrid_level.py and
// verifier.py), as far as the levels here use it: a level generates its rooms, objects and
// instruction (GenMission) until they are valid, as minigrid does (a failed place_obj, minigrid's
// RecursionError, or a RejectSampling restarts the whole generation from the same np_random);
// the mission is the instruction's surface; max_steps (unless given) is the number of
// navigations the instruction needs times room_size^2 * num_rows * num_cols; after each step the
// instruction's verifier decides success (reward 1 - 0.9 * step_count / max_steps) or failure.
//
// Instructions here: GoTo(ObjDesc(type, color)), "go to the/a <colour> <type>": success when the
// agent faces the position (at reset, or after a drop) of an object the description matched at
// reset ("a" when it matched several). minigrid tracks those objects by identity; here every
// object on the grid gets a tag of its own once the level is generated. BABYAI_DONE_ACTIONS
// (minigrid's environment switch for the `done` action) is off, as minigrid's default.
// add_distractors' all_unique (distinct from every object already in a room) is not ported:
// the levels here pass all_unique=False, or add their first object with it.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "envs/minigrid/room_grid.h"

namespace envpool::minigrid {

// minigrid's RejectSampling: the level is generated again.
struct RejectSampling {};

class BabyAILevel : public RoomGridEnv {
 public:
  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    StepResult r = MiniGridStep(a);
    if (a == kDrop) TrackedPositions();  // update_objs_poss
    const int fx = agent_x_ + kDirX[agent_dir_], fy = agent_y_ + kDirY[agent_dir_];
    for (const auto& [x, y] : target_pos_) {
      if (x == fx && y == fy) {  // GoToInstr.verify_action: "success"
        r.terminated = true;
        r.reward = SuccessReward();
        break;
      }
    }
    Finish(r, out);
  }

 protected:
  BabyAILevel(const Config& config, const std::string& env, int room_size, int num_rows, int num_cols)
      : RoomGridEnv(config, env, room_size, num_rows, num_cols, 1),
        fixed_max_steps_(config.Get<int64_t>("max_steps") != 0) {
    UseBabyAIMissionBytes();
    target_pos_.reserve(static_cast<std::size_t>(grid_.width() * grid_.height()));
  }

  // gen_mission: rooms are built; place the agent and objects, then name the target with
  // GoTo(type, color). Throws RejectSampling (or RecursionError) to start again.
  virtual void GenMission(Rng& rng) = 0;

  // The instruction GenMission sets: go to an object of this type and colour.
  void GoTo(Type type, Color color) {
    target_type_ = type;
    target_color_ = color;
  }

  // open_all_doors: every door of every room open (the levels here call it with unlocked doors
  // only: a locked door minigrid opens stays locked there, which a DoorState cannot say).
  void OpenAllDoors() {
    for (int j = 0; j < num_rows_; ++j) {
      for (int i = 0; i < num_cols_; ++i) {
        const Room& room = GetRoom(i, j);
        for (int k = 0; k < 4; ++k) {
          if (room.joined[k] != 1) continue;
          Obj door = grid_.Get(room.door_x[k], room.door_y[k]);
          if (door.type == kDoor) door.state = kOpen;
          grid_.Set(room.door_x[k], room.door_y[k], door);
        }
      }
    }
  }

  // add_distractors(i, j, num_distractors, all_unique=False): colour, then type, then the room
  // (drawn where i / j are -1), then add_object. Their positions go to `placed` (if given).
  void AddDistractors(Rng& rng, int num, std::vector<Placed>* placed = nullptr, int i = -1, int j = -1) {
    for (int n = 0; n < num; ++n) {
      const Color color = RandColor(rng);
      const Type type = RandKind(rng);
      const int room_i = i < 0 ? RandInt(rng, 0, num_cols_) : i;
      const int room_j = j < 0 ? RandInt(rng, 0, num_rows_) : j;
      const auto [x, y] = PlaceInRoom(rng, room_i, room_j, Obj::Make(type, color));  // add_object
      if (placed != nullptr) placed->push_back(Placed{type, color, x, y});
    }
  }

  // RoomGrid.place_agent(i, j): the room drawn where i / j are -1.
  void PlaceAgentInRandomRoom(Rng& rng, int i = -1, int j = -1) {
    if (i < 0) i = RandInt(rng, 0, num_cols_);
    if (j < 0) j = RandInt(rng, 0, num_rows_);
    PlaceAgentInRoom(rng, i, j);
  }

  // check_objs_reachable: every object (not wall) reachable from the agent through empty cells
  // and doors, without moving another object; else RejectSampling.
  void CheckObjsReachable() {
    const int w = grid_.width(), h = grid_.height();
    reach_.assign(static_cast<std::size_t>(w * h), 0);
    stack_.clear();
    stack_.emplace_back(agent_x_, agent_y_);
    while (!stack_.empty()) {
      const auto [i, j] = stack_.back();
      stack_.pop_back();
      if (!grid_.Contains(i, j) || reach_[static_cast<std::size_t>(j * w + i)]) continue;
      reach_[static_cast<std::size_t>(j * w + i)] = 1;
      const Obj& cell = grid_.Get(i, j);
      if (!cell.empty() && cell.type != kDoor) continue;
      stack_.emplace_back(i + 1, j);
      stack_.emplace_back(i - 1, j);
      stack_.emplace_back(i, j + 1);
      stack_.emplace_back(i, j - 1);
    }
    for (int i = 0; i < w; ++i) {
      for (int j = 0; j < h; ++j) {
        const Obj& cell = grid_.Get(i, j);
        if (!cell.empty() && cell.type != kWall && !reach_[static_cast<std::size_t>(j * w + i)]) throw RejectSampling{};
      }
    }
  }

 private:
  // The attempts before giving up where minigrid would try forever (kwargs that leave no room).
  static constexpr int kMaxAttempts = 1000;

  void GenGrid(Rng& rng) final {
    for (int attempt = 0;; ++attempt) {
      if (attempt == kMaxAttempts) {
        throw std::runtime_error("BabyAI: no valid level in " + std::to_string(kMaxAttempts) +
                                 " attempts (minigrid would keep trying): too many objects for the rooms?");
      }
      grid_.Clear();
      GenRooms(rng);
      try {
        GenMission(rng);
        break;
      } catch (const RecursionError&) {
      } catch (const RejectSampling&) {
      }
    }
    // Every object's identity, then surface() and reset_verifier(): the objects the description
    // matches, column by column.
    tracked_.fill(0);
    target_pos_.clear();
    int tag = 0;
    for (int i = 0; i < grid_.width(); ++i) {
      for (int j = 0; j < grid_.height(); ++j) {
        Obj cell = grid_.Get(i, j);
        if (cell.empty() || cell.type == kWall) continue;
        if (++tag > 255) throw std::runtime_error("BabyAI: more than 255 objects in a level");
        cell.tag = static_cast<uint8_t>(tag);
        grid_.Set(i, j, cell);
        if (cell.type != target_type_ || cell.color != target_color_) continue;
        tracked_[cell.tag] = 1;
        target_pos_.emplace_back(i, j);
      }
    }
    SetMission(
        {"go to ", target_pos_.size() > 1 ? "a " : "the ", kColorName[target_color_], " ", kTypeName[target_type_]});
    if (!fixed_max_steps_) SetMaxSteps(room_size_ * room_size_ * num_rows_ * num_cols_);  // one navigation
  }

  // find_matching_objs(use_location=False): where the objects matched at reset are now.
  void TrackedPositions() {
    target_pos_.clear();
    for (int i = 0; i < grid_.width(); ++i) {
      for (int j = 0; j < grid_.height(); ++j) {
        const Obj& cell = grid_.Get(i, j);
        if (!cell.empty() && cell.tag != 0 && tracked_[cell.tag]) target_pos_.emplace_back(i, j);
      }
    }
  }

  bool fixed_max_steps_;
  Type target_type_ = kBall;
  Color target_color_ = kRed;
  std::array<uint8_t, 256> tracked_{};
  std::vector<std::pair<int, int>> target_pos_;
  std::vector<uint8_t> reach_;
  std::vector<std::pair<int, int>> stack_;
};

}  // namespace envpool::minigrid
