// Procgen's games, their distribution modes and the options a game is made with, checked here
// before the library sees them: Procgen handles a bad option with fassert() / fatal(), which
// exit() the whole process (a distribution mode the game lacks, a negative num_levels, ...).
//
// The facts are Procgen 0.10.7's: the games of procgen/env.py's ENV_NAMES, the modes
// Game::parse_options accepts per game (easy and hard: all; extreme: chaser, dodgeball, leaper,
// starpilot; memory: caveflyer, dodgeball, heist, jumper, maze, miner), and "exploration", which
// ProcgenGym3Env turns into hard mode on one fixed level (EXPLORATION_LEVEL_SEEDS); and each
// game's step limit per level (Game::timeout: 1000 unless its constructor sets another; jumper's
// memory mode sets 2000 in game_reset). The limits are kept here because Procgen reports them
// only through get_state, which exits the process for games with use_generated_assets.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/spec.h"

namespace envpool::procgen {

struct GameInfo {
  const char* name;                // Procgen's env_name
  const char* title;               // the task ids' prefix ("Bigfish" in BigfishEasy-v0)
  std::vector<const char*> modes;  // distribution modes it supports, as ProcgenGym3Env names them
  int32_t exploration_level;       // the level of exploration mode (0: no exploration mode)
  int32_t timeout;                 // Game::timeout: the steps a level lasts at most
};

inline const std::vector<GameInfo>& Games() {
  static const std::vector<GameInfo> games = {
      {"bigfish", "Bigfish", {"easy", "hard"}, 0, 6000},
      {"bossfight", "Bossfight", {"easy", "hard"}, 0, 4000},
      {"caveflyer", "Caveflyer", {"easy", "hard", "memory", "exploration"}, 1259048185, 1000},
      {"chaser", "Chaser", {"easy", "hard", "extreme"}, 0, 1000},
      {"climber", "Climber", {"easy", "hard", "exploration"}, 1561126160, 1000},
      {"coinrun", "Coinrun", {"easy", "hard", "exploration"}, 1949448038, 1000},
      {"dodgeball", "Dodgeball", {"easy", "hard", "extreme", "memory"}, 0, 1000},
      {"fruitbot", "Fruitbot", {"easy", "hard"}, 0, 1000},
      {"heist", "Heist", {"easy", "hard", "memory", "exploration"}, 876640971, 1000},
      {"jumper", "Jumper", {"easy", "hard", "memory", "exploration"}, 1434825276, 1000},
      {"leaper", "Leaper", {"easy", "hard", "extreme", "exploration"}, 1318677581, 500},
      {"maze", "Maze", {"easy", "hard", "memory", "exploration"}, 158988835, 500},
      {"miner", "Miner", {"easy", "hard", "memory"}, 0, 1000},
      {"ninja", "Ninja", {"easy", "hard", "exploration"}, 1123500215, 1000},
      {"plunder", "Plunder", {"easy", "hard"}, 0, 4000},
      {"starpilot", "Starpilot", {"easy", "hard", "extreme"}, 0, 1000},
  };
  return games;
}

// Procgen's DistributionMode code of a mode name (exploration is played in hard mode).
inline int32_t ModeCode(const std::string& mode) {
  if (mode == "easy") return 0;
  if (mode == "hard" || mode == "exploration") return 1;
  if (mode == "extreme") return 2;
  return 10;  // memory (names are checked against the game's list before this is called)
}

// "Easy" for "easy": the ids' suffix.
inline std::string ModeTitle(const std::string& mode) {
  std::string t = mode;
  if (!t.empty()) t[0] = static_cast<char>(t[0] - 'a' + 'A');
  return t;
}

// The options of one game instance, from a task's config.
struct Options {
  const GameInfo* game = nullptr;
  std::string mode;
  int32_t num_levels = 0;
  int32_t start_level = 0;
  bool use_sequential_levels = false;
  bool center_agent = true;
  bool use_backgrounds = true;
  bool restrict_themes = false;
  bool use_monochrome_assets = false;
  bool paint_vel_info = false;
  bool use_generated_assets = false;
  bool channel_first = false;  // envpool's: (3, 64, 64) rows instead of Procgen's (64, 64, 3)

  // Reads and checks a config; throws std::invalid_argument naming the kwarg.
  explicit Options(const Config& c) {
    const std::string name = c.Get<std::string>("env_name");
    std::string names;
    for (const auto& g : Games()) {
      if (name == g.name) game = &g;
      names += std::string(names.empty() ? "" : ", ") + g.name;
    }
    if (!game) throw std::invalid_argument("env_name '" + name + "' is not a Procgen game (one of " + names + ")");
    mode = c.Get<std::string>("distribution_mode");
    bool supported = false;
    std::string modes;
    for (const char* m : game->modes) {
      supported = supported || mode == m;
      modes += std::string(modes.empty() ? "" : ", ") + m;
    }
    if (!supported) {
      throw std::invalid_argument("distribution_mode '" + mode + "' is not one of " + name + "'s modes (" + modes +
                                  ")");
    }
    const int64_t levels = c.Get<int64_t>("num_levels"), start = c.Get<int64_t>("start_level");
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (levels < 0 || levels > kMax) {
      throw std::invalid_argument("num_levels must be in [0, 2**31 - 1] (0: unlimited levels), got " +
                                  std::to_string(levels));
    }
    if (start < 0 || start > kMax) {
      throw std::invalid_argument("start_level must be in [0, 2**31 - 1], got " + std::to_string(start));
    }
    // Procgen draws levels in [start_level, start_level + num_levels) as 32-bit ints.
    if (levels > 0 && start + levels > kMax) {
      throw std::invalid_argument("start_level + num_levels must be at most 2**31 - 1, got " +
                                  std::to_string(start + levels));
    }
    if (mode == "exploration") {
      // ProcgenGym3Env: "exploration mode overrides num_levels / start_level".
      if (levels != 0 || start != 0) {
        throw std::invalid_argument(
            "distribution_mode 'exploration' plays one fixed level: num_levels and "
            "start_level must be left at 0");
      }
      num_levels = 1;
      start_level = game->exploration_level;
    } else {
      num_levels = static_cast<int32_t>(levels);
      start_level = static_cast<int32_t>(start);
    }
    use_sequential_levels = c.Get<bool>("use_sequential_levels");
    center_agent = c.Get<bool>("center_agent");
    use_backgrounds = c.Get<bool>("use_backgrounds");
    restrict_themes = c.Get<bool>("restrict_themes");
    use_monochrome_assets = c.Get<bool>("use_monochrome_assets");
    paint_vel_info = c.Get<bool>("paint_vel_info");
    use_generated_assets = c.Get<bool>("use_generated_assets");
    channel_first = c.Get<bool>("channel_first");
  }

  // The steps a level lasts at most (Procgen's Game::timeout for these options).
  int32_t Timeout() const { return std::string(game->name) == "jumper" && mode == "memory" ? 2000 : game->timeout; }

  // The game and every option that shapes its states (a get_state descriptor).
  std::string Describe() const {
    auto b = [](bool v) { return v ? "1" : "0"; };
    return std::string(game->name) + " " + mode + " levels=" + std::to_string(start_level) + "+" +
           std::to_string(num_levels) + " seq=" + b(use_sequential_levels) + " center=" + b(center_agent) +
           " bg=" + b(use_backgrounds) + " themes=" + b(restrict_themes) + " mono=" + b(use_monochrome_assets) +
           " vel=" + b(paint_vel_info) + " gen=" + b(use_generated_assets);
  }
};

}  // namespace envpool::procgen
