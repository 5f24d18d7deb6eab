// FrozenLake-v1 / FrozenLake8x8-v1: gymnasium.envs.toy_text.FrozenLakeEnv.
//
// The player walks on a grid of tiles S (start), F (frozen), H (hole), G (goal) from an S tile
// to the G tile. State / observation: row * ncol + col. Actions: 0 left, 1 down, 2 right, 3 up.
// Transitions are gymnasium's table P[s][a], computed on the fly instead of stored:
//   * on an H or G tile (reachable only through set_state): stay, reward 0, terminated;
//   * not slippery: move as asked (clamped to the grid);
//   * slippery: the candidate moves (a - 1) % 4, a, (a + 1) % 4 with probabilities
//     fail_rate, success_rate, fail_rate, where fail_rate = (1 - success_rate) / 2.
// Entering a tile gives reward_schedule[0] for G, [1] for H, [2] otherwise, and ends the
// episode on G and H. The candidate is drawn as gymnasium's categorical_sample does (the
// first entry whose running sum exceeds a uniform draw), so info["prob"] is the probability
// of the chosen entry, as in gymnasium (1/3 for a slippery move even when two entries lead
// to the same tile). Reset starts uniformly on one of the S tiles; info["prob"] is 1.
// Randomness (docs/seeding.md): like gymnasium, reset and every step draw one
// np_random.random() each (categorical_sample), also without slipping and on G / H tiles.
//
// kwargs (gymnasium's names and defaults; None has a typed stand-in):
//   desc             list[str], the map rows; [] means gymnasium's desc=None (use map_name)
//   map_name         "4x4" or "8x8"; "" means gymnasium's map_name=None: with an empty desc
//                    too, a random 8x8 map is drawn at the env's first reset, exactly the map
//                    gymnasium's generate_random_map(size=8, p=0.8, seed=s) returns, where s is
//                    the env's seed then (make's seed + i, or the first reset(seed=...)'s): each
//                    tile frozen with probability 0.8, redrawn until the goal is reachable, from
//                    a generator of its own, so the env's stream is untouched and equals that
//                    of gymnasium's FrozenLakeEnv(desc=generate_random_map(seed=s)) reset with
//                    seed s. (gymnasium itself draws the map in the constructor from OS entropy;
//                    the constructor here has no seed.) The map then stays for the env's
//                    lifetime (reseeding does not redraw it), as in gymnasium; set_state needs
//                    a reset first.
//   is_slippery      bool (true)
//   success_rate     float in [0, 1] (1/3)
//   reward_schedule  [goal, hole, frozen] rewards ([1, 0, 0])
// Stricter than gymnasium: a desc must be rectangular, use only the letters S, F, H, G and
// hold at least one S (gymnasium treats other letters as F and starts in state 0 without S).
//
// State (get_state / set_state): [s], gymnasium's env.unwrapped.s.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/toy_text/categorical_sample.h"
#include "envs/toy_text/render/frozen_lake.h"

namespace envpool::toy_text {

class FrozenLake : public Env {
 public:
  static Config DefaultConfig() {
    return {{"desc", std::vector<std::string>{}},
            {"map_name", std::string("4x4")},
            {"is_slippery", true},
            {"success_rate", 1.0 / 3.0},
            {"reward_schedule", std::vector<double>{1.0, 0.0, 0.0}}};
  }

  static EnvSpec Spec(const Config& config) {
    const Map map = ParseMap(config);
    CheckConfig(config);
    EnvSpec spec{{ArraySpec::Discrete("obs", static_cast<int64_t>(map.nrow) * map.ncol)},
                 {ArraySpec::Discrete("action", 4)},
                 {ArraySpec::Box("prob", DType::kFloat64, {}, {0.0}, {1.0})}};
    spec.render_height = render::FrozenLakeHeight(map.nrow);
    spec.render_width = render::FrozenLakeWidth(map.ncol);
    spec.render_fps = 4;  // FrozenLakeEnv.metadata
    return spec;
  }

  explicit FrozenLake(const Config& config)
      : map_(ParseMap(config)),
        is_slippery_(config.Get<bool>("is_slippery")),
        success_rate_(config.Get<double>("success_rate")),
        fail_rate_((1.0 - success_rate_) / 2.0) {
    CheckConfig(config);
    const auto schedule = config.Get<std::vector<double>>("reward_schedule");
    for (int i = 0; i < 3; ++i) reward_schedule_[i] = schedule[static_cast<std::size_t>(i)];
    if (!map_.tiles.empty()) start_sums_ = StartRunningSums(map_.tiles);
  }

  void Reset(Rng& rng, Output& out) override {
    if (map_.tiles.empty()) GenerateRandomMap(rng.seed());
    // gymnasium: categorical_sample over (desc == "S") / count, one draw.
    s_ = static_cast<int64_t>(CategoricalSampleCdf(rng, start_sums_));
    out.Obs<int64_t>()[0] = s_;
    *out.Info<double>(0) = 1.0;
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    const char here = map_.tiles[static_cast<std::size_t>(s_)];
    double prob = 1.0, reward = 0.0;
    bool terminated = true;
    if (here == 'G' || here == 'H') {
      // gymnasium: the single entry (1.0, s, 0, True) whatever the schedule says (still a draw).
      rng.Uniform();
    } else {
      int move = a;
      if (is_slippery_) {
        // Candidates (a - 1) % 4, a, (a + 1) % 4: categorical_sample over their probabilities.
        const double probs[3] = {fail_rate_, success_rate_, fail_rate_};
        const auto pick = static_cast<int>(CategoricalSample(rng, probs, 3));
        move = (a + pick + 3) % 4;
        prob = probs[pick];
      } else {
        rng.Uniform();  // categorical_sample over the single entry
      }
      s_ = Move(s_, move);
      const char tile = map_.tiles[static_cast<std::size_t>(s_)];
      terminated = tile == 'G' || tile == 'H';
      reward = tile == 'G' ? reward_schedule_[0] : tile == 'H' ? reward_schedule_[1] : reward_schedule_[2];
    }
    out.Obs<int64_t>()[0] = s_;
    out.reward() = reward;
    out.terminated() = terminated;
    *out.Info<double>(0) = prob;
  }

  // gymnasium's FrozenLakeEnv.render() (rgb_array): see render/frozen_lake.h.
  void Render(uint8_t* rgb) const override { render::DrawFrozenLake(rgb, map_.nrow, map_.ncol, map_.tiles, s_); }

  std::vector<double> GetState() const override { return {static_cast<double>(s_)}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 1);
    if (map_.tiles.empty()) {
      throw std::invalid_argument("FrozenLake: the random map is drawn at the first reset; reset before set_state");
    }
    const double n = static_cast<double>(map_.nrow) * map_.ncol;
    if (!(state[0] >= 0 && state[0] < n && state[0] == std::floor(state[0]))) {
      throw std::invalid_argument("FrozenLake: state must be an integer in [0, " +
                                  std::to_string(map_.nrow * map_.ncol) + "), got " + std::to_string(state[0]));
    }
    s_ = static_cast<int64_t>(state[0]);
  }

 private:
  struct Map {
    int nrow = 0, ncol = 0;
    std::string tiles;  // row-major letters; empty until a random map is drawn
  };

  static constexpr int kRandomSize = 8;  // generate_random_map's defaults
  static constexpr double kRandomFrozen = 0.8;

  // numpy's cumsum of gymnasium's initial_state_distrib: 1 / (number of S tiles) on S tiles.
  static std::vector<double> StartRunningSums(const std::string& tiles) {
    const auto starts = static_cast<double>(std::count(tiles.begin(), tiles.end(), 'S'));
    std::vector<double> probs(tiles.size(), 0.0);
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      if (tiles[i] == 'S') probs[i] = 1.0 / starts;
    }
    return RunningSums(probs);
  }

  static void CheckConfig(const Config& config) {
    const double success_rate = config.Get<double>("success_rate");
    if (!(success_rate >= 0.0 && success_rate <= 1.0)) {
      throw std::invalid_argument("FrozenLake: success_rate must be in [0, 1], got " + std::to_string(success_rate));
    }
    const auto schedule = config.Get<std::vector<double>>("reward_schedule");
    if (schedule.size() != 3) {
      throw std::invalid_argument("FrozenLake: reward_schedule must have 3 values (goal, hole, frozen), got " +
                                  std::to_string(schedule.size()));
    }
  }

  static Map ParseMap(const Config& config) {
    auto desc = config.Get<std::vector<std::string>>("desc");
    const auto map_name = config.Get<std::string>("map_name");
    Map map;
    if (desc.empty()) {
      if (map_name == "4x4") {
        desc = {"SFFF", "FHFH", "FFFH", "HFFG"};
      } else if (map_name == "8x8") {
        desc = {"SFFFFFFF", "FFFFFFFF", "FFFHFFFF", "FFFFFHFF", "FFFHFFFF", "FHHFFFHF", "FHFFHFHF", "FFFHFFFG"};
      } else if (map_name.empty()) {
        map.nrow = map.ncol = kRandomSize;  // drawn at the first reset
        return map;
      } else {
        throw std::invalid_argument(
            "FrozenLake: map_name must be '4x4' or '8x8' (or '' with an empty desc for a "
            "random 8x8 map), got '" +
            map_name + "'");
      }
    }
    map.nrow = static_cast<int>(desc.size());
    map.ncol = static_cast<int>(desc[0].size());
    for (const auto& row : desc) {
      if (row.empty() || static_cast<int>(row.size()) != map.ncol) {
        throw std::invalid_argument("FrozenLake: desc rows must be non-empty and of equal length, got '" + row +
                                    "' in a map of width " + std::to_string(map.ncol));
      }
      for (char c : row) {
        if (c != 'S' && c != 'F' && c != 'H' && c != 'G') {
          throw std::invalid_argument(std::string("FrozenLake: desc may only hold the letters S, F, H, G, got '") + c +
                                      "' in row '" + row + "'");
        }
      }
      map.tiles += row;
    }
    if (map.tiles.find('S') == std::string::npos) throw std::invalid_argument("FrozenLake: desc has no start tile 'S'");
    return map;
  }

  // gymnasium's generate_random_map(size=8, p=0.8, seed): S at the top left, G at the bottom
  // right, the other tiles np_random.choice(["F", "H"], (8, 8), p=[p, 1 - p]) (one random() per
  // tile, row by row; "H" where it reaches the normalised cumulative probability of "F"),
  // redrawn until G is reachable from S without holes.
  void GenerateRandomMap(uint64_t seed) {
    Rng rng(seed);
    const int n = kRandomSize;
    const double p = kRandomFrozen;
    const double frozen_below = p / (p + (1.0 - p));  // choice's cdf[0] / cdf[-1]
    std::string tiles(static_cast<std::size_t>(n * n), 'F');
    std::vector<int> stack;
    std::vector<bool> seen;
    for (;;) {
      for (char& c : tiles) c = rng.Uniform() < frozen_below ? 'F' : 'H';
      tiles.front() = 'S';
      tiles.back() = 'G';
      // Depth-first search from S through non-hole tiles.
      stack.assign(1, 0);
      seen.assign(tiles.size(), false);
      bool reachable = false;
      while (!stack.empty() && !reachable) {
        const int cell = stack.back();
        stack.pop_back();
        if (seen[static_cast<std::size_t>(cell)]) continue;
        seen[static_cast<std::size_t>(cell)] = true;
        const int r = cell / n, c = cell % n;
        const int dr[4] = {1, 0, -1, 0}, dc[4] = {0, 1, 0, -1};
        for (int k = 0; k < 4; ++k) {
          const int rr = r + dr[k], cc = c + dc[k];
          if (rr < 0 || rr >= n || cc < 0 || cc >= n) continue;
          const char t = tiles[static_cast<std::size_t>(rr * n + cc)];
          if (t == 'G') reachable = true;
          if (t != 'H') stack.push_back(rr * n + cc);
        }
      }
      if (reachable) break;
    }
    map_.tiles = tiles;
    start_sums_ = StartRunningSums(map_.tiles);
  }

  int64_t Move(int64_t s, int move) const {
    int row = static_cast<int>(s / map_.ncol), col = static_cast<int>(s % map_.ncol);
    switch (move) {
      case 0:  // left
        col = col > 0 ? col - 1 : 0;
        break;
      case 1:  // down
        row = row < map_.nrow - 1 ? row + 1 : map_.nrow - 1;
        break;
      case 2:  // right
        col = col < map_.ncol - 1 ? col + 1 : map_.ncol - 1;
        break;
      default:  // up
        row = row > 0 ? row - 1 : 0;
        break;
    }
    return static_cast<int64_t>(row) * map_.ncol + col;
  }

  Map map_;
  std::vector<double> start_sums_;  // running sums of the initial-state distribution
  bool is_slippery_;
  double success_rate_, fail_rate_;
  double reward_schedule_[3] = {1.0, 0.0, 0.0};
  int64_t s_ = 0;
};

}  // namespace envpool::toy_text
