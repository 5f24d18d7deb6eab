// Palette indices to gray bytes, equal to ale::ColourPalette::applyPaletteGrayscale (a table
// lookup per pixel, `palette[index + 1] & 0xFF`), 32 pixels at a time where the CPU has AVX2.
//
// The ALE's screens hold even palette indices only (the TIA's colour registers ignore their
// low bit), so index / 2 (0..127) picks the gray value from 8 tables of 16 bytes, each looked
// up with one byte shuffle (vpshufb). A frame holding an odd index, or index 255 (whose gray
// value the ALE reads past its palette), is left to the ALE's own loop: the result is the same
// bits either way. Without AVX2 (checked at run time: the plugin is built for the baseline
// x86-64 or another architecture) the ALE's loop runs as before.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ENVPOOL_ATARI_GRAY_AVX2 1
#endif

namespace envpool_atari {

class GrayLookup {
 public:
  // `gray(v)`: the palette's gray value of index v, for v = 0, 2, ..., 254.
  template <typename GrayOf>
  void Build(GrayOf gray) {
    for (int k = 0; k < 128; ++k) half_[static_cast<std::size_t>(k)] = static_cast<uint8_t>(gray(2 * k));
#if defined(ENVPOOL_ATARI_GRAY_AVX2)
    enabled_ = __builtin_cpu_supports("avx2") != 0;
#endif
  }

  // dst[i] = gray of src[i]; false (dst unspecified) where the frame has an index this lookup
  // does not cover, or the CPU lacks AVX2: then the caller uses the ALE's loop.
  bool operator()(const uint8_t* src, uint8_t* dst, std::size_t n) const {
#if defined(ENVPOOL_ATARI_GRAY_AVX2)
    if (enabled_) return LookupAvx2(half_.data(), src, dst, n);
#endif
    (void)src, (void)dst, (void)n;
    return false;
  }

 private:
#if defined(ENVPOOL_ATARI_GRAY_AVX2)
  __attribute__((target("avx2"))) static bool LookupAvx2(const uint8_t* half, const uint8_t* src, uint8_t* dst,
                                                         std::size_t n) {
    __m256i table[8];
    for (int g = 0; g < 8; ++g) {
      table[g] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(half + 16 * g)));
    }
    const __m256i nibble = _mm256_set1_epi8(0x0F), one = _mm256_set1_epi8(1);
    __m256i odd = _mm256_setzero_si256();
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
      odd = _mm256_or_si256(odd, _mm256_and_si256(v, one));
      const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(v, 1), nibble);                  // (v / 2) % 16
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 5), _mm256_set1_epi8(0x07));  // v / 32
      __m256i out = _mm256_setzero_si256();
      for (int g = 0; g < 8; ++g) {
        const __m256i in_group = _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(static_cast<char>(g)));
        out = _mm256_or_si256(out, _mm256_and_si256(in_group, _mm256_shuffle_epi8(table[g], lo)));
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), out);
    }
    if (!_mm256_testz_si256(odd, odd)) return false;
    for (; i < n; ++i) {
      if (src[i] & 1) return false;
      dst[i] = half[src[i] >> 1];
    }
    return true;
  }
#endif

  std::array<uint8_t, 128> half_{};  // gray value of palette index 2k
  bool enabled_ = false;
};

}  // namespace envpool_atari
