// numpy's SeedSequence (core/seed_sequence.h): an env seeded with s must start from the state
// numpy's SeedSequence(s) gives, or its draws differ from gymnasium's env seeded with s.
//
// The expected words were computed with numpy 2.4.6:
//   ss = numpy.random.SeedSequence(seed)
//   ss.pool                               -> pool words
//   ss.generate_state(4, numpy.uint64)    -> state words
#include <array>
#include <cstdint>

#include "check.h"
#include "core/seed_sequence.h"

using envpool::SeedSequence;

namespace {

struct Vector {
  uint64_t seed;
  std::array<uint32_t, 4> pool;
  std::array<uint64_t, 4> state;
};

// Seeds of one word (0, 42), two words (2**32: low word 0) and the largest seed (2**64 - 1).
constexpr Vector kVectors[] = {
    {0,
     {0xfe40eb07, 0x4f363a36, 0x4eb2009d, 0xc89a7aa7},
     {0xdb2cd7e7b0f478be, 0xabf4641a2c71ba49, 0x20c6ed6d9d7b8d41, 0x2c4099de223c39d4}},
    {42,
     {0x631d3606, 0x07ae90ae, 0x6fc4be28, 0x2ced5c75},
     {0x9f1e2e6dcd540ab7, 0xd57873dc79fb94b6, 0x7d282a1b64d420b7, 0x336579714692d5ff}},
    {4294967296ull,
     {0xe0f3eff2, 0xdccd2c4e, 0x17f18c20, 0x9b8cb8db},
     {0x50ff846cec53f444, 0x7a4918dbe8278562, 0x3bff9f6c362e2b19, 0xbdb177539a0654e3}},
    {18446744073709551615ull,
     {0xfaf3ecf4, 0xfa0f8930, 0xe9f89a67, 0x0e23d1f9},
     {0xaebca151928cad0d, 0x119c30448638dc7a, 0x1bbb155659e642a7, 0xa76b11e3e8c4a8f6}},
};

void PoolMatchesNumpy() {
  for (const auto& v : kVectors) {
    const SeedSequence ss(v.seed);
    for (std::size_t i = 0; i < 4; ++i) CHECK_EQ(ss.pool()[i], v.pool[i]);
  }
}

void GenerateStateMatchesNumpy() {
  for (const auto& v : kVectors) {
    const auto state = SeedSequence(v.seed).GenerateState64<4>();
    for (std::size_t i = 0; i < 4; ++i) CHECK_EQ(state[i], v.state[i]);
  }
}

// generate_state(n) is a prefix of generate_state(m > n): PCG64 seeding reads the first 4.
void ShorterStateIsAPrefix() {
  const SeedSequence ss(42);
  const auto two = ss.GenerateState64<2>();
  CHECK_EQ(two[0], kVectors[1].state[0]);
  CHECK_EQ(two[1], kVectors[1].state[1]);
}

}  // namespace

int main() {
  return RunTests({
      {"the pool matches numpy's", PoolMatchesNumpy},
      {"generate_state matches numpy's", GenerateStateMatchesNumpy},
      {"a shorter state is a prefix", ShorterStateIsAPrefix},
  });
}
