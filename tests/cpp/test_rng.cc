// The per-env generator (core/rng.h): each distribution draws what numpy's Generator draws
// from the same seed, so an env that makes the same calls as its gymnasium twin gets the
// same numbers.
//
// The expected numbers were computed with numpy 2.4.6, each from a fresh
// g = numpy.random.default_rng(seed) (doubles as float.hex()):
//   g.random(3); g.uniform(-2.0, 3.0) twice; g.integers(6) eight times; g.integers(2**32),
//   g.integers(2**40 + 3) three times each; g.integers(2**31 + 1), g.integers(2**62 + 1) six
//   times each; g.standard_normal(6); g.normal(1.0, 2.0) twice;
//   default_rng(23).standard_normal(200)[70] (the first draw of seeds 0.. beyond the ziggurat's
//   last layer, |x| > 3.654, which only the tail branch returns).
#include <cstdint>

#include "check.h"
#include "core/rng.h"

using envpool::Rng;

namespace {

void UniformMatchesNumpy() {
  Rng rng(123);
  CHECK_EQ(rng.Uniform(), 0x1.5d5d393207e7dp-1);
  CHECK_EQ(rng.Uniform(), 0x1.b8e6db72f96d0p-5);
  CHECK_EQ(rng.Uniform(), 0x1.c34c097745cf4p-3);
}

void UniformRangeMatchesNumpy() {
  Rng rng(123);
  CHECK_EQ(rng.Uniform(-2.0, 3.0), 0x1.69690efd13c38p+0);
  CHECK_EQ(rng.Uniform(-2.0, 3.0), -0x1.bb1bedb609070p+0);
}

// integers(n) for n below 2**32 uses 32-bit draws (two per 64-bit draw).
void BelowSmallMatchesNumpy() {
  Rng rng(123);
  const uint64_t want[] = {0, 4, 3, 0, 5, 1, 1, 1};
  for (uint64_t w : want) CHECK_EQ(rng.Below(6), w);
}

// integers(2**32) is a plain 32-bit draw.
void BelowTwoTo32MatchesNumpy() {
  Rng rng(123);
  const uint64_t want[] = {66316749, 2930678937, 2546691363};
  for (uint64_t w : want) CHECK_EQ(rng.Below(4294967296ull), w);
}

// Beyond 32 bits: 64-bit draws with 128-bit multiply-shift.
void BelowLargeMatchesNumpy() {
  Rng rng(123);
  const uint64_t want[] = {750253807877, 59176835991, 242288242409};
  for (uint64_t w : want) CHECK_EQ(rng.Below((1ull << 40) + 3), w);
}

// Bounds just above a power of two reject about half (2**31 + 1) or a quarter (2**62 + 1) of
// the draws: the rejected draws must be skipped as numpy skips them.
void BelowRejectsAsNumpyDoes() {
  Rng small(123);
  const uint64_t want_small[] = {33158374, 115579757, 1952249163, 547800578, 395935448, 746900260};
  for (uint64_t w : want_small) CHECK_EQ(small.Below((1ull << 31) + 1), w);
  Rng large(123);
  const uint64_t want_large[] = {3146792547389340275ull, 248205639907728200ull, 1016230544287890085ull,
                                 850264901591196417ull,  811222784592705589ull, 4258177217586240484ull};
  for (uint64_t w : want_large) CHECK_EQ(large.Below((1ull << 62) + 1), w);
}

// integers(1) is 0 and draws nothing (nor does 0, which numpy refuses): the stream is unmoved.
void BelowOneDrawsNothing() {
  Rng a(5), b(5);
  CHECK_EQ(a.Below(1), 0u);
  CHECK_EQ(a.Below(0), 0u);
  CHECK_EQ(a.NextU64(), b.NextU64());
}

void NormalMatchesNumpy() {
  Rng rng(123);
  const double want[] = {-0x1.fa6e1d1709ebep-1, -0x1.789d105fd6f25p-2, 0x1.49b5784cedf8dp+0,
                         0x1.8d4275d37b3aap-3,  0x1.d728812571958p-1,  0x1.277a25ebb1ec3p-1};
  for (double w : want) CHECK_EQ(rng.Normal(), w);
}

void NormalWithMeanAndStddevMatchesNumpy() {
  Rng rng(123);
  CHECK_EQ(rng.Normal(1.0, 2.0), -0x1.f4dc3a2e13d7cp-1);
  CHECK_EQ(rng.Normal(1.0, 2.0), 0x1.0ec5df40521b6p-2);
}

// The tail beyond the last ziggurat layer (Marsaglia's method) and the draws after it.
void NormalTailMatchesNumpy() {
  Rng rng(23);
  for (int i = 0; i < 70; ++i) rng.Normal();
  CHECK_EQ(rng.Normal(), -0x1.edfcce3bf29d4p+1);
}

// Seed() restarts the stream and seed() reports it, whatever was drawn since.
void ReseedRestartsAndReportsTheSeed() {
  Rng rng(1);
  rng.Normal();
  rng.NextU32();
  rng.Seed(123);
  CHECK_EQ(rng.seed(), 123u);
  CHECK_EQ(rng.Uniform(), 0x1.5d5d393207e7dp-1);
  CHECK_EQ(rng.seed(), 123u);
}

}  // namespace

int main() {
  return RunTests({
      {"uniform matches numpy", UniformMatchesNumpy},
      {"uniform(low, high) matches numpy", UniformRangeMatchesNumpy},
      {"integers(n < 2**32) matches numpy", BelowSmallMatchesNumpy},
      {"integers(2**32) matches numpy", BelowTwoTo32MatchesNumpy},
      {"integers(n > 2**32) matches numpy", BelowLargeMatchesNumpy},
      {"integers(n) rejects as numpy does", BelowRejectsAsNumpyDoes},
      {"integers(1) draws nothing", BelowOneDrawsNothing},
      {"standard_normal matches numpy", NormalMatchesNumpy},
      {"normal(mean, stddev) matches numpy", NormalWithMeanAndStddevMatchesNumpy},
      {"the normal tail matches numpy", NormalTailMatchesNumpy},
      {"reseeding restarts and reports the seed", ReseedRestartsAndReportsTheSeed},
  });
}
