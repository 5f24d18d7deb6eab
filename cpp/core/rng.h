// Per-env random number generator: xoshiro256** seeded through splitmix64.
//
// Each env owns one, seeded from (seed + env_id) as gymnasium's vector envs do, so a
// trajectory depends only on the seed and the env id, never on which thread stepped it.
// We implement the distributions ourselves (std:: distributions differ between standard
// libraries) so the same seed gives the same numbers on every platform.
#pragma once

#include <cmath>
#include <cstdint>

namespace envpool {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { Seed(seed); }

  void Seed(uint64_t seed) {
    uint64_t x = seed;
    for (auto& s : state_) s = SplitMix64(&x);
    has_spare_normal_ = false;
  }

  uint64_t NextU64() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  // Uniform in [low, high).
  double Uniform(double low, double high) { return low + (high - low) * Uniform(); }

  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift with rejection: unbiased).
  uint64_t Below(uint64_t n) {
    __uint128_t m = static_cast<__uint128_t>(NextU64()) * n;
    auto low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = -n % n;
      while (low < threshold) {
        m = static_cast<__uint128_t>(NextU64()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Standard normal (Marsaglia polar method; the second value is kept for the next call).
  double Normal() {
    if (has_spare_normal_) {
      has_spare_normal_ = false;
      return spare_normal_;
    }
    double u, v, s;
    do {
      u = Uniform(-1.0, 1.0);
      v = Uniform(-1.0, 1.0);
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double scale = std::sqrt(-2.0 * std::log(s) / s);
    spare_normal_ = v * scale;
    has_spare_normal_ = true;
    return u * scale;
  }
  double Normal(double mean, double stddev) { return mean + stddev * Normal(); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix64(uint64_t* x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  uint64_t state_[4];
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

}  // namespace envpool
