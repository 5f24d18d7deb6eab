// BabyAI's instructions (minigrid 3.2.0, minigrid/envs/babyai/core/verifier.py) as data: the
// object descriptions and the instruction tree a level generates, their surface (the mission
// text) and the navigations they need (max_steps). Matching descriptions against the grid and
// verifying the instruction after each step are BabyAILevel's (babyai_level.h), which owns the
// grid they refer to. Every object on a level's grid carries a tag of its own (Obj::tag), which
// stands for minigrid's object identity ("carrying is obj").
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "envs/minigrid/grid.h"

namespace envpool::minigrid {

// LOC_NAMES: where an object is, relative to the agent's starting position and direction.
enum Loc : int8_t { kNoLoc = -1, kLocLeft = 0, kLocRight = 1, kLocFront = 2, kLocBehind = 3 };
inline constexpr const char* kLocName[4] = {"left", "right", "front", "behind"};

// OBJ_TYPES, in minigrid's order (levelgen draws from it by index).
inline constexpr Type kDescTypes[4] = {kBox, kBall, kKey, kDoor};

// ObjDesc(type, color, loc): type / color -1 for minigrid's None ("object", any colour).
struct ObjDesc {
  int type = -1;
  int color = -1;
  int loc = kNoLoc;
  // find_matching_objs(use_location=True): how many cells matched (walls too: "a grey object"
  // matches the walls, which only the article sees), and the tags of the objects among them
  // (obj_set).
  int num_matched = 0;
  std::vector<uint8_t> objs;
  // obj_poss: where those objects are; after a drop, where they are now (walls left out: no
  // instruction that reads positions describes a wall).
  std::vector<std::pair<int, int>> poss;
};

enum class InstrKind : uint8_t { kGoTo, kOpen, kPickup, kPutNext, kBefore, kAfter, kAnd };
// verify()'s "continue", "success", "failure" (a SeqInstr's a_done / b_done start as False,
// which every comparison treats as "continue").
enum class Verdict : uint8_t { kContinue, kSuccess, kFailure };

// One node of the tree: an action instruction (desc, and desc_fixed for PutNext) or a sequence
// (a, b); the verifier's state.
struct Instr {
  InstrKind kind = InstrKind::kGoTo;
  bool strict = false;
  int desc = -1;        // desc, or PutNext's desc_move
  int desc_fixed = -1;  // PutNext's desc_fixed
  int a = -1;           // SeqInstr's instr_a and instr_b
  int b = -1;
  Verdict a_done = Verdict::kContinue;
  Verdict b_done = Verdict::kContinue;
  int pre_carrying = -1;  // Pickup / PutNext: the tag carried at the last verify; -1 None
};

// A level's instruction: nodes built children first, so the last one built is the root.
// Capacity for the deepest tree levelgen builds (Before/After of two Ands of PutNexts: 7 nodes,
// 8 descriptions); allocated once.
class Instructions {
 public:
  static constexpr int kMaxNodes = 7;
  static constexpr int kMaxDescs = 8;

  Instructions() {
    for (auto& d : descs_) {
      d.objs.reserve(256);
      d.poss.reserve(256);
    }
    surface_.reserve(1024);
  }

  void Clear() {
    num_nodes_ = 0;
    num_descs_ = 0;
  }

  int Desc(int type, int color, int loc = kNoLoc) {
    if (num_descs_ == kMaxDescs) throw std::logic_error("BabyAI: too many object descriptions");
    ObjDesc& d = descs_[static_cast<std::size_t>(num_descs_)];
    d.type = type;
    d.color = color;
    d.loc = loc;
    d.num_matched = 0;
    d.objs.clear();
    d.poss.clear();
    return num_descs_++;
  }
  // Forgets the last description (levelgen's rand_obj drawing again).
  void PopDesc() { --num_descs_; }
  int GoTo(int desc) { return Add({InstrKind::kGoTo, false, desc}); }
  int Open(int desc, bool strict = false) { return Add({InstrKind::kOpen, strict, desc}); }
  int Pickup(int desc, bool strict = false) { return Add({InstrKind::kPickup, strict, desc}); }
  int PutNext(int move, int fixed, bool strict = false) { return Add({InstrKind::kPutNext, strict, move, fixed}); }
  int Before(int a, int b, bool strict = false) { return Add({InstrKind::kBefore, strict, -1, -1, a, b}); }
  int After(int a, int b, bool strict = false) { return Add({InstrKind::kAfter, strict, -1, -1, a, b}); }
  int And(int a, int b) { return Add({InstrKind::kAnd, false, -1, -1, a, b}); }

  int root() const { return num_nodes_ - 1; }
  bool empty() const { return num_nodes_ == 0; }
  Instr& node(int i) { return nodes_[static_cast<std::size_t>(i)]; }
  const Instr& node(int i) const { return nodes_[static_cast<std::size_t>(i)]; }
  int num_nodes() const { return num_nodes_; }
  ObjDesc& desc(int i) { return descs_[static_cast<std::size_t>(i)]; }
  const ObjDesc& desc(int i) const { return descs_[static_cast<std::size_t>(i)]; }
  int num_descs() const { return num_descs_; }

  // reset_verifier: every node's state as new.
  void ResetVerifier() {
    for (int i = 0; i < num_nodes_; ++i) {
      Instr& n = node(i);
      n.a_done = n.b_done = Verdict::kContinue;
      n.pre_carrying = -1;
    }
  }

  // num_navs_needed: PutNext 2, another action 1, a sequence the sum of its parts.
  int NumNavs(int i) const {
    const Instr& n = node(i);
    switch (n.kind) {
      case InstrKind::kPutNext:
        return 2;
      case InstrKind::kBefore:
      case InstrKind::kAfter:
      case InstrKind::kAnd:
        return NumNavs(n.a) + NumNavs(n.b);
      default:
        return 1;
    }
  }

  // surface(): the mission (the descriptions matched first).
  const std::string& Surface() {
    surface_.clear();
    AppendSurface(root());
    return surface_;
  }

 private:
  int Add(const Instr& instr) {
    if (num_nodes_ == kMaxNodes) throw std::logic_error("BabyAI: instruction tree too deep");
    nodes_[static_cast<std::size_t>(num_nodes_)] = instr;
    return num_nodes_++;
  }

  void AppendSurface(int i) {
    const Instr& n = node(i);
    switch (n.kind) {
      case InstrKind::kGoTo:
        surface_ += "go to ";
        AppendDesc(n.desc);
        break;
      case InstrKind::kOpen:
        surface_ += "open ";
        AppendDesc(n.desc);
        break;
      case InstrKind::kPickup:
        surface_ += "pick up ";
        AppendDesc(n.desc);
        break;
      case InstrKind::kPutNext:
        surface_ += "put ";
        AppendDesc(n.desc);
        surface_ += " next to ";
        AppendDesc(n.desc_fixed);
        break;
      case InstrKind::kBefore:
        AppendSurface(n.a);
        surface_ += ", then ";
        AppendSurface(n.b);
        break;
      case InstrKind::kAfter:
        AppendSurface(n.a);
        surface_ += " after you ";
        AppendSurface(n.b);
        break;
      case InstrKind::kAnd:
        AppendSurface(n.a);
        surface_ += " and ";
        AppendSurface(n.b);
        break;
    }
  }

  // ObjDesc.surface: "the" (one match) or "a", the colour, the type ("object"), the location.
  void AppendDesc(int i) {
    const ObjDesc& d = desc(i);
    surface_ += d.num_matched > 1 ? "a " : "the ";
    if (d.color >= 0) {
      surface_ += kColorName[d.color];
      surface_ += ' ';
    }
    surface_ += d.type >= 0 ? kTypeName[d.type] : "object";
    if (d.loc == kLocFront) {
      surface_ += " in front of you";
    } else if (d.loc == kLocBehind) {
      surface_ += " behind you";
    } else if (d.loc >= 0) {
      surface_ += " on your ";
      surface_ += kLocName[d.loc];
    }
  }

  std::array<Instr, kMaxNodes> nodes_{};
  std::array<ObjDesc, kMaxDescs> descs_{};
  int num_nodes_ = 0;
  int num_descs_ = 0;
  std::string surface_;
};

}  // namespace envpool::minigrid
