// numpy's PCG64 (core/pcg64.h): seeded as numpy seeds it, each draw and the 32-bit buffer as
// numpy's, so an env's stream is the one gymnasium's env with the same seed draws.
//
// The expected numbers were computed with numpy 2.4.6:
//   bg = numpy.random.PCG64(seed)
//   bg.state["state"]["state"], bg.state["state"]["inc"]   (split here into high, low halves)
//   bg.random_raw(3)                                         -> 64-bit draws
//   Generator(PCG64(7)).integers(0, 2**32, dtype=uint32, size=3) and .bit_generator.state
//                                                            -> 32-bit draws and the buffer
#include <cstdint>

#include "check.h"
#include "core/pcg64.h"

using envpool::Pcg64;

namespace {

struct Vector {
  uint64_t seed;
  uint64_t state_high, state_low, inc_high, inc_low;
  uint64_t raw[3];
};

constexpr Vector kVectors[] = {
    {0,
     0x1aa1b5345996452d,
     0x09585eb7a69561e3,
     0x418ddadb3af71a82,
     0x588133bc447873a9,
     {0xa30febcfd9c2825f, 0x4510bdf882d9d721, 0x0a7d3da94ecde8b8}},
    {42,
     0xcea44f6798798f2a,
     0xacbc7c9d68860ac8,
     0xfa505436c9a8416e,
     0x66caf2e28d25abff,
     {0xc621fbcd16d92688, 0x705a5661a791ffc1, 0xdbcd12c26eda1624}},
};

void SeededStateMatchesNumpy() {
  for (const auto& v : kVectors) {
    const Pcg64 bits(v.seed);
    CHECK_EQ(bits.state_high(), v.state_high);
    CHECK_EQ(bits.state_low(), v.state_low);
    CHECK_EQ(bits.inc_high(), v.inc_high);
    CHECK_EQ(bits.inc_low(), v.inc_low);
    CHECK(!bits.has_buffered_u32());
  }
}

void RawDrawsMatchNumpy() {
  for (const auto& v : kVectors) {
    Pcg64 bits(v.seed);
    for (uint64_t want : v.raw) CHECK_EQ(bits.NextU64(), want);
  }
}

// PCG64(7)'s first raw draws are 0xa00641a9f1e54a8b, 0xe5afcdbcaf266a95: 32-bit draws take the
// low half first and keep the high half for the next 32-bit draw, as numpy's state shows.
void U32DrawsSplitA64BitDrawLowHalfFirst() {
  Pcg64 bits(7);
  CHECK_EQ(bits.NextU32(), 4058335883u);  // 0xf1e54a8b
  CHECK(bits.has_buffered_u32());
  CHECK_EQ(bits.NextU32(), 2684764585u);  // 0xa00641a9
  CHECK(!bits.has_buffered_u32());
  CHECK_EQ(bits.NextU32(), 2938530453u);  // 0xaf266a95
  CHECK(bits.has_buffered_u32());
  CHECK_EQ(bits.buffered_u32(), 3853503932u);  // 0xe5afcdbc, numpy's uinteger
  CHECK_EQ(bits.state_high(), 0x1500ea225ed01772u);
  CHECK_EQ(bits.state_low(), 0xa0f95db7ba1d45ceu);
}

// A 64-bit draw between 32-bit draws leaves the buffered half in place (numpy does the same).
void A64BitDrawKeepsTheBufferedHalf() {
  Pcg64 bits(7);
  bits.NextU32();
  CHECK_EQ(bits.NextU64(), 0xe5afcdbcaf266a95u);
  CHECK_EQ(bits.NextU32(), 2684764585u);
}

// Seed() restarts the stream and drops the buffered half.
void ReseedingRestarts() {
  Pcg64 bits(0);
  bits.NextU32();
  bits.Seed(42);
  CHECK(!bits.has_buffered_u32());
  CHECK_EQ(bits.NextU64(), kVectors[1].raw[0]);
}

void DoublesAreTheTop53Bits() {
  Pcg64 bits(0);
  CHECK_EQ(bits.NextDouble(), static_cast<double>(kVectors[0].raw[0] >> 11) * 0x1.0p-53);
}

}  // namespace

int main() {
  return RunTests({
      {"the seeded state matches numpy's", SeededStateMatchesNumpy},
      {"raw draws match numpy's", RawDrawsMatchNumpy},
      {"32-bit draws split a 64-bit draw, low half first", U32DrawsSplitA64BitDrawLowHalfFirst},
      {"a 64-bit draw keeps the buffered half", A64BitDrawKeepsTheBufferedHalf},
      {"reseeding restarts", ReseedingRestarts},
      {"doubles are the top 53 bits", DoublesAreTheTop53Bits},
  });
}
