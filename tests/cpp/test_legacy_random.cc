// numpy's legacy RandomState (core/legacy_random.h), which dm_control's suite draws from.
//
// The expected numbers were computed with numpy 2.4.6:
//   r = numpy.random.RandomState(seed); r.random_sample(), r.randn(n), r.uniform(a, b),
//   r.randint(0, n), r.choice(n)
// printed with repr (shortest round-trip), so each == below is exact.
#include <cmath>
#include <cstdint>

#include "check.h"
#include "core/legacy_random.h"

using envpool::LegacyRandomState;

namespace {

void RandomSampleMatchesNumpy() {
  LegacyRandomState r(42);
  CHECK_EQ(r.Uniform(), 0.3745401188473625);
  CHECK_EQ(r.Uniform(), 0.9507143064099162);
}

void NormalsMatchNumpyIncludingTheCachedHalf() {
  LegacyRandomState r(42);
  const double expected[] = {0.4967141530112327, -0.13826430117118466, 0.6476885381006925, 1.5230298564080254,
                             -0.23415337472333597};
  for (double e : expected) CHECK_EQ(r.Normal(), e);
}

void UniformRandintAndNormalInterleaveAsNumpy() {
  LegacyRandomState r(7);
  CHECK_EQ(r.Uniform(-M_PI, M_PI), -2.6621335309793372);
  const uint64_t small[] = {1, 3, 3, 4, 1, 0};
  for (uint64_t e : small) CHECK_EQ(r.Below(5), e);
  CHECK_EQ(r.Below(uint64_t{1} << 40), uint64_t{382561546606});
  CHECK_EQ(r.Below(uint64_t{1} << 40), uint64_t{181541563098});
  CHECK_EQ(r.Normal(), 0.02006438698192206);
}

void LargestSeed() {
  LegacyRandomState r(4294967295u);
  CHECK_EQ(r.Normal(), 0.6484086742306527);
  CHECK_EQ(r.Uniform(), 0.01793967398674523);
}

void LongStreamsCrossStateRefills() {
  // 1000 samples use 2000 outputs (past three refills of 624), then 1001 normals.
  LegacyRandomState r(1);
  double last = 0;
  for (int i = 0; i < 1000; ++i) last = r.Uniform();
  CHECK_EQ(last, 0.7744772660150796);
  for (int i = 0; i < 1001; ++i) last = r.Normal();
  CHECK_EQ(last, 0.7640414200481108);
  CHECK_EQ(r.Below(7), uint64_t{3});  // choice(7): the cached normal does not consume output
}

void ReseedingDropsTheCachedNormal() {
  LegacyRandomState r(42);
  r.Normal();  // leaves the second value of the pair cached
  r.Seed(42);
  CHECK_EQ(r.Normal(), 0.4967141530112327);
}

}  // namespace

int main() {
  return RunTests({
      {"random_sample matches numpy's", RandomSampleMatchesNumpy},
      {"randn matches numpy's, including the cached half", NormalsMatchNumpyIncludingTheCachedHalf},
      {"uniform, randint and randn interleave as numpy's", UniformRandintAndNormalInterleaveAsNumpy},
      {"the largest seed", LargestSeed},
      {"long streams cross state refills", LongStreamsCrossStateRefills},
      {"reseeding drops the cached normal", ReseedingDropsTheCachedNormal},
  });
}
