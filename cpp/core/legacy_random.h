// numpy's legacy generator, numpy.random.RandomState, bit for bit.
//
// dm_control's suite draws every random number of a task from a RandomState (MT19937 with
// numpy's "legacy" distributions), so a native task that makes the same calls in the same order
// gets the same numbers as dm_control's task built with `random=seed`. Only what the suite uses
// is here: seeding with an integer, random_sample / rand / uniform, randn / standard_normal /
// normal (the polar Box-Muller method with its cached second value), and randint / choice of
// n items (masked rejection sampling on 32- or 64-bit draws).
//
// Part of the installed SDK: standard headers only.
#pragma once

#include <cmath>
#include <cstdint>

namespace envpool {

class LegacyRandomState {
 public:
  explicit LegacyRandomState(uint32_t seed = 0) { Seed(seed); }

  // RandomState(seed) for an integer seed in [0, 2**32): MT19937's init_genrand (numpy's
  // mt19937_seed), and the cached normal dropped.
  void Seed(uint32_t seed) {
    uint32_t s = seed;
    for (int i = 0; i < kN; ++i) {
      key_[i] = s;
      s = 1812433253u * (s ^ (s >> 30)) + static_cast<uint32_t>(i) + 1u;
    }
    pos_ = kN;
    has_gauss_ = false;
    gauss_ = 0.0;
  }

  // One 32-bit MT19937 output.
  uint32_t NextU32() {
    if (pos_ >= kN) Generate();
    uint32_t y = key_[pos_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }
  // numpy's 64-bit draw from MT19937: two 32-bit outputs, the first the high half.
  uint64_t NextU64() {
    const uint64_t high = NextU32();
    return (high << 32) | NextU32();
  }

  // random_sample() / rand(): 53 random bits from two 32-bit outputs (27 + 26 bits).
  double Uniform() {
    const int32_t a = static_cast<int32_t>(NextU32() >> 5);
    const int32_t b = static_cast<int32_t>(NextU32() >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }
  // uniform(low, high): low + (high - low) * random_sample(); uniform(low, high, n) is n calls.
  double Uniform(double low, double high) {
    const double range = high - low;
    return low + range * Uniform();
  }

  // standard_normal() / randn(): the polar method; each accepted pair gives two values, the
  // second kept for the next call (RandomState's has_gauss / gauss).
  double Normal() {
    if (has_gauss_) {
      has_gauss_ = false;
      const double g = gauss_;
      gauss_ = 0.0;
      return g;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * Uniform() - 1.0;
      x2 = 2.0 * Uniform() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss_ = f * x1;
    has_gauss_ = true;
    return f * x2;
  }
  // normal(loc, scale) = loc + scale * standard_normal().
  double Normal(double loc, double scale) { return loc + scale * Normal(); }

  // randint(0, n) (int64 dtype) and choice(n) for n >= 1: a draw masked to the smallest
  // all-ones mask covering n - 1, rejected until it is <= n - 1; on 32-bit draws when n - 1
  // fits in 32 bits. n = 1 draws nothing.
  uint64_t Below(uint64_t n) {
    if (n <= 1) return 0;
    const uint64_t max = n - 1;
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    if (max <= 0xFFFFFFFFull) {
      if (max == 0xFFFFFFFFull) return NextU32();
      const auto mask32 = static_cast<uint32_t>(mask);
      uint32_t v;
      while ((v = NextU32() & mask32) > max) {
      }
      return v;
    }
    uint64_t v;
    while ((v = NextU64() & mask) > max) {
    }
    return v;
  }

 private:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  // MT19937's state refill (numpy's mt19937_gen).
  void Generate() {
    constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrix = 0x9908b0dfu;
    int i = 0;
    for (; i < kN - kM; ++i) {
      const uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + kM] ^ (y >> 1) ^ ((~(y & 1u) + 1u) & kMatrix);
    }
    for (; i < kN - 1; ++i) {
      const uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + (kM - kN)] ^ (y >> 1) ^ ((~(y & 1u) + 1u) & kMatrix);
    }
    const uint32_t y = (key_[kN - 1] & kUpper) | (key_[0] & kLower);
    key_[kN - 1] = key_[kM - 1] ^ (y >> 1) ^ ((~(y & 1u) + 1u) & kMatrix);
    pos_ = 0;
  }

  uint32_t key_[kN];
  int pos_ = kN;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace envpool
