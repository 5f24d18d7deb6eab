// MiniGrid's world (minigrid 3.2.0, minigrid/core/): the objects a cell holds, their encoding
// and the grid. Objects are small values, not Python's shared instances: a cell, the agent's
// hands and a box's contents each hold a copy, so building and stepping a grid allocates
// nothing once the grid's cells exist. No env of this family tells two equal objects apart by
// identity except through `tag` (the room envs' target object).
#pragma once

#include <cstdint>
#include <vector>

namespace envpool::minigrid {

// OBJECT_TO_IDX.
enum Type : uint8_t {
  kUnseen = 0,
  kEmpty = 1,
  kWall = 2,
  kFloor = 3,
  kDoor = 4,
  kKey = 5,
  kBall = 6,
  kBox = 7,
  kGoal = 8,
  kLava = 9,
  kAgent = 10,
};

// IDX_TO_OBJECT: a type's name, for missions ("go to the red key"), indexed by Type.
inline constexpr const char* kTypeName[11] = {"unseen", "empty", "wall", "floor", "door", "key",
                                              "ball",   "box",   "goal", "lava",  "agent"};

// ["key", "ball", "box"]: the kinds the object envs draw with _rand_elem.
inline constexpr Type kObjectKinds[3] = {kKey, kBall, kBox};

// COLOR_TO_IDX.
enum Color : uint8_t { kRed = 0, kGreen = 1, kBlue = 2, kPurple = 3, kYellow = 4, kGrey = 5 };

// COLOR_NAMES = sorted(COLORS): the order _rand_color draws from.
inline constexpr Color kColorNames[6] = {kBlue, kGreen, kGrey, kPurple, kRed, kYellow};

// A colour's name, for missions ("go to the red door"), indexed by Color.
inline constexpr const char* kColorName[6] = {"red", "green", "blue", "purple", "yellow", "grey"};

// A door's STATE_TO_IDX, its third encoded value (0 for every other object).
enum DoorState : uint8_t { kOpen = 0, kClosed = 1, kLocked = 2 };

// DIR_TO_VEC: 0 right (+x), 1 down (+y), 2 left, 3 up.
inline constexpr int kDirX[4] = {1, 0, -1, 0};
inline constexpr int kDirY[4] = {0, 1, 0, -1};

// One world object, or none (kEmpty: Python's None). A box keeps its contents (one object
// that is not itself a box: minigrid puts keys and balls in boxes) in inner_*.
struct Obj {
  uint8_t type = kEmpty;
  uint8_t color = 0;
  uint8_t state = 0;
  uint8_t inner_type = kEmpty;
  uint8_t inner_color = 0;
  uint8_t inner_state = 0;
  // Which object this is, where an env asks "is the agent carrying *that* object" (minigrid
  // compares identities): 0 for any, an env's own tag for its target. Copies keep it.
  uint8_t tag = 0;

  static Obj Make(Type t, Color c, uint8_t s = 0) { return Obj{t, c, s, kEmpty, 0, 0}; }
  static Obj Wall() { return Make(kWall, kGrey); }
  static Obj Goal() { return Make(kGoal, kGreen); }
  static Obj Lava() { return Make(kLava, kRed); }
  static Obj Door(Color c, bool locked) { return Make(kDoor, c, locked ? kLocked : kClosed); }
  static Obj Key(Color c) { return Make(kKey, c); }

  bool empty() const { return type == kEmpty; }
  bool CanOverlap() const {
    return type == kGoal || type == kFloor || type == kLava || (type == kDoor && state == kOpen);
  }
  bool CanPickup() const { return type == kKey || type == kBall || type == kBox; }
  bool SeeBehind() const { return type != kWall && (type != kDoor || state == kOpen); }
  Obj Contents() const { return Obj{inner_type, inner_color, inner_state, kEmpty, 0, 0}; }
};

// Grid: width x height cells, row-major as minigrid's list (index j * width + i).
class Grid {
 public:
  Grid(int width, int height) : width_(width), height_(height), cells_(static_cast<std::size_t>(width * height)) {}

  int width() const { return width_; }
  int height() const { return height_; }
  bool Contains(int i, int j) const { return i >= 0 && i < width_ && j >= 0 && j < height_; }
  const Obj& Get(int i, int j) const { return cells_[static_cast<std::size_t>(j * width_ + i)]; }
  void Set(int i, int j, const Obj& v) { cells_[static_cast<std::size_t>(j * width_ + i)] = v; }
  void Clear() {
    for (auto& c : cells_) c = Obj{};
  }

  // horz_wall / vert_wall / wall_rect (a length of -1: to the grid's edge, Python's None).
  void HorzWall(int x, int y, int length = -1, const Obj& obj = Obj::Wall()) {
    if (length < 0) length = width_ - x;
    for (int i = 0; i < length; ++i) Set(x + i, y, obj);
  }
  void VertWall(int x, int y, int length = -1, const Obj& obj = Obj::Wall()) {
    if (length < 0) length = height_ - y;
    for (int j = 0; j < length; ++j) Set(x, y + j, obj);
  }
  void WallRect(int x, int y, int w, int h) {
    HorzWall(x, y, w);
    HorzWall(x, y + h - 1, w);
    VertWall(x, y, h);
    VertWall(x + w - 1, y, h);
  }
  // The outer wall: the four sides of the grid (horz_wall / vert_wall at its edges).
  void OuterWalls() { WallRect(0, 0, width_, height_); }

 private:
  int width_;
  int height_;
  std::vector<Obj> cells_;
};

}  // namespace envpool::minigrid
