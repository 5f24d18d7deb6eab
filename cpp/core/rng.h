// Per-env random number generator: numpy's default generator, bit for bit.
//
// Rng(seed) draws exactly what numpy.random.Generator(numpy.random.PCG64(seed)) draws, i.e.
// what gymnasium's np_random(seed) (= np.random.default_rng(seed)) gives an env seeded with
// `seed`: numpy's SeedSequence mixing, its PCG64 (core/pcg64.h) and its algorithms for each
// distribution below. Each env of a pool owns one, seeded with seed + env_id as gymnasium's
// vector envs seed their sub-envs, so env i of a pool draws the stream gymnasium's env i draws
// and a trajectory depends only on the seed and the env id, never on which thread stepped it.
// An env that makes the same distribution calls in the same order as its gymnasium twin
// therefore gets the same numbers; docs/seeding.md lists the calls of every built-in env.
// The distributions are implemented here, not taken from the standard library (std::
// distributions differ between standard libraries); exp / log1p come from the C library, as
// numpy's do.
//
// Part of the installed SDK: standard headers and core/ only. Plugins share this class with
// the core (an env's Reset / Step get it by reference), so its layout is part of the ABI.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/pcg64.h"
#include "core/ziggurat_tables.h"

namespace envpool {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { Seed(seed); }

  // Restart as np.random.default_rng(seed).
  void Seed(uint64_t seed) {
    bits_.Seed(seed);
    seed_ = seed;
  }
  // The seed of the last Seed() (draws since then do not change it).
  uint64_t seed() const { return seed_; }

  // bit_generator.random_raw() / numpy's 32-bit draw (see core/pcg64.h).
  uint64_t NextU64() { return bits_.NextU64(); }
  uint32_t NextU32() { return bits_.NextU32(); }

  // Generator.random(): uniform in [0, 1) with 53 random bits.
  double Uniform() { return bits_.NextDouble(); }
  // Generator.uniform(low, high): low + (high - low) * random(), rounded as numpy rounds it
  // (no fused multiply-add). For uniform(low, high, size=n) call it n times.
  double Uniform(double low, double high) {
    const double range = high - low;
    return low + range * bits_.NextDouble();
  }

  // Generator.integers(n) = integers(0, n) for n >= 1 (also what choice() of an n-element
  // sequence draws): Lemire's multiply-shift with rejection, on one 32-bit draw when n - 1 fits
  // in 32 bits, else on 64-bit draws. n = 1 draws nothing (numpy too); n = 0 returns 0.
  uint64_t Below(uint64_t n) {
    if (n <= 1) return 0;
    const uint64_t max = n - 1;
    if (max == 0xFFFFFFFFull) return bits_.NextU32();
    if (max < 0xFFFFFFFFull) {
      const auto bound = static_cast<uint32_t>(n);
      uint64_t m = static_cast<uint64_t>(bits_.NextU32()) * bound;
      auto low = static_cast<uint32_t>(m);
      if (low < bound) {
        const uint32_t threshold = static_cast<uint32_t>(-bound) % bound;  // 2**32 mod n
        while (low < threshold) {
          m = static_cast<uint64_t>(bits_.NextU32()) * bound;
          low = static_cast<uint32_t>(m);
        }
      }
      return m >> 32;
    }
    __uint128_t m = static_cast<__uint128_t>(bits_.NextU64()) * n;
    auto low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;  // 2**64 mod n
      while (low < threshold) {
        m = static_cast<__uint128_t>(bits_.NextU64()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Generator.standard_normal(): numpy's 256-layer ziggurat (core/ziggurat_tables.h). One
  // 64-bit draw gives the layer (low 8 bits), the sign (next bit) and a 52-bit magnitude; 99.3%
  // of draws end there, the rest go through the wedge test or, in layer 0, the tail.
  double Normal() {
    using namespace ziggurat;
    for (;;) {
      uint64_t r = bits_.NextU64();
      const auto layer = static_cast<int>(r & 0xff);
      r >>= 8;
      const bool negative = (r & 1) != 0;
      const uint64_t magnitude = (r >> 1) & 0x000fffffffffffffull;
      double x = static_cast<double>(magnitude) * kNormalW[layer];
      if (negative) x = -x;
      if (magnitude < kNormalK[layer]) return x;
      if (layer == 0) {
        for (;;) {  // the tail beyond kNormalR (Marsaglia's method, with 1 - U to avoid log(0))
          const double xx = -kNormalInvR * std::log1p(-bits_.NextDouble());
          const double yy = -std::log1p(-bits_.NextDouble());
          if (yy + yy > xx * xx) return ((magnitude >> 8) & 1) != 0 ? -(kNormalR + xx) : kNormalR + xx;
        }
      }
      if ((kNormalF[layer - 1] - kNormalF[layer]) * bits_.NextDouble() + kNormalF[layer] < std::exp(-0.5 * x * x)) {
        return x;
      }
    }
  }
  // Generator.normal(mean, stddev) = mean + stddev * standard_normal().
  double Normal(double mean, double stddev) { return mean + stddev * Normal(); }

  const Pcg64& bit_generator() const { return bits_; }

 private:
  Pcg64 bits_;
  uint64_t seed_ = 0;
};

}  // namespace envpool
