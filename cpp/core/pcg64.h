// numpy's PCG64 bit generator (numpy.random.PCG64), seeded as numpy seeds it.
//
// PCG64 is a 128-bit linear congruential generator whose 64-bit output is the XSL-RR
// permutation of the new state (the xor of its halves, rotated right by its top 6 bits). numpy
// seeds it from SeedSequence(seed).generate_state(4, uint64) = [a, b, c, d]: initstate =
// a * 2**64 + b, initseq = c * 2**64 + d, then (pcg_setseq_128_srandom_r) inc = 2 * initseq + 1,
// state = 0, one step, state += initstate, one step. 32-bit draws come in pairs from one 64-bit
// draw, the low half first, the high half kept for the next 32-bit draw; that buffer is part
// of the generator's state (numpy's has_uint32 / uinteger) and survives 64-bit draws between.
// Doubles in [0, 1) are the top 53 bits of a 64-bit draw times 2**-53.
//
// The whole state is two 128-bit words, a flag and 32 bits: cheap to keep one per env.
//
// Part of the installed SDK (included by core/rng.h): standard headers and core/ only.
#pragma once

#include <cstdint>

#include "core/seed_sequence.h"

namespace envpool {

class Pcg64 {
 public:
  explicit Pcg64(uint64_t seed = 0) { Seed(seed); }

  // numpy.random.PCG64(seed).
  void Seed(uint64_t seed) {
    const auto words = SeedSequence(seed).GenerateState64<4>();
    const __uint128_t initstate = Join(words[0], words[1]);
    const __uint128_t initseq = Join(words[2], words[3]);
    state_ = 0;
    inc_ = (initseq << 1) | 1u;
    Step();
    state_ += initstate;
    Step();
    has_buffered_u32_ = false;
    buffered_u32_ = 0;
  }

  // bit_generator.random_raw(): the next 64-bit output.
  uint64_t NextU64() {
    Step();
    const auto high = static_cast<uint64_t>(state_ >> 64), low = static_cast<uint64_t>(state_);
    const unsigned rot = static_cast<unsigned>(high >> 58);
    const uint64_t x = high ^ low;
    return (x >> rot) | (x << ((64u - rot) & 63u));
  }

  // numpy's next_uint32: halves of one 64-bit output, low half first.
  uint32_t NextU32() {
    if (has_buffered_u32_) {
      has_buffered_u32_ = false;
      return buffered_u32_;
    }
    const uint64_t next = NextU64();
    has_buffered_u32_ = true;
    buffered_u32_ = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next);
  }

  // numpy's next_double: uniform in [0, 1) with 53 random bits.
  double NextDouble() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

  // The state as numpy's PCG64.state shows it: {"state": {"state", "inc"}, "has_uint32",
  // "uinteger"} (the 128-bit words as high and low halves).
  uint64_t state_high() const { return static_cast<uint64_t>(state_ >> 64); }
  uint64_t state_low() const { return static_cast<uint64_t>(state_); }
  uint64_t inc_high() const { return static_cast<uint64_t>(inc_ >> 64); }
  uint64_t inc_low() const { return static_cast<uint64_t>(inc_); }
  bool has_buffered_u32() const { return has_buffered_u32_; }
  uint32_t buffered_u32() const { return buffered_u32_; }

 private:
  static constexpr __uint128_t Join(uint64_t high, uint64_t low) {
    return (static_cast<__uint128_t>(high) << 64) | low;
  }
  // PCG's default 128-bit multiplier.
  static constexpr __uint128_t kMultiplier =
      (static_cast<__uint128_t>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;

  void Step() { state_ = state_ * kMultiplier + inc_; }

  __uint128_t state_ = 0, inc_ = 1;
  uint32_t buffered_u32_ = 0;
  bool has_buffered_u32_ = false;
};

}  // namespace envpool
