// The kwargs checks the MiniGrid envs share (minigrid asserts or loops forever where these
// raise a ValueError naming the key), and the kwargs every MiniGrid and BabyAI id takes besides
// its env's own (AddCommonKwargs).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/spec.h"
#include "envs/minigrid/render/tiles.h"

namespace envpool::minigrid {

// agent_view_size: odd and >= 3 as minigrid asserts; the bound keeps the image a sane size.
inline int ViewSize(const Config& config, const std::string& env) {
  const int64_t v = config.Get<int64_t>("agent_view_size");
  if (v < 3 || v % 2 == 0 || v > 99) {
    throw std::invalid_argument(env + ": agent_view_size must be an odd integer in [3, 99], got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

// max_steps: 0 stands for minigrid's None (the env's own default, `fallback`); else >= 1.
inline int MaxSteps(const Config& config, const std::string& env, int64_t fallback) {
  const int64_t m = config.Get<int64_t>("max_steps");
  if (m < 0 || m > 1'000'000'000) {
    throw std::invalid_argument(env + ": max_steps must be 0 (the env's default, " + std::to_string(fallback) +
                                ") or a positive integer, got " + std::to_string(m));
  }
  return static_cast<int>(m == 0 ? fallback : m);
}

// obj_type: "ball", "box" or "key" (KeyCorridor, MiniGrid's and BabyAI's).
inline Type ObjTypeKwarg(const Config& config, const std::string& env) {
  const auto type = config.Get<std::string>("obj_type");
  if (type == "ball") return kBall;
  if (type == "box") return kBox;
  if (type == "key") return kKey;
  throw std::invalid_argument(env + ": obj_type must be 'ball', 'box' or 'key', got '" + type + "'");
}

// A colour kwarg: "" (minigrid's None: drawn) or one of COLOR_NAMES; -1 for "".
inline int ColorKwarg(const Config& config, const std::string& env, const std::string& key) {
  const auto name = config.Get<std::string>(key);
  if (name.empty()) return -1;
  for (int c = 0; c < 6; ++c) {
    if (name == kColorName[c]) return c;
  }
  throw std::invalid_argument(env + ": " + key + " must be '' or one of red, green, blue, purple, yellow, grey, got '" +
                              name + "'");
}

// An integer kwarg in [low, high], or an error naming it.
inline int IntIn(const Config& config, const std::string& env, const std::string& key, int64_t low, int64_t high) {
  const int64_t v = config.Get<int64_t>(key);
  if (v < low || v > high) {
    throw std::invalid_argument(env + ": " + key + " must be an integer in [" + std::to_string(low) + ", " +
                                std::to_string(high) + "], got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

// An odd integer kwarg in [low, high] (sizes whose middle row or column minigrid builds on).
inline int OddIn(const Config& config, const std::string& env, const std::string& key, int64_t low, int64_t high) {
  const int v = IntIn(config, env, key, low, high);
  if (v % 2 == 0) throw std::invalid_argument(env + ": " + key + " must be odd, got " + std::to_string(v));
  return v;
}

// An optional position kwarg: [] (minigrid's None) or two integers inside [1, size - 2].
inline bool OptionalPos(const Config& config, const std::string& env, const std::string& key, int width, int height,
                        int* x, int* y) {
  const auto pos = config.Get<std::vector<double>>(key);
  if (pos.empty()) return false;
  const bool ok = pos.size() == 2 && pos[0] == static_cast<int>(pos[0]) && pos[1] == static_cast<int>(pos[1]) &&
                  pos[0] >= 1 && pos[0] <= width - 2 && pos[1] >= 1 && pos[1] <= height - 2;
  if (!ok) {
    throw std::invalid_argument(env + ": " + key +
                                " must be [] (None) or two integers [x, y] inside the outer wall (1.." +
                                std::to_string(width - 2) + ", 1.." + std::to_string(height - 2) + ")");
  }
  *x = static_cast<int>(pos[0]);
  *y = static_cast<int>(pos[1]);
  return true;
}

// agent_start_pos and agent_start_dir (Empty, DistShift, Dynamic-Obstacles): the agent's fixed
// start, or (agent_start_pos [], minigrid's None) place_agent's (MiniGridEnv::PlaceAgentAt).
struct AgentStart {
  AgentStart(const Config& config, const std::string& env, int width, int height)
      : random(!OptionalPos(config, env, "agent_start_pos", width, height, &x, &y)),
        dir(IntIn(config, env, "agent_start_dir", 0, 3)) {}

  int x = 1;  // declared before `random`, whose initializer writes them
  int y = 1;
  bool random;
  int dir;
};

// The kwargs every MiniGrid id takes besides its env's own, with minigrid's defaults:
// MiniGridEnv's rendering kwargs (tile_size, highlight, agent_pov: what render() draws) and the
// observation wrappers (obs_wrappers, minigrid.wrappers class names applied innermost first;
// obs_tile_size, the RGB wrappers' tile_size).
inline void AddCommonKwargs(Config& config) {
  config.Set("tile_size", int64_t{kTilePixels});
  config.Set("highlight", true);
  config.Set("agent_pov", false);
  config.Set("obs_wrappers", std::vector<std::string>{});
  config.Set("obs_tile_size", int64_t{8});
}

}  // namespace envpool::minigrid
