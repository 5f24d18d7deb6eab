// CliffWalking-v1 / CliffWalkingSlippery-v1: gymnasium.envs.toy_text.CliffWalkingEnv
// (Sutton & Barto, Example 6.6).
//
// A 4 x 12 grid; state / observation row * 12 + col; the episode starts at (3, 0) = 36 and ends
// on entering the goal (3, 11) = 47. Actions: 0 up, 1 right, 2 down, 3 left (clamped to the
// grid). Every step costs -1; stepping onto the cliff (3, 1..10) costs -100 and puts the player
// back on the start tile without ending the episode. With is_slippery the move actually made
// is (a - 1) % 4, a or (a + 1) % 4, each with probability 1/3, drawn as gymnasium's
// categorical_sample does; info["prob"] is the chosen entry's probability (1 or 1/3).
// Transitions are computed on the fly from the same rules gymnasium tabulates in env.P, for
// every state 0..47 (also cliff and goal tiles, reachable only through set_state).
// Randomness (docs/seeding.md): like gymnasium, reset and every step draw one
// np_random.random() each (categorical_sample), slippery or not.
// gymnasium registers no time limit for either id.
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
#include "envs/toy_text/render/cliff_walking.h"

namespace envpool::toy_text {

class CliffWalking : public Env {
 public:
  static Config DefaultConfig() { return {{"is_slippery", false}}; }

  static EnvSpec Spec(const Config& /*config*/) {
    EnvSpec spec{{ArraySpec::Discrete("obs", kRows * kCols)},
                 {ArraySpec::Discrete("action", 4)},
                 {ArraySpec::Box("prob", DType::kFloat64, {}, {0.0}, {1.0})}};
    spec.render_height = render::kCliffWalkingHeight;
    spec.render_width = render::kCliffWalkingWidth;
    spec.render_fps = 4;  // CliffWalkingEnv.metadata
    return spec;
  }

  explicit CliffWalking(const Config& config) : is_slippery_(config.Get<bool>("is_slippery")) {}

  void Reset(Rng& rng, Output& out) override {
    rng.Uniform();  // categorical_sample over the one-hot initial distribution: always the start
    s_ = kStart;
    out.Obs<int64_t>()[0] = s_;
    *out.Info<double>(0) = 1.0;
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    int move = a;
    double prob = 1.0;
    if (is_slippery_) {
      // Three equally likely entries (a - 1) % 4, a, (a + 1) % 4; gymnasium's probability is
      // 1 / len(deltas).
      const double p = 1.0 / 3;
      const double probs[3] = {p, p, p};
      move = (a + static_cast<int>(CategoricalSample(rng, probs, 3)) + 3) % 4;
      prob = p;
    } else {
      rng.Uniform();  // categorical_sample over the single entry
    }
    int row = static_cast<int>(s_ / kCols), col = static_cast<int>(s_ % kCols);
    row = std::min(std::max(row + kDeltaRow[move], 0), kRows - 1);
    col = std::min(std::max(col + kDeltaCol[move], 0), kCols - 1);
    double reward = -1.0;
    bool terminated = false;
    if (row == kRows - 1 && col >= 1 && col <= kCols - 2) {  // the cliff
      s_ = kStart;
      reward = -100.0;
    } else {
      s_ = static_cast<int64_t>(row) * kCols + col;
      terminated = row == kRows - 1 && col == kCols - 1;
    }
    out.Obs<int64_t>()[0] = s_;
    out.reward() = reward;
    out.terminated() = terminated;
    *out.Info<double>(0) = prob;
  }

  // gymnasium's CliffWalkingEnv.render() (rgb_array): see render/cliff_walking.h.
  void Render(uint8_t* rgb) const override { render::DrawCliffWalking(rgb, s_); }

  std::vector<double> GetState() const override { return {static_cast<double>(s_)}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 1);
    if (!(state[0] >= 0 && state[0] < kRows * kCols && state[0] == std::floor(state[0]))) {
      throw std::invalid_argument("CliffWalking: state must be an integer in [0, 48), got " + std::to_string(state[0]));
    }
    s_ = static_cast<int64_t>(state[0]);
  }

 private:
  static constexpr int kRows = 4;
  static constexpr int kCols = 12;
  static constexpr int64_t kStart = 36;  // (3, 0)
  // up, right, down, left
  static constexpr int kDeltaRow[4] = {-1, 0, 1, 0};
  static constexpr int kDeltaCol[4] = {0, 1, 0, -1};

  bool is_slippery_;
  int64_t s_ = kStart;
};

}  // namespace envpool::toy_text
