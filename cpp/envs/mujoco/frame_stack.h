// The reference EnvPool's `frame_stack` kwarg of its MuJoCo gym tasks (envpool/mujoco/frame_stack.h
// there): with frame_stack = k > 1 the observation is the last k observations, shape
// (k, obs_size), oldest first; a reset fills all k with the episode's first observation, so
// the first k - 1 steps of an episode repeat it in the older slots. k = 1 (the default) is
// the plain observation, shape (obs_size,), as gymnasium's.
//
// One wrapper for every MuJoCo task: the task writes its newest observation into the first
// obs_size values of its row (the row is k times larger), then the wrapper shifts it into its
// own history and copies the history over the row. The history is allocated once, at
// construction. get_state / set_state do not touch it: a step after set_state stacks onto the
// frames seen before (the reference has no set_state).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"

namespace envpool::mujoco {

inline int FrameStackOf(const Config& config) {
  const int64_t k = config.Get<int64_t>("frame_stack");
  if (k < 1) throw std::invalid_argument("frame_stack must be >= 1, got " + std::to_string(k));
  if (k > 1024) throw std::invalid_argument("frame_stack must be <= 1024, got " + std::to_string(k));
  return static_cast<int>(k);
}

template <typename E>
class FrameStacked : public E {
 public:
  static Config DefaultConfig() {
    Config c = E::DefaultConfig();
    c.Set("frame_stack", int64_t{1});
    return c;
  }

  static EnvSpec Spec(const Config& config) {
    EnvSpec spec = E::Spec(config);
    const int k = FrameStackOf(config);
    if (k == 1) return spec;
    ArraySpec& obs = spec.obs.at(0);
    // Per-element bounds repeat once per frame; a single broadcast bound stays one.
    const auto tile = [k](std::vector<double>& bound) {
      if (bound.size() <= 1) return;
      const std::vector<double> one = bound;
      for (int i = 1; i < k; ++i) bound.insert(bound.end(), one.begin(), one.end());
    };
    tile(obs.low);
    tile(obs.high);
    obs.shape.insert(obs.shape.begin(), k);
    return spec;
  }

  explicit FrameStacked(const Config& config) : E(config), k_(FrameStackOf(config)) {
    if (k_ == 1) return;
    const auto shape = E::Spec(config).obs.at(0).shape;
    frame_ = 1;
    for (int d : shape) frame_ *= static_cast<std::size_t>(d);
    history_.resize(frame_ * static_cast<std::size_t>(k_));
  }

  void Reset(Rng& rng, Output& out) override {
    E::Reset(rng, out);
    Stack(out, true);
  }

  void Step(const Action& action, Rng& rng, Output& out) override {
    E::Step(action, rng, out);
    Stack(out, false);
  }

 private:
  void Stack(Output& out, bool reset) {
    if (k_ == 1) return;
    double* row = out.Obs<double>();
    double* newest = history_.data() + history_.size() - frame_;
    if (reset) {
      for (int i = 0; i < k_; ++i) std::copy(row, row + frame_, history_.data() + static_cast<std::size_t>(i) * frame_);
    } else {
      std::copy(history_.begin() + static_cast<std::ptrdiff_t>(frame_), history_.end(), history_.begin());
      std::copy(row, row + frame_, newest);
    }
    std::copy(history_.begin(), history_.end(), row);
  }

  int k_;
  std::size_t frame_ = 0;
  std::vector<double> history_;  // k frames, oldest first
};

}  // namespace envpool::mujoco
