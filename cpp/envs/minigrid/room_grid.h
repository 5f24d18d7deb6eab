// RoomGrid (minigrid 3.2.0, minigrid/core/roomgrid.py): a num_rows x num_cols grid of square
// rooms of room_size cells sharing their walls, with one door position drawn per shared wall
// (row by row, left to right: the right wall's row, then the bottom wall's column), the agent
// put in the middle room's centre while objects are placed (they avoid it and its four
// neighbours: reject_next_to), and the helpers the room envs build with: add_object,
// add_door, remove_wall, place_agent (again until the cell ahead is empty or a wall),
// connect_all. see_through_walls is always False (RoomGrid fixes it).
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

// minigrid's RecursionError: place_obj or connect_all gave up after their max tries. BabyAI's
// levels catch it and generate the level again, as minigrid's RoomGridLevel does; for the other
// envs it ends the reset with an error.
struct RecursionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RoomGridEnv : public MiniGridEnv {
 protected:
  // A room: its top-left corner; per wall (0 right, 1 bottom, 2 left, 3 top) the door
  // position (if the wall is shared), the neighbour's index (-1: none) and what joins them.
  struct Room {
    int top_x = 0;
    int top_y = 0;
    int door_x[4] = {0, 0, 0, 0};
    int door_y[4] = {0, 0, 0, 0};
    int neighbor[4] = {-1, -1, -1, -1};
    uint8_t joined[4] = {0, 0, 0, 0};  // 0 nothing, 1 a door, 2 the wall removed (both truthy)
    bool locked = false;
  };

  RoomGridEnv(const Config& config, const std::string& env, int room_size, int num_rows, int num_cols,
              int64_t default_max_steps)
      : MiniGridEnv(config, env, (room_size - 1) * num_cols + 1, (room_size - 1) * num_rows + 1, default_max_steps,
                    false),
        room_size_(room_size),
        num_rows_(num_rows),
        num_cols_(num_cols),
        rooms_(static_cast<std::size_t>(num_rows * num_cols)),
        stack_(static_cast<std::size_t>(4 * num_rows * num_cols + 1)),
        reached_(static_cast<std::size_t>(num_rows * num_cols)) {
    room_objs_.reserve(64);
  }

  Room& GetRoom(int i, int j) { return rooms_[static_cast<std::size_t>(j * num_cols_ + i)]; }

  // The tag of the object whose pickup wins (KeyCorridor, UnlockPickup: minigrid compares
  // self.carrying with self.obj by identity).
  static constexpr uint8_t kTarget = 1;

  // MiniGridStep, then the success reward and the episode's end when the agent picks up the
  // target.
  StepResult PickupTargetStep(int action) {
    StepResult r = MiniGridStep(action);
    if (action == kPickup && Carrying().tag == kTarget) {
      r.reward = SuccessReward();
      r.terminated = true;
    }
    return r;
  }

  // RoomGrid._gen_grid.
  void GenRooms(Rng& rng) {
    const int step = room_size_ - 1;
    room_objs_.clear();
    for (int j = 0; j < num_rows_; ++j) {
      for (int i = 0; i < num_cols_; ++i) {
        Room& room = GetRoom(i, j);
        room = Room{};
        room.top_x = i * step;
        room.top_y = j * step;
        grid_.WallRect(room.top_x, room.top_y, room_size_, room_size_);
      }
    }
    for (int j = 0; j < num_rows_; ++j) {
      for (int i = 0; i < num_cols_; ++i) {
        Room& room = GetRoom(i, j);
        const int x_l = room.top_x + 1, y_l = room.top_y + 1;
        const int x_m = room.top_x + room_size_ - 1, y_m = room.top_y + room_size_ - 1;
        if (i < num_cols_ - 1) {
          room.neighbor[0] = j * num_cols_ + i + 1;
          room.door_x[0] = x_m;
          room.door_y[0] = RandInt(rng, y_l, y_m);
        }
        if (j < num_rows_ - 1) {
          room.neighbor[1] = (j + 1) * num_cols_ + i;
          room.door_x[1] = RandInt(rng, x_l, x_m);
          room.door_y[1] = y_m;
        }
        if (i > 0) {
          room.neighbor[2] = j * num_cols_ + i - 1;
          room.door_x[2] = GetRoom(i - 1, j).door_x[0];
          room.door_y[2] = GetRoom(i - 1, j).door_y[0];
        }
        if (j > 0) {
          room.neighbor[3] = (j - 1) * num_cols_ + i;
          room.door_x[3] = GetRoom(i, j - 1).door_x[1];
          room.door_y[3] = GetRoom(i, j - 1).door_y[1];
        }
      }
    }
    SetAgent(num_cols_ / 2 * step + room_size_ / 2, num_rows_ / 2 * step + room_size_ / 2, 0);
  }

  // add_object(i, j, kind, color) -> place_in_room. kind / color -1: drawn (kind first).
  // Returns the object.
  Obj AddObject(Rng& rng, int i, int j, int kind = -1, int color = -1, uint8_t tag = 0) {
    const Type type = kind < 0 ? RandKind(rng) : static_cast<Type>(kind);
    const Color c = color < 0 ? RandColor(rng) : static_cast<Color>(color);
    Obj obj = Obj::Make(type, c);
    obj.tag = tag;
    PlaceInRoom(rng, i, j, obj);
    return obj;
  }

  // place_in_room(i, j, obj): place_obj in the room (max_tries 1000), not next to the agent.
  // Returns where it went.
  std::pair<int, int> PlaceInRoom(Rng& rng, int i, int j, const Obj& obj) {
    const Room& room = GetRoom(i, j);
    for (int tries = 0;; ++tries) {
      if (tries > 1000) throw RecursionError("MiniGrid: rejection sampling failed in place_obj");
      const int x = RandInt(rng, room.top_x, std::min(room.top_x + room_size_, grid_.width()));
      const int y = RandInt(rng, room.top_y, std::min(room.top_y + room_size_, grid_.height()));
      if (!grid_.Get(x, y).empty()) continue;
      if (x == agent_x_ && y == agent_y_) continue;
      if (std::abs(agent_x_ - x) + std::abs(agent_y_ - y) < 2) continue;  // reject_next_to
      grid_.Set(x, y, obj);
      room_objs_.emplace_back(obj.type, obj.color);  // room.objs.append(obj)
      return {x, y};
    }
  }

  // add_door(i, j, door_idx, color, locked): -1 draws (door_idx among the free shared walls,
  // then the colour, then locked = integers(0, 2) == 0). Returns the door.
  Obj AddDoor(Rng& rng, int i, int j, int door_idx = -1, int color = -1, int locked = -1) {
    Room& room = GetRoom(i, j);
    if (door_idx < 0) {
      do {
        door_idx = RandInt(rng, 0, 4);
      } while (room.neighbor[door_idx] < 0 || room.joined[door_idx] != 0);
    }
    const Color c = color < 0 ? RandColor(rng) : static_cast<Color>(color);
    const bool lock = locked < 0 ? RandInt(rng, 0, 2) == 0 : locked != 0;
    room.locked = lock;
    const Obj door = Obj::Door(c, lock);
    grid_.Set(room.door_x[door_idx], room.door_y[door_idx], door);
    room.joined[door_idx] = 1;
    rooms_[static_cast<std::size_t>(room.neighbor[door_idx])].joined[(door_idx + 2) % 4] = 1;
    return door;
  }

  // remove_wall(i, j, wall_idx).
  void RemoveWall(int i, int j, int wall) {
    Room& room = GetRoom(i, j);
    const int tx = room.top_x, ty = room.top_y, n = room_size_;
    for (int k = 1; k < n - 1; ++k) {
      if (wall == 0) grid_.Set(tx + n - 1, ty + k, Obj{});
      if (wall == 1) grid_.Set(tx + k, ty + n - 1, Obj{});
      if (wall == 2) grid_.Set(tx, ty + k, Obj{});
      if (wall == 3) grid_.Set(tx + k, ty, Obj{});
    }
    room.joined[wall] = 2;
    rooms_[static_cast<std::size_t>(room.neighbor[wall])].joined[(wall + 2) % 4] = 2;
  }

  // RoomGrid.place_agent(i, j): MiniGridEnv.place_agent in the room (max_tries 1000) until the
  // cell ahead is empty or a wall.
  void PlaceAgentInRoom(Rng& rng, int i, int j) {
    const Room& room = GetRoom(i, j);
    for (;;) {
      agent_x_ = -1;
      agent_y_ = -1;
      const auto [x, y] = PlaceObj(rng, Obj{}, room.top_x, room.top_y, room_size_, room_size_, 1000);
      if (x < 0) throw RecursionError("MiniGrid: rejection sampling failed in place_obj");
      agent_x_ = x;
      agent_y_ = y;
      agent_dir_ = RandInt(rng, 0, 4);
      const Obj& front = grid_.Get(x + kDirX[agent_dir_], y + kDirY[agent_dir_]);
      if (front.empty() || front.type == kWall) return;
    }
  }

  // connect_all(door_colors, max_itrs=5000): random unlocked doors until every room is
  // reachable from the agent's; door_colors COLOR_NAMES, or (except_color >= 0) COLOR_NAMES
  // without that colour.
  void ConnectAll(Rng& rng, int except_color = -1) {
    const int step = room_size_ - 1;
    const int start = (agent_y_ / step) * num_cols_ + agent_x_ / step;
    for (int itrs = 0;; ++itrs) {
      if (itrs > 5000) throw RecursionError("MiniGrid: connect_all failed");
      if (Reachable(start) == num_rows_ * num_cols_) return;
      const int i = RandInt(rng, 0, num_cols_);
      const int j = RandInt(rng, 0, num_rows_);
      const int k = RandInt(rng, 0, 4);
      const Room& room = GetRoom(i, j);
      if (room.neighbor[k] < 0 || room.joined[k] != 0) continue;
      if (room.locked || rooms_[static_cast<std::size_t>(room.neighbor[k])].locked) continue;
      AddDoor(rng, i, j, k, except_color < 0 ? RandColor(rng) : ColorExcept(rng, except_color), 0);
    }
  }

  // room_from_pos(x, y): the index of the room holding cell (x, y).
  int RoomFromPos(int x, int y) const { return (y / (room_size_ - 1)) * num_cols_ + x / (room_size_ - 1); }
  const Room& RoomAt(int index) const { return rooms_[static_cast<std::size_t>(index)]; }
  // Room.pos_inside(x, y): inside the room's square, its walls included.
  bool PosInside(const Room& room, int x, int y) const {
    return x >= room.top_x && y >= room.top_y && x < room.top_x + room_size_ && y < room.top_y + room_size_;
  }

  // The (type, colour) of every object place_in_room put in a room (the rooms' objs lists, in
  // order), for add_distractors(all_unique=True).
  const std::vector<std::pair<uint8_t, uint8_t>>& RoomObjs() const { return room_objs_; }

  int room_size_;
  int num_rows_;
  int num_cols_;

 private:
  // How many rooms the doors and removed walls join to room `start`.
  int Reachable(int start) {
    std::fill(reached_.begin(), reached_.end(), uint8_t{0});
    std::size_t top = 0;
    stack_[top++] = start;
    int count = 0;
    while (top > 0) {
      const int r = stack_[--top];
      if (reached_[static_cast<std::size_t>(r)]) continue;
      reached_[static_cast<std::size_t>(r)] = 1;
      ++count;
      const Room& room = rooms_[static_cast<std::size_t>(r)];
      for (int k = 0; k < 4; ++k) {
        if (room.joined[k] != 0 && !reached_[static_cast<std::size_t>(room.neighbor[k])]) {
          stack_[top++] = room.neighbor[k];
        }
      }
    }
    return count;
  }

  // _rand_elem of COLOR_NAMES without `except` (a list of five, in COLOR_NAMES' order).
  static Color ColorExcept(Rng& rng, int except) {
    int k = RandInt(rng, 0, 5);
    for (int n = 0; n < 6; ++n) {
      if (kColorNames[n] == except) continue;
      if (k-- == 0) return kColorNames[n];
    }
    return kColorNames[0];  // not reached: one of the five is drawn
  }

  std::vector<Room> rooms_;
  std::vector<std::pair<uint8_t, uint8_t>> room_objs_;
  std::vector<int> stack_;
  std::vector<uint8_t> reached_;
};

// RoomGrid's kwargs checks.
inline int RoomSize(const Config& config, const std::string& env, const std::string& key, int64_t low) {
  return IntIn(config, env, key, low, 64);
}

}  // namespace envpool::minigrid
