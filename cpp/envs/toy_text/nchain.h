// NChain-v0: gym's NChainEnv (gym/envs/toy_text/nchain.py, gym 0.19, the last gym that has it;
// Strens 2000, section 6.1), the reference EnvPool's NChain-v0, with gym's kwargs n, slip, small
// and large.
//
// A chain of n states, starting at 0. Action 0 moves one state forward and pays 0, or, at the
// last state, stays and pays `large`; action 1 goes back to state 0 and pays `small`. With
// probability `slip` the other action is taken. The episode never terminates; gym registered a
// time limit of 1000 steps.
//
// Randomness (docs/seeding.md): one np_random.random() per step, compared with slip (gym 0.19
// draws np_random.rand() from its RandomState; here the generator is gymnasium's, as for every
// toy-text env); nothing at reset.
//
// State (get_state / set_state): [state], gym's env.state.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/toy_text/render/nchain.h"

namespace envpool::toy_text {

class NChain : public Env {
 public:
  static Config DefaultConfig() { return {{"n", int64_t{5}}, {"slip", 0.2}, {"small", 2.0}, {"large", 10.0}}; }

  static EnvSpec Spec(const Config& config) {
    const int n = Length(config);
    EnvSpec spec{{ArraySpec::Discrete("obs", n)}, {ArraySpec::Discrete("action", 2)}, {}};
    spec.render_height = render::kNChainCell;
    spec.render_width = n * render::kNChainCell;
    return spec;  // render_fps 0: gym 0.19's NChainEnv declares no frame rate (it draws no frames)
  }

  explicit NChain(const Config& config)
      : n_(Length(config)),
        slip_(config.Get<double>("slip")),
        small_(config.Get<double>("small")),
        large_(config.Get<double>("large")) {
    if (!(slip_ >= 0.0 && slip_ <= 1.0)) {
      throw std::invalid_argument("NChain: slip must be in [0, 1], got " + std::to_string(slip_));
    }
  }

  void Reset(Rng& /*rng*/, Output& out) override {
    state_ = 0;
    out.Obs<int64_t>()[0] = state_;
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    bool back = action.Get<int64_t>()[0] != 0;
    if (rng.Uniform() < slip_) back = !back;  // the agent slipped: the other action is taken
    double reward = 0.0;
    if (back) {
      reward = small_;
      state_ = 0;
    } else if (state_ < n_ - 1) {
      ++state_;
    } else {
      reward = large_;
    }
    out.Obs<int64_t>()[0] = state_;
    out.reward() = reward;
    out.terminated() = false;
  }

  void Render(uint8_t* rgb) const override { render::DrawNChain(rgb, n_, state_); }

  std::vector<double> GetState() const override { return {static_cast<double>(state_)}; }
  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, 1);
    if (!(state[0] >= 0 && state[0] < n_ && state[0] == std::floor(state[0]))) {
      throw std::invalid_argument("NChain: state must be an integer in [0, " + std::to_string(n_) + "), got " +
                                  std::to_string(state[0]));
    }
    state_ = static_cast<int64_t>(state[0]);
  }

 private:
  // n is refused when the pool is made unless in [1, 64] (a frame shows every state).
  static int Length(const Config& config) {
    const int64_t n = config.Get<int64_t>("n");
    if (n < 1 || n > 64) throw std::invalid_argument("NChain: n must be in [1, 64], got " + std::to_string(n));
    return static_cast<int>(n);
  }

  int n_;
  double slip_, small_, large_;
  int64_t state_ = 0;
};

}  // namespace envpool::toy_text
