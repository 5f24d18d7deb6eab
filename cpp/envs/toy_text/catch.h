// Catch-v0: bsuite's Catch (bsuite.environments.catch.Catch, bsuite 0.3.6), the reference
// EnvPool's Catch-v0: a `height` x `width` board (bsuite's rows x columns, 10 x 5).
//
// A ball starts in a random column of the top row and falls one row per step; the agent moves a
// paddle along the bottom row (actions 0 left, 1 stay, 2 right, bsuite's _ACTIONS -1, 0, +1,
// clipped to the board). When the ball reaches the bottom row the episode terminates with reward
// +1 if the paddle is under it, else -1; every other step gives 0. bsuite sets no time limit.
//
//   observation  float32 (height, width): 1 at the ball and at the paddle, else 0
//   action       Discrete(3)
//
// Randomness: bsuite draws the ball's column with `np.random.RandomState(seed).randint(columns)`
// at each reset, so env i keeps a RandomState of its own (core/legacy_random.h) seeded with its
// seed (seed + i; reset(seed=s) reseeds it with s) modulo 2**32, and env i of a pool seeded with
// s follows bsuite's Catch(seed=s + i) episode for episode. The pool's Rng is not used.
//
// State (get_state / set_state): [ball_x, ball_y, paddle_x], bsuite's _ball_x (column), _ball_y
// (row) and _paddle_x.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/legacy_random.h"
#include "envs/toy_text/render/catch.h"

namespace envpool::toy_text {

class Catch : public Env {
 public:
  static Config DefaultConfig() { return {{"height", int64_t{10}}, {"width", int64_t{5}}}; }

  static EnvSpec Spec(const Config& config) {
    const auto [rows, cols] = Size(config);
    EnvSpec spec{
        {ArraySpec::Box("obs", DType::kFloat32, {rows, cols}, {0.0}, {1.0})}, {ArraySpec::Discrete("action", 3)}, {}};
    spec.render_height = rows * render::kCatchCell;
    spec.render_width = cols * render::kCatchCell;
    return spec;  // render_fps 0: bsuite declares no frame rate (it draws no frames)
  }

  explicit Catch(const Config& config) {
    const auto [rows, cols] = Size(config);
    rows_ = rows;
    cols_ = cols;
  }

  void Seed(uint64_t seed) override { random_.Seed(static_cast<uint32_t>(seed)); }

  void Reset(Rng& /*rng*/, Output& out) override {
    ball_x_ = static_cast<int>(random_.Below(static_cast<uint64_t>(cols_)));  // randint(columns)
    ball_y_ = 0;
    paddle_x_ = cols_ / 2;
    Write(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    // The pool has checked the action is 0, 1 or 2: bsuite's dx = _ACTIONS[action].
    paddle_x_ = std::clamp(paddle_x_ + static_cast<int>(action.Get<int64_t>()[0]) - 1, 0, cols_ - 1);
    ++ball_y_;
    const bool landed = ball_y_ == rows_ - 1;
    out.reward() = landed ? (paddle_x_ == ball_x_ ? 1.0 : -1.0) : 0.0;
    out.terminated() = landed;
    Write(out);
  }

  void Render(uint8_t* rgb) const override { render::DrawCatch(rgb, rows_, cols_, ball_x_, ball_y_, paddle_x_); }

  std::vector<double> GetState() const override {
    return {static_cast<double>(ball_x_), static_cast<double>(ball_y_), static_cast<double>(paddle_x_)};
  }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 3);
    auto cell = [](double v, int limit) { return v >= 0 && v < limit && v == std::floor(v); };
    if (!cell(state[0], cols_) || !cell(state[1], rows_ - 1) || !cell(state[2], cols_)) {
      throw std::invalid_argument(
          "Catch: state [ball_x, ball_y, paddle_x] must be integers with ball_x, paddle_x in [0, " +
          std::to_string(cols_) + ") and ball_y in [0, " + std::to_string(rows_ - 1) + ") (above the bottom row)");
    }
    ball_x_ = static_cast<int>(state[0]);
    ball_y_ = static_cast<int>(state[1]);
    paddle_x_ = static_cast<int>(state[2]);
  }

 private:
  // Bad sizes are refused when the pool is made (a ValueError naming them): the ball must start
  // above the paddle's row, and a frame is at most 256 cells each way.
  static std::pair<int, int> Size(const Config& config) {
    const int64_t rows = config.Get<int64_t>("height"), cols = config.Get<int64_t>("width");
    if (rows < 2 || rows > 256 || cols < 1 || cols > 256) {
      throw std::invalid_argument("Catch: height must be in [2, 256] and width in [1, 256], got height=" +
                                  std::to_string(rows) + " width=" + std::to_string(cols));
    }
    return {static_cast<int>(rows), static_cast<int>(cols)};
  }

  // bsuite's _observation(): the board with the ball and the paddle set to 1.
  void Write(Output& out) const {
    float* obs = out.Obs<float>();
    std::fill(obs, obs + static_cast<std::ptrdiff_t>(rows_) * cols_, 0.0f);
    obs[ball_y_ * cols_ + ball_x_] = 1.0f;
    obs[(rows_ - 1) * cols_ + paddle_x_] = 1.0f;
  }

  int rows_ = 0, cols_ = 0;
  int ball_x_ = 0, ball_y_ = 0, paddle_x_ = 0;
  LegacyRandomState random_;
};

}  // namespace envpool::toy_text
