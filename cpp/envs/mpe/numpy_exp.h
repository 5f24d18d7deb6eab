// numpy's float64 `np.exp`, bit for bit, for the arguments MPE scenarios pass it.
//
// numpy does not call the C library's exp for float64 arrays (or scalars) on every CPU: on
// x86-64 CPUs with AVX-512 (numpy's AVX512_SKX dispatch target: F, CD, BW, DQ, VL) its wheels
// use a vectorised table method (numpy vendors Intel's SVML for it), whose result differs from
// glibc's exp in the last bit for a few percent of arguments. Elsewhere numpy calls the C
// library's exp. NumpyExp does the same: on such CPUs it evaluates the same method in scalar
// code, rounding step for step as the vector code does (every fused multiply-add is
// std::fma, the one round-toward-zero step is done exactly); on other CPUs it is std::exp.
//
// The method (Tang's table-driven exp with a 16-entry table):
//   N  = x * log2(e) truncated to 4 fractional bits (= M + j/16, j in 0..15)
//   r  = x - N * ln2   (ln2 in two parts)
//   exp(x) = 2^M * T[j] * (1 + Tlr[j]) * exp(r),  T[j] * (1 + Tlr[j]) = 2^(j/16)
// with exp(r) - 1 a degree-6 polynomial evaluated in the vector code's order.
// The constants (the 2^(j/16) table, ln2 split, polynomial coefficients) are the values numpy's
// vendored SVML code uses (numpy/SVML, under numpy's BSD-3-Clause licence), read from the
// numpy binary; the scalar code here is our own.
// Arguments with |x| >= ~707.7 (overflow / underflow handling) go to std::exp; the MPE
// scenarios never get there with results that matter (simple_tag caps exp at 10).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace envpool::mpe {

namespace detail {

inline double FromBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// 2^(j/16) rounded to double (the high part) ...
inline constexpr uint64_t kExpTableHigh[16] = {
    0x3ff0000000000000, 0x3ff0b5586cf9890f, 0x3ff172b83c7d517b, 0x3ff2387a6e756238,
    0x3ff306fe0a31b715, 0x3ff3dea64c123422, 0x3ff4bfdad5362a27, 0x3ff5ab07dd485429,
    0x3ff6a09e667f3bcd, 0x3ff7a11473eb0187, 0x3ff8ace5422aa0db, 0x3ff9c49182a3f090,
    0x3ffae89f995ad3ad, 0x3ffc199bdd85529c, 0x3ffd5818dcfba487, 0x3ffea4afa2a490da};
// ... and the relative rest: 2^(j/16) = high * (1 + low).
inline constexpr uint64_t kExpTableLow[16] = {
    0x0000000000000000, 0x3c979aa65d837b6d, 0xbc801b15eaa59348, 0x3c968efde3a8a894,
    0x3c834d754db0abb6, 0x3c859f48a72a4c6d, 0x3c7690cebb7aafb0, 0x3c9063e1e21c5409,
    0xbc93b3efbf5e2228, 0xbc7b32dcb94da51d, 0x3c8db72fc1f0eab4, 0x3c71affc2b91ce27,
    0x3c8c1a7792cb3387, 0x3c736eae30af0cb3, 0x3c74a385a63d07a7, 0xbc8ff7128fd391f0};

inline double SimdExp(double x) {
  const double log2e = FromBits(0x3ff71547652b82fe);
  const double ln2_hi = FromBits(0x3fe62e42fefa39ef);
  const double ln2_lo = FromBits(0x3c7abc9e3b39803f);
  // exp(r) - 1 ~ r * (c1 + c2 r + ... + c6 r^5)
  const double c1 = FromBits(0x3fefffffffffff70), c2 = FromBits(0x3fe000000000d008);
  const double c3 = FromBits(0x3fc5555553939732), c4 = FromBits(0x3fa55557242d68fe);
  const double c5 = FromBits(0x3f81101cbbc265c0), c6 = FromBits(0x3f57411836940c04);
  // N: the exact product x * log2(e) rounded down to a multiple of 1/16 (the vector code adds
  // a large shifter with one round-toward-zero fma, which amounts to this floor).
  const double hi = x * log2e;
  const double lo = std::fma(x, log2e, -hi);  // hi + lo = x * log2(e) exactly
  const double hi16 = hi * 16.0;              // exact (a power of two)
  double n16 = std::floor(hi16);
  if (n16 == hi16 && lo < 0) n16 -= 1.0;
  const double n = n16 / 16.0;
  const auto j = static_cast<int>(static_cast<int64_t>(n16) & 15);
  double r = std::fma(-n, ln2_hi, x);
  r = std::fma(-n, ln2_lo, r);
  const double r2 = r * r;
  const double p56 = std::fma(r, c6, c5);
  const double p34 = std::fma(r, c4, c3);
  const double p12 = std::fma(r, c2, c1);
  double p = std::fma(p56, r2, p34);
  p = std::fma(p, r2, p12);
  p = std::fma(p, r, FromBits(kExpTableLow[j]));
  const double th = FromBits(kExpTableHigh[j]);
  const double res = std::fma(p, th, th);
  return std::ldexp(res, static_cast<int>(std::floor(n)));  // vscalefpd: res * 2^floor(N)
}

inline bool NumpyUsesSimdExp() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx512_skx = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                                 __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                                 __builtin_cpu_supports("avx512vl");
  return avx512_skx;
#else
  return false;
#endif
}

}  // namespace detail

inline double NumpyExp(double x) {
  if (detail::NumpyUsesSimdExp() && std::fabs(x) < 707.0) return detail::SimdExp(x);
  return std::exp(x);
}

}  // namespace envpool::mpe
