// mysim.Catch-v0: the whole C++ side of the `mysim` envpool plugin (one file, see ../README.md).
//
// A ball falls one row per step from a random column at the top of a `rows` x `cols` grid; the
// agent moves a paddle along the bottom row (0: left, 1: stay, 2: right). The episode ends when
// the ball reaches the bottom row: reward +1 if the paddle is under it, -1 otherwise.
//
//   observation  float32 (rows, cols): 1 where the ball and the paddle are, else 0
//   action       Discrete(3)
//   info         "ball_col" (int64): the column the ball falls in
//   render       rgb frames of rows*16 x cols*16 pixels
//
// mysim/twin.py is the same game in pure Python (the tests check they agree step for step).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/plugin.h"
#include "render/canvas.h"

namespace mysim {

using namespace envpool;

class Catch : public Env {
 public:
  static constexpr int kCell = 16;  // pixels per grid cell in Render

  static Config DefaultConfig() { return {{"rows", int64_t{10}}, {"cols", int64_t{5}}}; }

  static EnvSpec Spec(const Config& config) {
    const auto [rows, cols] = Size(config);
    EnvSpec spec{{ArraySpec::Box("obs", DType::kFloat32, {rows, cols}, {0.0}, {1.0})},
                 {ArraySpec::Discrete("action", 3)},
                 {ArraySpec::Box("ball_col", DType::kInt64, {}, {}, {})}};
    spec.render_height = rows * kCell;
    spec.render_width = cols * kCell;
    return spec;
  }

  explicit Catch(const Config& config) {
    const auto [rows, cols] = Size(config);
    rows_ = rows;
    cols_ = cols;
  }

  void Reset(Rng& rng, Output& out) override {
    ball_row_ = 0;
    ball_col_ = static_cast<int>(rng.Below(static_cast<uint64_t>(cols_)));
    paddle_col_ = cols_ / 2;
    Write(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    // The pool has checked the action is 0, 1 or 2.
    paddle_col_ = std::clamp(paddle_col_ + static_cast<int>(action.Get<int64_t>()[0]) - 1, 0, cols_ - 1);
    ++ball_row_;
    const bool landed = ball_row_ == rows_ - 1;
    out.reward() = landed ? (ball_col_ == paddle_col_ ? 1.0 : -1.0) : 0.0;
    out.terminated() = landed;
    Write(out);
  }

  void Render(uint8_t* rgb) const override {
    render::Canvas canvas(rgb, cols_ * kCell, rows_ * kCell);
    canvas.Fill({20, 20, 40});
    canvas.FillRect(ball_col_ * kCell + 2, ball_row_ * kCell + 2, kCell - 4, kCell - 4, {250, 220, 60});
    canvas.FillRect(paddle_col_ * kCell, (rows_ - 1) * kCell + kCell / 2, kCell, kCell / 2, {230, 60, 60});
  }

  // [ball_row, ball_col, paddle_col]: lets tests put the env in any state.
  std::vector<double> GetState() const override { return {double(ball_row_), double(ball_col_), double(paddle_col_)}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 3);
    const int row = static_cast<int>(state[0]), ball = static_cast<int>(state[1]), paddle = static_cast<int>(state[2]);
    if (row < 0 || row >= rows_ - 1 || ball < 0 || ball >= cols_ || paddle < 0 || paddle >= cols_) {
      throw std::invalid_argument("Catch state [ball_row, ball_col, paddle_col] out of the grid");
    }
    ball_row_ = row;
    ball_col_ = ball;
    paddle_col_ = paddle;
  }

 private:
  // Bad sizes are refused when the pool is made, with a ValueError naming them.
  static std::pair<int, int> Size(const Config& config) {
    const int64_t rows = config.Get<int64_t>("rows"), cols = config.Get<int64_t>("cols");
    if (rows < 2 || rows > 1000 || cols < 1 || cols > 1000) {
      throw std::invalid_argument("Catch: rows must be in [2, 1000] and cols in [1, 1000], got rows=" +
                                  std::to_string(rows) + " cols=" + std::to_string(cols));
    }
    return {static_cast<int>(rows), static_cast<int>(cols)};
  }

  void Write(Output& out) const {
    float* obs = out.Obs<float>();
    std::fill(obs, obs + rows_ * cols_, 0.0f);
    obs[ball_row_ * cols_ + ball_col_] = 1.0f;
    obs[(rows_ - 1) * cols_ + paddle_col_] = 1.0f;
    *out.Info<int64_t>(0) = ball_col_;
  }

  int rows_, cols_;
  int ball_row_ = 0, ball_col_ = 0, paddle_col_ = 0;
};

}  // namespace mysim

// The plugin's entry point: its tasks, registered when envpool loads the plugin.
ENVPOOL_PLUGIN("mysim") {
  registry.Add(envpool::Task<mysim::Catch>("mysim.Catch-v0", 200));
  registry.Add(envpool::Task<mysim::Catch>("mysim.CatchWide-v0", 200, NAN, {{"cols", int64_t{9}}}));
}
