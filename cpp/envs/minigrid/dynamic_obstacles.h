// MiniGrid-Dynamic-Obstacles-*: minigrid.envs.DynamicObstaclesEnv. A walled size x size room,
// the goal in the bottom right corner, the agent at agent_start_pos facing agent_start_dir (or
// place_agent), then n_obstacles blue balls by place_obj (max_tries 100). Three actions (left,
// right, forward). Each step, before the agent acts, every ball moves in turn to a place_obj
// position of the 3 x 3 block around it (max_tries 100: after 101 draws it stays); moving
// forward toward anything but the goal or an empty cell (judged before the balls move) ends
// the episode with reward -1. Mission "get to the green goal square"; see_through_walls always
// True.
// kwargs: size (>= 4), agent_start_pos ([] or [x, y] inside the outer wall), agent_start_dir,
// n_obstacles (as minigrid: above size / 2 + 1, int(size / 2); >= 0), max_steps (0:
// 4 * size^2), agent_view_size.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class DynamicObstacles : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{8}},
            {"agent_start_pos", std::vector<double>{1, 1}},
            {"agent_start_dir", int64_t{0}},
            {"n_obstacles", int64_t{4}},
            {"max_steps", int64_t{0}},
            {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<DynamicObstacles>(config, kName, 3); }

  explicit DynamicObstacles(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 4 * Size(config) * Size(config), true),
        start_(config, kName, Size(config), Size(config)) {
    const int size = Size(config);
    const int64_t n = IntIn(config, kName, "n_obstacles", 0, 1 << 20);
    // minigrid: n if n <= size / 2 + 1 (a float comparison) else int(size / 2).
    const int count = 2 * n <= static_cast<int64_t>(size) + 2 ? static_cast<int>(n) : size / 2;
    if (count > (size - 2) * (size - 2) - 2) {
      throw std::invalid_argument(std::string(kName) + ": n_obstacles " + std::to_string(n) + " do not fit the room");
    }
    obstacles_.resize(static_cast<std::size_t>(count));
    SetMission("get to the green goal square");
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    const Obj& front = grid_.Get(agent_x_ + kDirX[agent_dir_], agent_y_ + kDirY[agent_dir_]);
    const bool not_clear = !front.empty() && front.type != kGoal;
    for (auto& [x, y] : obstacles_) {
      const auto [nx, ny] = PlaceObj(rng, kBlueBall, x - 1, y - 1, 3, 3, 100);
      if (nx < 0) continue;  // minigrid's RecursionError, caught: the ball stays
      grid_.Set(x, y, Obj{});
      x = nx;
      y = ny;
    }
    StepResult r = MiniGridStep(a);
    if (a == kForward && not_clear) {
      r.reward = -1.0;
      r.terminated = true;
    }
    Finish(r, out);
  }

 protected:
  void GenGrid(Rng& rng) override {
    WallsAndCornerGoal();
    PlaceAgentAt(rng, start_);
    for (auto& pos : obstacles_) {
      pos = PlaceObj(rng, kBlueBall, 0, 0, -1, -1, 100);
      if (pos.first < 0) throw std::runtime_error(std::string(kName) + ": rejection sampling failed in place_obj");
    }
  }

 private:
  static constexpr const char* kName = "MiniGrid Dynamic-Obstacles";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 4, 1024); }
  static constexpr Obj kBlueBall = Obj{kBall, kBlue, 0, kEmpty, 0, 0};

  AgentStart start_;
  std::vector<std::pair<int, int>> obstacles_;  // each ball's cur_pos
};

}  // namespace envpool::minigrid
