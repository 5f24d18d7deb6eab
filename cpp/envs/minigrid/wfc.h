// MiniGrid-WFC-*-v0: minigrid.envs.wfc.WFCEnv with the six presets minigrid 3.2.0 registers.
// _gen_grid: Wave Function Collapse (wfc_solver.h) learns from the preset's pattern image
// (wfc_patterns.h) and fills the (size - 2)^2 inside of a walled grid, black pixels walls; with
// ensure_connected only the largest open region stays open (wfc_graph.h); start and goal are the
// first two of np_random.permutation over the open cells in networkx's node order, then
// agent_dir = _rand_int(0, 4). Node (r, c) of the layout is cell (x, y) = (r + 1, c + 1), as
// Grid.decode reads the array's first axis as x. Mission "traverse the maze to get to the goal".
// kwargs: wfc_config (a preset name), size (3..128; minigrid takes any >= 3, but its solver is
// quadratic in the cells), ensure_connected, max_steps (0: 20 * size),
// agent_view_size, see_through_walls.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/minigrid/minigrid_env.h"
#include "envs/minigrid/wfc_graph.h"
#include "envs/minigrid/wfc_solver.h"

namespace envpool::minigrid {

class WFC : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"wfc_config", std::string("MazeSimple")},
            {"size", int64_t{25}},
            {"ensure_connected", true},
            {"max_steps", int64_t{0}},
            {"agent_view_size", int64_t{7}},
            {"see_through_walls", false}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<WFC>(config, kName); }

  explicit WFC(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 20 * Size(config),
                    config.Get<bool>("see_through_walls")),
        preset_(FindPreset(config.Get<std::string>("wfc_config"))),
        catalog_(std::make_unique<wfc::Catalog>(Image(preset_), preset_.pattern_width)),
        solver_(*catalog_, preset_.periodic_output),
        ensure_connected_(config.Get<bool>("ensure_connected")) {
    SetMission("traverse the maze to get to the goal");
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int n = grid_.width() - 2;
    if (!solver_.Generate(rng, n, n, kAttempts, &open_)) {
      throw std::runtime_error(std::string(kName) + ": could not generate a valid pattern within 1000 attempts");
    }
    for (auto& cell : open_) cell = cell ? 0 : 1;  // the solver marks walls
    std::vector<int> candidates;
    if (ensure_connected_) {
      candidates = wfc::LargestComponent(open_, n, n, &keep_);
      open_ = keep_;
    } else {
      for (int cell = 0; cell < n * n; ++cell) {
        if (open_[static_cast<std::size_t>(cell)]) candidates.push_back(cell);
      }
    }
    if (candidates.size() < 2) {
      throw std::runtime_error(std::string(kName) +
                               ": the generated layout has no two connected open cells (minigrid fails here too)");
    }
    std::vector<int> perm(candidates.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
    Shuffle(rng, perm.data(), static_cast<int>(perm.size()));  // np_random.permutation(len)
    const int start = candidates[static_cast<std::size_t>(perm[0])];
    const int goal = candidates[static_cast<std::size_t>(perm[1])];
    grid_.WallRect(0, 0, grid_.width(), grid_.height());
    for (int cell = 0; cell < n * n; ++cell) {
      const int x = cell / n + 1;
      const int y = cell % n + 1;
      if (cell == goal) {
        grid_.Set(x, y, Obj::Goal());
      } else if (!open_[static_cast<std::size_t>(cell)]) {
        grid_.Set(x, y, Obj::Wall());
      }
    }
    SetAgent(start / n + 1, start % n + 1, RandInt(rng, 0, 4));
  }

 private:
  static constexpr const char* kName = "MiniGrid WFC";
  static constexpr int kAttempts = 1000;  // WFCEnv.max_attempts

  struct Preset {
    const char* name;
    const char* image;
    int pattern_width;
    bool periodic_output;  // input_periodic changes nothing: minigrid wraps the input either way
  };
  static constexpr Preset kPresets[] = {
      {"MazeSimple", "SimpleMaze", 2, false},   {"DungeonMazeScaled", "ScaledMaze", 2, true},
      {"RoomsFabric", "Fabric", 3, false},      {"ObstaclesBlackdots", "Blackdots", 2, false},
      {"ObstaclesAngular", "Angular", 3, true}, {"ObstaclesHogs3", "Hogs", 3, true},
  };

  static int Size(const Config& config) {
    return IntIn(config, kName, "size", 3, 128);
  }  // 128: a reset well under a second

  static const Preset& FindPreset(const std::string& name) {
    for (const auto& p : kPresets) {
      if (name == p.name) return p;
    }
    throw std::invalid_argument(std::string(kName) + ": wfc_config must be one of the presets minigrid registers " +
                                "(MazeSimple, DungeonMazeScaled, RoomsFabric, ObstaclesBlackdots, ObstaclesAngular, " +
                                "ObstaclesHogs3), got '" + name +
                                "'; the others need pattern images envpool does not ship");
  }

  static const wfc::PatternImage& Image(const Preset& preset) {
    for (const auto& image : wfc::kPatternImages) {
      if (image.name == preset.image) return image;
    }
    throw std::logic_error(std::string(kName) + ": no pattern image " + preset.image);
  }

  const Preset& preset_;
  std::unique_ptr<wfc::Catalog> catalog_;  // the solver keeps a reference: a stable address
  wfc::Solver solver_;
  bool ensure_connected_;
  std::vector<uint8_t> open_;
  std::vector<uint8_t> keep_;
};

}  // namespace envpool::minigrid
