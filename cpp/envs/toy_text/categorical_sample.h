// gymnasium's categorical_sample (gymnasium/envs/toy_text/utils.py), which every toy-text env
// uses for its resets and transitions:
//
//   np.argmax(np.cumsum(prob_n) > np_random.random())
//
// i.e. one uniform draw u, always (also for a single outcome of probability 1), then the first
// index whose running sum (summed left to right, as numpy's cumsum does) exceeds u, or 0 when
// none does (argmax of all-False; possible when rounding leaves the total just below 1).
// Matching this exactly, draw for draw, keeps an env's stream in step with its gymnasium twin's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/rng.h"

namespace envpool::toy_text {

inline std::size_t CategoricalSample(Rng& rng, const double* probs, std::size_t n) {
  const double u = rng.Uniform();
  double running = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    running += probs[i];
    if (running > u) return i;
  }
  return 0;
}

// numpy's cumsum of `probs`, for CategoricalSampleCdf.
inline std::vector<double> RunningSums(const std::vector<double>& probs) {
  std::vector<double> sums(probs.size());
  double running = 0.0;
  for (std::size_t i = 0; i < probs.size(); ++i) sums[i] = running += probs[i];
  return sums;
}

// The same pick from precomputed running sums (RunningSums), by binary search: for the long,
// fixed initial-state distributions of FrozenLake and Taxi.
inline std::size_t CategoricalSampleCdf(Rng& rng, const std::vector<double>& running_sums) {
  const double u = rng.Uniform();
  const auto it = std::upper_bound(running_sums.begin(), running_sums.end(), u);
  return it == running_sums.end() ? 0 : static_cast<std::size_t>(it - running_sums.begin());
}

}  // namespace envpool::toy_text
