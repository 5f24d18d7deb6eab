// BabyAI's RoomGridLevel (minigrid 3.2.0, minigrid/envs/babyai/core/roomgrid_level.py and
// verifier.py): a level generates its rooms, objects and instruction (GenMission) until they are
// valid, as minigrid does (a failed place_obj, minigrid's RecursionError, or a RejectSampling
// restarts the whole generation from the same np_random; validate_instrs rejects a PutNext whose
// objects are already next to each other or a key a level's locked door needs); the mission is
// the instruction's surface; max_steps (unless the level or the kwarg fixes it) is the number of
// navigations the instruction needs times room_size^2 * num_rows * num_cols; after each step the
// instruction's verifier (babyai_instr.h: GoTo, Open, Pickup, PutNext and their Before / After /
// And sequences) decides success (reward 1 - 0.9 * step_count / max_steps) or failure (reward 0),
// each ending the episode.
//
// minigrid tracks the objects a description matched at reset by identity; here every object on
// the grid gets a tag of its own once the level is generated, and cur_pos (where minigrid last
// put an object: (-1, -1) while carried) is kept per tag. BABYAI_DONE_ACTIONS (minigrid's
// environment switch for the `done` action) is off, as minigrid's default.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "envs/minigrid/babyai_instr.h"
#include "envs/minigrid/room_grid.h"

namespace envpool::minigrid {

// minigrid's RejectSampling: the level is generated again.
struct RejectSampling {};

// The kwargs every level takes: max_steps (0: the level's) and agent_view_size.
inline Config BabyAIConfig() { return {{"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}}; }

class BabyAILevel : public RoomGridEnv {
 public:
  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    const int fx = agent_x_ + kDirX[agent_dir_], fy = agent_y_ + kDirY[agent_dir_];  // drop's cell
    const Obj before = Carrying();
    StepResult r = MiniGridStep(a);
    if (a == kPickup && before.empty() && !Carrying().empty()) SetCurPos(Carrying().tag, -1, -1);
    if (a == kDrop) {
      if (!before.empty() && Carrying().empty()) SetCurPos(before.tag, fx, fy);
      for (int d = 0; d < instrs_.num_descs(); ++d) FindMatching(instrs_.desc(d), false);  // update_objs_poss
    }
    const Verdict verdict = Verify(instrs_.root(), a);
    if (verdict == Verdict::kSuccess) {
      r.terminated = true;
      r.reward = SuccessReward();
    } else if (verdict == Verdict::kFailure) {
      r.terminated = true;
      r.reward = 0.0;
    }
    Finish(r, out);
  }

 protected:
  // steps_per_cell: the level's own fixed max_steps, which every minigrid level that fixes it
  // writes as k * room_size**2 (passed to RoomGridLevel), as k; 0 for the instruction's. A
  // max_steps kwarg fixes it too.
  BabyAILevel(const Config& config, const std::string& env, int room_size, int num_rows, int num_cols,
              int steps_per_cell = 0)
      : RoomGridEnv(config, env, room_size, num_rows, num_cols,
                    steps_per_cell > 0 ? steps_per_cell * room_size * room_size : 1),
        fixed_max_steps_(config.Get<int64_t>("max_steps") != 0 || steps_per_cell > 0) {
    UseBabyAIMissionBytes();
    if (!fixed_max_steps_) SetsMaxStepsPerEpisode();
    room_doors_.reserve(static_cast<std::size_t>(4 * num_rows * num_cols));
    reach_.reserve(static_cast<std::size_t>(grid_.width() * grid_.height()));
    stack_.reserve(static_cast<std::size_t>(4 * grid_.width() * grid_.height()));
  }

  // gen_mission: rooms are built; place the agent and objects and build the instruction in
  // instrs_. Throws RejectSampling (or RecursionError) to start again.
  virtual void GenMission(Rng& rng) = 0;

  // GoToInstr(ObjDesc(type, color)).
  void GoTo(Type type, Color color) { instrs_.GoTo(instrs_.Desc(type, color)); }

  // open_all_doors: every door of every room open (the levels here call it with unlocked doors
  // only: a locked door minigrid opens stays locked there, which a DoorState cannot say).
  void OpenAllDoors() {
    RoomDoors(&room_doors_);
    for (const Placed& door : room_doors_) {
      Obj cell = grid_.Get(door.x, door.y);
      cell.state = kOpen;
      grid_.Set(door.x, door.y, cell);
    }
  }

  // add_distractors(i, j, num_distractors, all_unique): colour, then type (drawn again, with
  // all_unique, while an object of a room has that pair), then the room (drawn where i / j are
  // -1), then add_object. The objects go to `placed` (if given).
  void AddDistractors(Rng& rng, int num, bool all_unique, std::vector<Placed>* placed = nullptr, int i = -1,
                      int j = -1) {
    for (int n = 0; n < num;) {
      const Color color = RandColor(rng);
      const Type type = RandKind(rng);
      if (all_unique && InRooms(type, color)) continue;
      const int room_i = i < 0 ? RandInt(rng, 0, num_cols_) : i;
      const int room_j = j < 0 ? RandInt(rng, 0, num_rows_) : j;
      const auto [x, y] = PlaceInRoom(rng, room_i, room_j, Obj::Make(type, color));  // add_object
      if (placed != nullptr) placed->push_back(Placed{type, color, x, y});
      ++n;
    }
  }

  // _rand_elem(items).
  template <typename T>
  static const T& RandElem(Rng& rng, const std::vector<T>& items) {
    return items[static_cast<std::size_t>(RandInt(rng, 0, static_cast<int>(items.size())))];
  }

  // _rand_subset(items, n): n distinct items, each _rand_elem of those left, into out.
  template <typename T>
  static void RandSubset(Rng& rng, const T* items, int size, int n, T* out) {
    std::array<T, 32> left{};
    if (size > static_cast<int>(left.size())) throw std::logic_error("BabyAI: _rand_subset of too many items");
    std::copy(items, items + size, left.begin());
    for (int k = 0; k < n; ++k, --size) {
      const int idx = RandInt(rng, 0, size);
      out[k] = left[static_cast<std::size_t>(idx)];
      std::copy(left.begin() + idx + 1, left.begin() + size, left.begin() + idx);
    }
  }

  // Every door of every room (room.doors, rooms column by column: a door two rooms share comes
  // twice), as Placed, for _rand_elem.
  void RoomDoors(std::vector<Placed>* doors) {
    doors->clear();
    for (int i = 0; i < num_cols_; ++i) {
      for (int j = 0; j < num_rows_; ++j) {
        const Room& room = GetRoom(i, j);
        for (int k = 0; k < 4; ++k) {
          if (room.joined[k] != 1) continue;
          const Obj& door = grid_.Get(room.door_x[k], room.door_y[k]);
          doors->push_back(Placed{kDoor, static_cast<Color>(door.color), room.door_x[k], room.door_y[k]});
        }
      }
    }
  }

  // The room the agent is in, as an index (room_from_pos).
  int AgentRoom() const { return RoomFromPos(agent_x_, agent_y_); }

  // PutNext's and MoveTwoAcross's two rooms: the agent in the left one, per_room unique objects
  // in each (into left and right), the wall between them removed.
  void TwoRoomsOfObjects(Rng& rng, int per_room, std::vector<Placed>* left, std::vector<Placed>* right) {
    left->clear();
    right->clear();
    PlaceAgentInRoom(rng, 0, 0);
    AddDistractors(rng, per_room, true, left, 0, 0);
    AddDistractors(rng, per_room, true, right, 1, 0);
    RemoveWall(0, 0, 0);
  }
  // Their objs_per_room kwarg: minigrid asserts <= 9; the objects must also fit a room beside
  // the agent (minigrid would try forever).
  int ObjsPerRoom(const Config& config, const std::string& env, int low) const {
    const int cells = (room_size_ - 2) * (room_size_ - 2);
    return IntIn(config, env, "objs_per_room", low, std::max(low, std::min(9, cells - 3)));
  }

  // RoomGrid.place_agent(i, j): the room drawn where i / j are -1.
  void PlaceAgentInRandomRoom(Rng& rng, int i = -1, int j = -1) {
    if (i < 0) i = RandInt(rng, 0, num_cols_);
    if (j < 0) j = RandInt(rng, 0, num_rows_);
    PlaceAgentInRoom(rng, i, j);
  }

  // check_objs_reachable(raise_exc=False): every object (not wall) reachable from the agent
  // through empty cells and doors, without moving another object.
  bool ObjsReachable() {
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
        if (!cell.empty() && cell.type != kWall && !reach_[static_cast<std::size_t>(j * w + i)]) return false;
      }
    }
    return true;
  }
  // check_objs_reachable(): RejectSampling unless every object is reachable.
  void CheckObjsReachable() {
    if (!ObjsReachable()) throw RejectSampling{};
  }

  // find_matching_objs(desc, use_location): with it, the cells matching type, colour and (in
  // the agent's room) location, column by column; without it, where the objects matched before
  // are now.
  void FindMatching(ObjDesc& d, bool use_location) {
    if (use_location) {
      d.objs.clear();
      d.num_matched = 0;
    }
    d.poss.clear();
    const Room& agent_room = RoomAt(AgentRoom());
    const int d1x = kDirX[agent_dir_], d1y = kDirY[agent_dir_];  // (d1, d2) an oriented basis
    const int d2x = -d1y, d2y = d1x;
    for (int i = 0; i < grid_.width(); ++i) {
      for (int j = 0; j < grid_.height(); ++j) {
        const Obj& cell = grid_.Get(i, j);
        if (cell.empty()) continue;
        if (!use_location && (cell.type == kWall || !Tracked(d, cell.tag))) continue;
        if (d.type >= 0 && cell.type != d.type) continue;
        if (d.color >= 0 && cell.color != d.color) continue;
        if (use_location && d.loc != kNoLoc) {
          if (!PosInside(agent_room, i, j)) continue;
          const int vx = i - agent_x_, vy = j - agent_y_;
          const int along = vx * d1x + vy * d1y, across = vx * d2x + vy * d2y;
          const bool match = d.loc == kLocLeft    ? across < 0
                             : d.loc == kLocRight ? across > 0
                             : d.loc == kLocFront ? along > 0
                                                  : along < 0;
          if (!match) continue;
        }
        if (use_location) ++d.num_matched;
        if (cell.type == kWall) continue;
        if (use_location) d.objs.push_back(cell.tag);
        d.poss.emplace_back(i, j);
      }
    }
  }

  Instructions instrs_;
  bool unblocking_ = false;  // LevelGen's unblocking: validate_instrs checks keys of locked doors

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
      instrs_.Clear();
      try {
        GenMission(rng);
        TagObjects();
        Validate(instrs_.root(), LockedDoorColors());
        break;
      } catch (const RecursionError&) {
      } catch (const RejectSampling&) {
      }
    }
    // surface() and reset_verifier(): the objects each description matches.
    for (int d = 0; d < instrs_.num_descs(); ++d) FindMatching(instrs_.desc(d), true);
    SetMission(instrs_.Surface());
    instrs_.ResetVerifier();
    if (!fixed_max_steps_)
      SetMaxSteps(instrs_.NumNavs(instrs_.root()) * room_size_ * room_size_ * num_rows_ * num_cols_);
  }

  // Every object's identity (walls need none), and where it is.
  void TagObjects() {
    int tag = 0;
    for (int i = 0; i < grid_.width(); ++i) {
      for (int j = 0; j < grid_.height(); ++j) {
        Obj cell = grid_.Get(i, j);
        if (cell.empty() || cell.type == kWall) continue;
        if (++tag > 255) throw std::runtime_error("BabyAI: more than 255 objects in a level");
        cell.tag = static_cast<uint8_t>(tag);
        grid_.Set(i, j, cell);
        SetCurPos(cell.tag, i, j);
      }
    }
  }

  // The colours of the locked doors, a bit each, where validate_instrs looks (unblocking).
  int LockedDoorColors() {
    int colors = 0;
    if (!unblocking_) return colors;
    RoomDoors(&room_doors_);
    for (const Placed& door : room_doors_) {
      if (grid_.Get(door.x, door.y).state == kLocked) colors |= 1 << door.color;
    }
    return colors;
  }

  // validate_instrs.
  void Validate(int i, int locked_colors) {
    const Instr& n = instrs_.node(i);
    if (n.kind == InstrKind::kBefore || n.kind == InstrKind::kAfter || n.kind == InstrKind::kAnd) {
      Validate(n.a, locked_colors);
      Validate(n.b, locked_colors);
      return;
    }
    if (n.kind == InstrKind::kPutNext) {
      ObjDesc& move = instrs_.desc(n.desc);
      ObjDesc& fixed = instrs_.desc(n.desc_fixed);
      FindMatching(move, true);
      FindMatching(fixed, true);
      for (uint8_t tag : move.objs) {
        if (Tracked(fixed, tag)) throw RejectSampling{};  // an object matches both
        if (NextTo(tag, fixed)) throw RejectSampling{};   // objs_next
      }
    }
    for (int d : {n.desc, n.desc_fixed}) {
      if (d < 0) continue;
      const ObjDesc& desc = instrs_.desc(d);
      if (desc.type == kKey && desc.color >= 0 && (locked_colors >> desc.color & 1)) throw RejectSampling{};
    }
  }

  // instrs.verify(action) at node i.
  Verdict Verify(int i, int action) {
    Instr& n = instrs_.node(i);
    const int fx = agent_x_ + kDirX[agent_dir_], fy = agent_y_ + kDirY[agent_dir_];
    switch (n.kind) {
      case InstrKind::kGoTo:
        for (const auto& [x, y] : instrs_.desc(n.desc).poss) {
          if (x == fx && y == fy) return Verdict::kSuccess;
        }
        return Verdict::kContinue;
      case InstrKind::kOpen: {
        if (action != kToggle) return Verdict::kContinue;
        const Obj& front = grid_.Get(fx, fy);
        if (front.type == kDoor && front.state == kOpen && Tracked(instrs_.desc(n.desc), front.tag)) {
          return Verdict::kSuccess;
        }
        if (n.strict && front.type == kDoor) return Verdict::kFailure;
        return Verdict::kContinue;
      }
      case InstrKind::kPickup: {
        const int pre = n.pre_carrying;
        n.pre_carrying = CarryingId();
        if (action != kPickup) return Verdict::kContinue;
        if (pre < 0 && !Carrying().empty() && Tracked(instrs_.desc(n.desc), Carrying().tag)) return Verdict::kSuccess;
        if (n.strict && !Carrying().empty()) return Verdict::kFailure;
        n.pre_carrying = CarryingId();
        return Verdict::kContinue;
      }
      case InstrKind::kPutNext: {
        const int pre = n.pre_carrying;
        n.pre_carrying = CarryingId();
        if (n.strict && action == kPickup && !Carrying().empty()) return Verdict::kFailure;
        if (action != kDrop) return Verdict::kContinue;
        for (uint8_t tag : instrs_.desc(n.desc).objs) {
          if (pre == tag && NextTo(tag, instrs_.desc(n.desc_fixed))) return Verdict::kSuccess;
        }
        return Verdict::kContinue;
      }
      case InstrKind::kBefore:
        return VerifyInOrder(i, n.a, n.a_done, n.b, n.b_done, action);
      case InstrKind::kAfter:
        return VerifyInOrder(i, n.b, n.b_done, n.a, n.a_done, action);
      case InstrKind::kAnd:
        if (n.a_done != Verdict::kSuccess) n.a_done = Verify(n.a, action);
        if (n.b_done != Verdict::kSuccess) n.b_done = Verify(n.b, action);
        return n.a_done == Verdict::kSuccess && n.b_done == Verdict::kSuccess ? Verdict::kSuccess : Verdict::kContinue;
    }
    return Verdict::kContinue;
  }

  // BeforeInstr.verify (a, then b) and AfterInstr.verify (b, then a) at node i: the first
  // instruction until it succeeds (then the second, with the same action), the second after;
  // strict: the second succeeding before the first fails.
  Verdict VerifyInOrder(int i, int first, Verdict& first_done, int second, Verdict& second_done, int action) {
    if (first_done == Verdict::kSuccess) {
      second_done = Verify(second, action);
      return second_done;
    }
    first_done = Verify(first, action);
    if (first_done == Verdict::kFailure) return Verdict::kFailure;
    if (first_done == Verdict::kSuccess) return Verify(i, action);
    if (instrs_.node(i).strict && Verify(second, action) == Verdict::kSuccess) return Verdict::kFailure;
    return Verdict::kContinue;
  }

  // Whether the description matched the object tagged `tag` (0: an object no tag names, such
  // as one a box held, which no description matched).
  static bool Tracked(const ObjDesc& d, uint8_t tag) {
    if (tag == 0) return false;
    for (uint8_t t : d.objs) {
      if (t == tag) return true;
    }
    return false;
  }

  // pos_next_to(obj.cur_pos, pos) for a position of `fixed`: the object tagged `tag` is beside
  // one of them (not diagonally).
  bool NextTo(uint8_t tag, const ObjDesc& fixed) const {
    for (const auto& [x, y] : fixed.poss) {
      if (std::abs(cur_x_[tag] - x) + std::abs(cur_y_[tag] - y) == 1) return true;
    }
    return false;
  }

  // What the verifier remembers as carried: -1 for nothing, else the object's tag.
  int CarryingId() const { return Carrying().empty() ? -1 : Carrying().tag; }

  // Whether an object of a room (place_in_room's) has this type and colour.
  bool InRooms(Type type, Color color) const {
    for (const auto& [t, c] : RoomObjs()) {
      if (t == type && c == color) return true;
    }
    return false;
  }

  void SetCurPos(uint8_t tag, int x, int y) {
    cur_x_[tag] = static_cast<int16_t>(x);
    cur_y_[tag] = static_cast<int16_t>(y);
  }

  bool fixed_max_steps_;
  std::vector<Placed> room_doors_;  // LockedDoorColors' list
  std::array<int16_t, 256> cur_x_{};
  std::array<int16_t, 256> cur_y_{};
  std::vector<uint8_t> reach_;
  std::vector<std::pair<int, int>> stack_;
};

}  // namespace envpool::minigrid
