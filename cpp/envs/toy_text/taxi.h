// Taxi-v4: gymnasium.envs.toy_text.TaxiEnv (Dietterich's MAXQ taxi domain).
//
// A 5 x 5 grid with walls and four stands R (0, 0), G (0, 4), Y (4, 0), B (4, 3). State /
// observation ((taxi_row * 5 + taxi_col) * 5 + passenger) * 4 + destination, where passenger
// 0..3 is a stand and 4 means in the taxi. Actions: 0 south, 1 north, 2 east, 3 west, 4 pickup,
// 5 dropoff. Rewards: -1 per step, +20 for delivering (which ends the episode), -10 for an
// illegal pickup or dropoff. Dropping the passenger at another stand leaves them there (-1).
// Reset draws uniformly among the 300 states whose passenger waits at a stand other than the
// destination.
// Randomness (docs/seeding.md), as gymnasium draws it: reset = categorical_sample over the 500
// states (one np_random.random()), then with fickle_passenger one random() for fickle_step;
// every step = one random() (categorical_sample, also for a deterministic entry), then, when the
// fickle passenger changes their mind, np_random.choice of the three other destinations.
//
// Transitions are gymnasium's table env.P, computed on the fly:
//   * dry: deterministic.
//   * is_rainy: a move that is possible (no wall or grid edge ahead) goes ahead with
//     probability rainy_probability and to either side (left, right of the heading, each
//     blocked by walls / edges on its own) with (1 - rainy_probability) / 2 each; a blocked move
//     stays, still as three entries. Moves always give -1 there. Pickup / dropoff are
//     deterministic. The entry is drawn as gymnasium's categorical_sample does, and
//     info["prob"] is its probability.
//   * fickle_passenger: at reset, with probability fickle_probability the passenger is fickle
//     (gymnasium's fickle_step); the first step that moves the taxi while the passenger is
//     aboard then switches the destination to one of the three others, uniformly, once.
// info: "prob" (float64) and "action_mask" (6 values, 1 where the action changes the state, as
// gymnasium's action_mask(), int8).
//
// State (get_state / set_state): [s, fickle_step] - gymnasium's env.unwrapped.s and
// env.unwrapped.fickle_step (0 or 1; it only matters with fickle_passenger).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/toy_text/categorical_sample.h"
#include "envs/toy_text/render/taxi.h"

namespace envpool::toy_text {

class Taxi : public Env {
 public:
  static Config DefaultConfig() {
    return {{"is_rainy", false}, {"fickle_passenger", false}, {"rainy_probability", 0.8}, {"fickle_probability", 0.3}};
  }

  static EnvSpec Spec(const Config& config) {
    CheckConfig(config);
    EnvSpec spec{{ArraySpec::Discrete("obs", kNumStates)},
                 {ArraySpec::Discrete("action", 6)},
                 {ArraySpec::Box("prob", DType::kFloat64, {}, {0.0}, {1.0}),
                  ArraySpec::Box("action_mask", DType::kInt8, {6}, {0.0}, {1.0})}};
    spec.render_height = render::kTaxiHeight;
    spec.render_width = render::kTaxiWidth;
    spec.render_fps = 4;  // TaxiEnv.metadata
    return spec;
  }

  explicit Taxi(const Config& config)
      : is_rainy_(config.Get<bool>("is_rainy")),
        fickle_passenger_(config.Get<bool>("fickle_passenger")),
        rainy_probability_(config.Get<double>("rainy_probability")),
        rainy_lateral_probability_((1.0 - rainy_probability_) / 2.0),
        fickle_probability_(config.Get<double>("fickle_probability")) {
    CheckConfig(config);
  }

  void Reset(Rng& rng, Output& out) override {
    static const std::vector<double> initial_sums = InitialRunningSums();
    s_ = static_cast<int64_t>(CategoricalSampleCdf(rng, initial_sums));
    fickle_step_ = fickle_passenger_ && rng.Uniform() < fickle_probability_;
    orientation_ = 0;
    Write(out, 1.0);
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    if (a <= 3) orientation_ = a;  // rendering only: the taxi faces its last move action
    const int row = Row(s_), col = Col(s_), pass = Pass(s_), dest = Dest(s_);
    struct Entry {
      double p;
      int64_t s;
      double r;
      bool t;
    } entries[3];
    int n = 1;
    if (!is_rainy_) {
      int new_row = row, new_col = col, new_pass = pass;
      double reward = -1.0;
      bool terminated = false;
      if (a == 0) {
        new_row = std::min(row + 1, kMax);
      } else if (a == 1) {
        new_row = std::max(row - 1, 0);
      } else if (a == 2) {
        if (EastOpen(row, col)) new_col = std::min(col + 1, kMax);
      } else if (a == 3) {
        if (WestOpen(row, col)) new_col = std::max(col - 1, 0);
      } else if (a == 4) {
        Pickup(row, col, &new_pass, &reward);
      } else {
        Dropoff(row, col, dest, &new_pass, &reward, &terminated);
      }
      entries[0] = {1.0, Encode(new_row, new_col, new_pass, dest), reward, terminated};
    } else if (a <= 3) {
      // Heading, then its left and right (gymnasium's `moves` table).
      static constexpr int kMoves[4][3][2] = {
          {{1, 0}, {0, 1}, {0, -1}},   // south: left = east, right = west
          {{-1, 0}, {0, -1}, {0, 1}},  // north: left = west, right = east
          {{0, 1}, {-1, 0}, {1, 0}},   // east: left = north, right = south
          {{0, -1}, {1, 0}, {-1, 0}},  // west: left = south, right = north
      };
      const bool possible = (a == 0 && row < kMax) || (a == 1 && row > 0) || (a == 2 && EastOpen(row, col)) ||
                            (a == 3 && WestOpen(row, col));
      int pos[3][2] = {{row, col}, {row, col}, {row, col}};  // forward, left, right
      if (possible) {
        pos[0][0] = std::clamp(row + kMoves[a][0][0], 0, kMax);
        pos[0][1] = std::clamp(col + kMoves[a][0][1], 0, kMax);
        for (int k = 1; k < 3; ++k) SideMove(row, col, kMoves[a][k][0], kMoves[a][k][1], pos[k]);
      }
      const double probs[3] = {rainy_probability_, rainy_lateral_probability_, rainy_lateral_probability_};
      for (int k = 0; k < 3; ++k) entries[k] = {probs[k], Encode(pos[k][0], pos[k][1], pass, dest), -1.0, false};
      n = 3;
    } else {
      int new_pass = pass;
      double reward = -1.0;
      bool terminated = false;
      if (a == 4) {
        Pickup(row, col, &new_pass, &reward);
      } else {
        Dropoff(row, col, dest, &new_pass, &reward, &terminated);
      }
      entries[0] = {1.0, Encode(row, col, new_pass, dest), reward, terminated};
    }

    double probs[3];
    for (int k = 0; k < n; ++k) probs[k] = entries[k].p;
    const Entry& e = entries[CategoricalSample(rng, probs, static_cast<std::size_t>(n))];
    int64_t next = e.s;
    if (fickle_passenger_ && fickle_step_ && pass == 4 && (Row(next) != row || Col(next) != col)) {
      fickle_step_ = false;
      const int d = static_cast<int>(rng.Below(3));  // uniform among the other destinations
      next = Encode(Row(next), Col(next), Pass(next), d < dest ? d : d + 1);
    }
    s_ = next;
    out.reward() = e.r;
    out.terminated() = e.t;
    Write(out, e.p);
  }

  // gymnasium's TaxiEnv.render() (rgb_array): see render/taxi.h. gymnasium turns the taxi
  // to the last move action when it renders; here it turns at every move (the same frames when
  // every step is rendered).
  void Render(uint8_t* rgb) const override {
    render::DrawTaxi(rgb, Row(s_), Col(s_), Pass(s_), Dest(s_), orientation_);
  }

  std::vector<double> GetState() const override { return {static_cast<double>(s_), fickle_step_ ? 1.0 : 0.0}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 2);
    if (!(state[0] >= 0 && state[0] < kNumStates && state[0] == std::floor(state[0]))) {
      throw std::invalid_argument("Taxi: state[0] (s) must be an integer in [0, 500), got " + std::to_string(state[0]));
    }
    if (state[1] != 0.0 && state[1] != 1.0) {
      throw std::invalid_argument("Taxi: state[1] (fickle_step) must be 0 or 1, got " + std::to_string(state[1]));
    }
    s_ = static_cast<int64_t>(state[0]);
    fickle_step_ = state[1] != 0.0;
  }

 private:
  static constexpr int kNumStates = 500;
  static constexpr int kMax = 4;  // last row / column
  static constexpr const char* kMap[7] = {
      "+---------+", "|R: | : :G|", "| : | : : |", "| : : : : |", "| | : | : |", "|Y| : |B: |", "+---------+",
  };
  static constexpr int kLocs[4][2] = {{0, 0}, {0, 4}, {4, 0}, {4, 3}};

  static void CheckConfig(const Config& config) {
    for (const char* key : {"rainy_probability", "fickle_probability"}) {
      const double p = config.Get<double>(key);
      if (!(p >= 0.0 && p <= 1.0)) {
        throw std::invalid_argument(std::string("Taxi: ") + key + " must be in [0, 1], got " + std::to_string(p));
      }
    }
  }

  // numpy's cumsum of gymnasium's initial_state_distrib: 1/300 on every state whose passenger
  // waits at a stand other than the destination, 0 elsewhere.
  static std::vector<double> InitialRunningSums() {
    std::vector<double> probs(kNumStates, 0.0);
    double total = 0.0;  // 300: a whole number, so summed exactly in any order
    for (int s = 0; s < kNumStates; ++s) {
      if (Pass(s) < 4 && Pass(s) != Dest(s)) {
        probs[static_cast<std::size_t>(s)] = 1.0;
        total += 1.0;
      }
    }
    for (double& p : probs) p /= total;
    return RunningSums(probs);
  }

  static int64_t Encode(int row, int col, int pass, int dest) { return ((row * 5 + col) * 5 + pass) * 4 + dest; }
  static int Dest(int64_t s) { return static_cast<int>(s % 4); }
  static int Pass(int64_t s) { return static_cast<int>(s / 4 % 5); }
  static int Col(int64_t s) { return static_cast<int>(s / 20 % 5); }
  static int Row(int64_t s) { return static_cast<int>(s / 100); }

  static bool EastOpen(int row, int col) { return kMap[1 + row][2 * col + 2] == ':'; }
  static bool WestOpen(int row, int col) { return kMap[1 + row][2 * col] == ':'; }
  static int StandAt(int row, int col) {
    for (int i = 0; i < 4; ++i) {
      if (kLocs[i][0] == row && kLocs[i][1] == col) return i;
    }
    return -1;
  }

  // gymnasium's _calc_new_position: clamp to the grid, then stay put if a wall is in the way.
  static void SideMove(int row, int col, int dr, int dc, int* pos) {
    const int new_row = std::clamp(row + dr, 0, kMax), new_col = std::clamp(col + dc, 0, kMax);
    if ((dc == 1 && kMap[1 + new_row][2 * new_col] != ':') || (dc == -1 && kMap[1 + new_row][2 * new_col + 2] != ':')) {
      pos[0] = row;
      pos[1] = col;
      return;
    }
    pos[0] = new_row;
    pos[1] = new_col;
  }

  static void Pickup(int row, int col, int* pass, double* reward) {
    if (*pass < 4 && StandAt(row, col) == *pass) {
      *pass = 4;
    } else {
      *reward = -10.0;
    }
  }

  static void Dropoff(int row, int col, int dest, int* pass, double* reward, bool* terminated) {
    const int stand = StandAt(row, col);
    if (*pass == 4 && stand == dest) {
      *pass = dest;
      *terminated = true;
      *reward = 20.0;
    } else if (*pass == 4 && stand >= 0) {
      *pass = stand;
    } else {
      *reward = -10.0;
    }
  }

  void Write(Output& out, double prob) const {
    out.Obs<int64_t>()[0] = s_;
    *out.Info<double>(0) = prob;
    int8_t* mask = out.Info<int8_t>(1);
    const int row = Row(s_), col = Col(s_), pass = Pass(s_);
    const int stand = StandAt(row, col);
    mask[0] = row < kMax;
    mask[1] = row > 0;
    mask[2] = col < kMax && EastOpen(row, col);
    mask[3] = col > 0 && WestOpen(row, col);
    mask[4] = pass < 4 && stand == pass;
    mask[5] = pass == 4 && stand >= 0;
  }

  bool is_rainy_, fickle_passenger_;
  double rainy_probability_, rainy_lateral_probability_, fickle_probability_;
  int64_t s_ = 0;
  bool fickle_step_ = false;
  int orientation_ = 0;  // rendering only: 0 south, 1 north, 2 east, 3 west
};

}  // namespace envpool::toy_text
