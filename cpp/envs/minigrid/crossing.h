// MiniGrid-LavaCrossing* / MiniGrid-SimpleCrossing*: minigrid.envs.CrossingEnv. A walled size x
// size room (size odd) with num_crossings rivers of obstacles (lava, or walls for the Simple
// ids) on the even rows and columns 2 .. size - 3, and one opening per room boundary along a
// path from the agent at (1, 1) (facing right) to the goal in the bottom right corner.
// Randomness as _gen_grid's: np_random.shuffle of the candidate rivers (vertical first, then
// horizontal), shuffle of the path's steps, and np_random.choice of each opening along the
// boundary (= integers(0, n)). see_through_walls is always False (CrossingEnv fixes it).
// kwargs: size (odd, >= 5), num_crossings (>= 0; more than there are rivers: all of them),
// obstacle_type ("lava" or "wall", any case, as minigrid resolves strings), max_steps (0:
// 4 * size^2), agent_view_size.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class Crossing : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{9}},
            {"num_crossings", int64_t{1}},
            {"obstacle_type", std::string("lava")},
            {"max_steps", int64_t{0}},
            {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<Crossing>(config, kName); }

  explicit Crossing(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 4 * Size(config) * Size(config), false),
        num_crossings_(IntIn(config, kName, "num_crossings", 0, 1 << 20)) {
    std::string type = config.Get<std::string>("obstacle_type");
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
    if (type == "lava") {
      obstacle_ = Obj::Lava();
      SetMission("avoid the lava and get to the green goal square");
    } else if (type == "wall") {
      obstacle_ = Obj::Wall();
      SetMission("find the opening and get to the green goal square");
    } else {
      throw std::invalid_argument(std::string(kName) + ": unknown obstacle_type '" +
                                  config.Get<std::string>("obstacle_type") + "', expected 'lava' or 'wall'");
    }
    const int size = Size(config);
    // Every buffer a reset fills, sized once: rivers (2 .. size - 3 step 2, both ways), limits.
    const int per_axis = (size - 3) / 2;
    rivers_.resize(static_cast<std::size_t>(2 * per_axis));
    path_.resize(rivers_.size());
    limits_v_.resize(rivers_.size() + 2);
    limits_h_.resize(rivers_.size() + 2);
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width(), h = grid_.height();
    WallsAndCornerGoal();
    SetAgent(1, 1, 0);
    // rivers = [(v, i) for i in range(2, height - 2, 2)] + [(h, j) for j in range(2, width - 2, 2)]
    std::size_t n = 0;
    for (int i = 2; i < h - 2; i += 2) rivers_[n++] = {kVertical, i};
    for (int j = 2; j < w - 2; j += 2) rivers_[n++] = {kHorizontal, j};
    Shuffle(rng, rivers_.data(), static_cast<int>(n));
    const std::size_t kept = std::min(n, static_cast<std::size_t>(num_crossings_));
    // limits_v = [0] + sorted(rivers_v) + [height - 1], limits_h likewise with width.
    std::size_t nv = 0, nh = 0;
    limits_v_[0] = 0;
    limits_h_[0] = 0;
    for (std::size_t k = 0; k < kept; ++k) {
      if (rivers_[k].first == kVertical) {
        limits_v_[++nv] = rivers_[k].second;
      } else {
        limits_h_[++nh] = rivers_[k].second;
      }
    }
    std::sort(limits_v_.begin() + 1, limits_v_.begin() + 1 + static_cast<std::ptrdiff_t>(nv));
    std::sort(limits_h_.begin() + 1, limits_h_.begin() + 1 + static_cast<std::ptrdiff_t>(nh));
    limits_v_[nv + 1] = h - 1;
    limits_h_[nh + 1] = w - 1;
    for (std::size_t k = 1; k <= nh; ++k) {
      for (int i = 1; i < w - 1; ++i) grid_.Set(i, limits_h_[k], obstacle_);
    }
    for (std::size_t k = 1; k <= nv; ++k) {
      for (int j = 1; j < h - 1; ++j) grid_.Set(limits_v_[k], j, obstacle_);
    }
    // path = [h] * len(rivers_v) + [v] * len(rivers_h), shuffled
    std::size_t np = 0;
    for (std::size_t k = 0; k < nv; ++k) path_[np++] = kHorizontal;
    for (std::size_t k = 0; k < nh; ++k) path_[np++] = kVertical;
    Shuffle(rng, path_.data(), static_cast<int>(np));
    std::size_t room_i = 0, room_j = 0;
    for (std::size_t k = 0; k < np; ++k) {
      int i, j;
      if (path_[k] == kHorizontal) {
        i = limits_v_[room_i + 1];
        j = RandInt(rng, limits_h_[room_j] + 1, limits_h_[room_j + 1]);
        ++room_i;
      } else {
        i = RandInt(rng, limits_v_[room_i] + 1, limits_v_[room_i + 1]);
        j = limits_h_[room_j + 1];
        ++room_j;
      }
      grid_.Set(i, j, Obj{});
    }
  }

 private:
  static constexpr const char* kName = "MiniGrid Crossing";
  static constexpr uint8_t kVertical = 0;
  static constexpr uint8_t kHorizontal = 1;
  static int Size(const Config& config) { return OddIn(config, kName, "size", 5, 1023); }

  int num_crossings_;
  Obj obstacle_{};
  std::vector<std::pair<uint8_t, int>> rivers_;
  std::vector<uint8_t> path_;
  std::vector<int> limits_v_;
  std::vector<int> limits_h_;
};

}  // namespace envpool::minigrid
