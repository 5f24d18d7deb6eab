// MiniGrid-MultiRoom-*: minigrid.envs.MultiRoomEnv. A chain of num_rooms rooms (drawn in
// [minNumRooms, maxNumRooms]) joined by closed doors of random colours (never the previous
// door's), laid out by _placeRoom's recursive random walk: each attempt starts a chain at a
// random entry position and keeps the longest chain found until it has num_rooms rooms. The
// agent (place_agent) is in the first room, the goal (place_obj) in the last. Mission "traverse
// the rooms to get to the goal". Draws, in order, as _gen_grid's: the room count; per attempt
// the entry position and, per room, its size, its offset along the entry wall, and per exit try
// the exit wall (_rand_elem of the other three, sorted) and the exit position; then one colour
// per door, the agent's place and direction, the goal's place.
// kwargs (minigrid's names): minNumRooms (>= 1), maxNumRooms (>= minNumRooms), maxRoomSize (>= 4), width,
// height (>= 5), max_steps (0: 20 * maxNumRooms), agent_view_size, see_through_walls.
// Where minigrid would search forever (rooms that cannot fit), reset gives up after
// kMaxAttempts chains with an error instead.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class MultiRoom : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"minNumRooms", int64_t{6}},     {"maxNumRooms", int64_t{6}}, {"maxRoomSize", int64_t{10}},
            {"width", int64_t{25}},          {"height", int64_t{25}},     {"max_steps", int64_t{0}},
            {"agent_view_size", int64_t{7}}, {"see_through_walls", false}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<MultiRoom>(config, kName); }

  explicit MultiRoom(const Config& config)
      : MiniGridEnv(config, kName, IntIn(config, kName, "width", 5, 1024), IntIn(config, kName, "height", 5, 1024),
                    20 * MaxRooms(config), config.Get<bool>("see_through_walls")),
        min_rooms_(IntIn(config, kName, "minNumRooms", 1, 1024)),
        max_rooms_(MaxRooms(config)),
        max_room_size_(IntIn(config, kName, "maxRoomSize", 4, 1024)) {
    if (max_rooms_ < min_rooms_) {
      throw std::invalid_argument(std::string(kName) + ": maxNumRooms (" + std::to_string(max_rooms_) +
                                  ") must be >= minNumRooms (" + std::to_string(min_rooms_) + ")");
    }
    rooms_.reserve(static_cast<std::size_t>(max_rooms_));
    attempt_.reserve(static_cast<std::size_t>(max_rooms_));
    SetMission("traverse the rooms to get to the goal");
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width();
    const int num_rooms = RandInt(rng, min_rooms_, max_rooms_ + 1);
    rooms_.clear();
    for (int tries = 0; static_cast<int>(rooms_.size()) < num_rooms; ++tries) {
      if (tries == kMaxAttempts) {
        throw std::runtime_error(std::string(kName) + ": no chain of " + std::to_string(num_rooms) +
                                 " rooms fits the grid after " + std::to_string(kMaxAttempts) + " attempts");
      }
      attempt_.clear();
      const int entry_x = RandInt(rng, 0, w - 2);
      const int entry_y = RandInt(rng, 0, w - 2);  // sic: minigrid draws both from width
      PlaceRoom(rng, num_rooms, 2, entry_x, entry_y);
      if (attempt_.size() > rooms_.size()) std::swap(rooms_, attempt_);
    }
    int prev_color = -1;
    for (std::size_t idx = 0; idx < rooms_.size(); ++idx) {
      const Room& room = rooms_[idx];
      grid_.WallRect(room.top_x, room.top_y, room.size_x, room.size_y);
      if (idx > 0) {
        // _rand_elem(sorted(set(COLOR_NAMES) - {previous door's colour})): COLOR_NAMES is sorted.
        Color colors[6];
        int n = 0;
        for (Color c : kColorNames) {
          if (c != prev_color) colors[n++] = c;
        }
        const Color color = colors[RandInt(rng, 0, n)];
        grid_.Set(room.entry_x, room.entry_y, Obj::Door(color, false));
        prev_color = color;
      }
    }
    const Room& first = rooms_.front();
    PlaceAgent(rng, first.top_x, first.top_y, first.size_x, first.size_y);
    const Room& last = rooms_.back();
    PlaceObj(rng, Obj::Goal(), last.top_x, last.top_y, last.size_x, last.size_y);
  }

 private:
  static constexpr const char* kName = "MiniGrid MultiRoom";
  static constexpr int kMaxAttempts = 100'000;  // the registered ids need at most a few dozen
  static int MaxRooms(const Config& config) { return IntIn(config, kName, "maxNumRooms", 1, 1024); }

  struct Room {
    int top_x, top_y, size_x, size_y, entry_x, entry_y;
  };

  // _placeRoom: appends a room entered through wall `entry_wall` (0 right, 1 bottom, 2 left, 3
  // top) at (entry_x, entry_y) if it fits, then tries up to 8 exits for the next room.
  bool PlaceRoom(Rng& rng, int num_left, int entry_wall, int entry_x, int entry_y) {
    const int size_x = RandInt(rng, 4, max_room_size_ + 1);
    const int size_y = RandInt(rng, 4, max_room_size_ + 1);
    int top_x, top_y;
    if (attempt_.empty()) {
      top_x = entry_x;
      top_y = entry_y;
    } else if (entry_wall == 0) {
      top_x = entry_x - size_x + 1;
      top_y = RandInt(rng, entry_y - size_y + 2, entry_y);
    } else if (entry_wall == 1) {
      top_x = RandInt(rng, entry_x - size_x + 2, entry_x);
      top_y = entry_y - size_y + 1;
    } else if (entry_wall == 2) {
      top_x = entry_x;
      top_y = RandInt(rng, entry_y - size_y + 2, entry_y);
    } else {
      top_x = RandInt(rng, entry_x - size_x + 2, entry_x);
      top_y = entry_y;
    }
    if (top_x < 0 || top_y < 0) return false;
    if (top_x + size_x > grid_.width() || top_y + size_y >= grid_.height()) return false;
    for (std::size_t k = 0; k + 1 < attempt_.size(); ++k) {  // every room but the one entered from
      const Room& r = attempt_[k];
      const bool apart = top_x + size_x < r.top_x || r.top_x + r.size_x <= top_x || top_y + size_y < r.top_y ||
                         r.top_y + r.size_y <= top_y;
      if (!apart) return false;
    }
    attempt_.push_back(Room{top_x, top_y, size_x, size_y, entry_x, entry_y});
    if (num_left == 1) return true;
    for (int i = 0; i < 8; ++i) {
      int walls[3], n = 0;
      for (int wall = 0; wall < 4; ++wall) {
        if (wall != entry_wall) walls[n++] = wall;
      }
      const int exit_wall = walls[RandInt(rng, 0, 3)];
      int exit_x, exit_y;
      if (exit_wall == 0) {
        exit_x = top_x + size_x - 1;
        exit_y = top_y + RandInt(rng, 1, size_y - 1);
      } else if (exit_wall == 1) {
        exit_x = top_x + RandInt(rng, 1, size_x - 1);
        exit_y = top_y + size_y - 1;
      } else if (exit_wall == 2) {
        exit_x = top_x;
        exit_y = top_y + RandInt(rng, 1, size_y - 1);
      } else {
        exit_x = top_x + RandInt(rng, 1, size_x - 1);
        exit_y = top_y;
      }
      if (PlaceRoom(rng, num_left - 1, (exit_wall + 2) % 4, exit_x, exit_y)) break;
    }
    return true;
  }

  int min_rooms_;
  int max_rooms_;
  int max_room_size_;
  std::vector<Room> rooms_;    // the longest chain so far (roomList)
  std::vector<Room> attempt_;  // the chain being laid (curRoomList)
};

}  // namespace envpool::minigrid
