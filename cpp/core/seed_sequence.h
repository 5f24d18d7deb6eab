// numpy's SeedSequence (numpy.random.SeedSequence) for an integer seed: how numpy turns a seed
// into the initial state of a bit generator.
//
// gymnasium seeds every env with np_random(seed) = Generator(PCG64(SeedSequence(seed))), so
// reproducing this mixing exactly is what makes an env seeded with s draw the numbers gymnasium's
// env seeded with s draws. The algorithm (Melissa O'Neill's seed_seq_fe with numpy's constants):
//   1. the seed becomes 32-bit words, lowest first (0 is one word 0, 2**32 is [0, 1]);
//   2. the words are hashed into a pool of 4 words, each pool word then mixed with every other,
//      and words beyond the fourth mixed into every pool word;
//   3. generate_state(n) hashes the pool, cycled, into n 32-bit output words; uint64 output
//      words are pairs of those, the first as the low half.
// Only what seeding from one integer needs is here (no spawn keys, the default pool size 4).
//
// Part of the installed SDK (included by core/rng.h): standard headers only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace envpool {

class SeedSequence {
 public:
  static constexpr std::size_t kPoolSize = 4;

  // SeedSequence(seed) for a non-negative integer seed below 2**64.
  explicit SeedSequence(uint64_t seed) {
    std::array<uint32_t, 2> words{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    MixEntropy(words.data(), words[1] != 0 ? 2 : 1);
  }

  // generate_state(N, np.uint64): N 64-bit words.
  template <std::size_t N>
  std::array<uint64_t, N> GenerateState64() const {
    std::array<uint64_t, N> out{};
    uint32_t hash_const = kInitB;
    for (std::size_t i = 0; i < 2 * N; ++i) {
      uint32_t value = pool_[i % kPoolSize] ^ hash_const;
      hash_const *= kMultB;
      value *= hash_const;
      value ^= value >> kXShift;
      out[i / 2] |= static_cast<uint64_t>(value) << (i % 2 == 0 ? 0 : 32);
    }
    return out;
  }

  const std::array<uint32_t, kPoolSize>& pool() const { return pool_; }

 private:
  static constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875;
  static constexpr uint32_t kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
  static constexpr uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
  static constexpr int kXShift = 16;

  // The hash advances its multiplier on every call (numpy's hashmix with hash_const in/out).
  static uint32_t HashMix(uint32_t value, uint32_t* hash_const) {
    value ^= *hash_const;
    *hash_const *= kMultA;
    value *= *hash_const;
    return value ^ (value >> kXShift);
  }
  static uint32_t Mix(uint32_t x, uint32_t y) {
    const uint32_t result = kMixMultL * x - kMixMultR * y;
    return result ^ (result >> kXShift);
  }

  void MixEntropy(const uint32_t* entropy, std::size_t n) {
    uint32_t hash_const = kInitA;
    for (std::size_t i = 0; i < kPoolSize; ++i) pool_[i] = HashMix(i < n ? entropy[i] : 0u, &hash_const);
    for (std::size_t src = 0; src < kPoolSize; ++src) {
      for (std::size_t dst = 0; dst < kPoolSize; ++dst) {
        if (src != dst) pool_[dst] = Mix(pool_[dst], HashMix(pool_[src], &hash_const));
      }
    }
    for (std::size_t src = kPoolSize; src < n; ++src) {
      for (std::size_t dst = 0; dst < kPoolSize; ++dst)
        pool_[dst] = Mix(pool_[dst], HashMix(entropy[src], &hash_const));
    }
  }

  std::array<uint32_t, kPoolSize> pool_{};
};

}  // namespace envpool
