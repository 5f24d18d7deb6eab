// Image shrinking by pixel-area averaging, equal bit for bit to OpenCV's
// cv::resize(src, dst, size, 0, 0, cv::INTER_AREA) on uint8 images for a non-integer scale
// (210x160 -> 84x84, the Atari case), without OpenCV at run time.
//
// The arithmetic is what makes the bits equal, so it is spelled out (facts of OpenCV's
// resizeArea for 8-bit images, checked against cv2 by tests/test_area_resize.py):
//  * per axis, a table of (destination index, source index, weight): destination cell d covers
//    source [d*scale, (d+1)*scale), scale = 1 / (dst/src) in double; a partly covered source
//    pixel weighs (covered part / cell width), a fully covered one 1 / cell width (cell width:
//    min(scale, src - d*scale)); partial parts under 1e-3 are dropped; weights are rounded to
//    float;
//  * each contributing source row is first reduced along x into a float row (buf += pixel *
//    weight, in table order), then rows are summed along y (sum += weight * buf, in table
//    order); a finished destination row is rounded to nearest (ties to even) and clamped.
// Only the order of the additions into one value matters for the bits; here each destination
// element sums its taps in a register, and each source row is reduced along x only when the y
// pass reaches it (a working set of two float rows, not the whole reduced image).
// Integer scales take another path in OpenCV (a plain mean); the resizer refuses them (and
// enlargement) rather than differ.
//
// Lanes (gray frames whose widths share a factor of 4, as 160 -> 84): the x table then repeats
// every dst_width / 4 destination pixels, shifted by src_width / 4 source pixels, and when its
// weights repeat bit for bit (checked when the resizer is made) four destination pixels that
// are a quarter row apart are computed side by side: the same products and sums, per lane, as
// the scalar loop, from a source row laid out as quarter-row lanes. The reduced and summed rows
// stay in that lane order until the destination row is written.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace envpool_atari {

class AreaResizer {
 public:
  AreaResizer() = default;
  // `channels` interleaved channels per pixel (1 gray, 3 RGB).
  AreaResizer(int src_height, int src_width, int dst_height, int dst_width, int channels)
      : src_row_(src_width * channels), dst_row_(dst_width * channels) {
    if (dst_height <= 0 || dst_width <= 0 || dst_height > src_height || dst_width > src_width) {
      throw std::invalid_argument("area resize shrinks only: " + std::to_string(src_height) + "x" +
                                  std::to_string(src_width) + " -> " + std::to_string(dst_height) + "x" +
                                  std::to_string(dst_width));
    }
    const double scale_x = 1.0 / (static_cast<double>(dst_width) / src_width);
    const double scale_y = 1.0 / (static_cast<double>(dst_height) / src_height);
    if (IsInteger(scale_x) && IsInteger(scale_y)) {
      throw std::invalid_argument("area resize by the integer factors " + std::to_string(scale_y) + " x " +
                                  std::to_string(scale_x) + " is not supported (OpenCV takes another path there)");
    }
    y_tab_ = Table(src_height, dst_height, 1, scale_y);
    // The x table as columns: output element e (pixel * channels + channel) is the sum, in table
    // order, of its `taps_` source elements times their weights. Unused taps weigh 0 (adding
    // +0.0f changes no sum: every term is >= 0), so every element has the same number of taps
    // and a row reduces with plain loops over the elements.
    const std::vector<Weight> x_tab = Table(src_width, dst_width, channels, scale_x);
    std::vector<int> count(static_cast<std::size_t>(dst_width), 0);
    for (const Weight& w : x_tab) taps_ = std::max(taps_, ++count[static_cast<std::size_t>(w.dst / channels)]);
    const auto n = static_cast<std::size_t>(dst_row_) * static_cast<std::size_t>(taps_);
    tap_src_.assign(n, 0);
    tap_weight_.assign(n, 0.0f);
    std::fill(count.begin(), count.end(), 0);
    for (const Weight& w : x_tab) {
      const int pixel = w.dst / channels;
      const auto tap = static_cast<std::size_t>(count[static_cast<std::size_t>(pixel)]++);
      for (int c = 0; c < channels; ++c) {
        const std::size_t at = tap * static_cast<std::size_t>(dst_row_) + static_cast<std::size_t>(w.dst + c);
        tap_src_[at] = w.src + c;
        tap_weight_[at] = w.alpha;
      }
    }
    reduced_.assign(static_cast<std::size_t>(dst_row_), 0.0f);
    sum_.assign(static_cast<std::size_t>(dst_row_), 0.0f);
    reduce_row_ = taps_ == 2   ? &AreaResizer::ReduceRow<2>
                  : taps_ == 3 ? &AreaResizer::ReduceRow<3>
                               : &AreaResizer::ReduceRow<0>;
    if (channels == 1 && taps_ <= kLaneTaps) MakeLanes(src_width, dst_width);
  }

  // Whether the resize runs in lanes (see the top of this file).
  bool lanes() const { return lane_src_ > 0; }

  // src: src_height x src_width x channels bytes; dst: dst_height x dst_width x channels.
  void operator()(const uint8_t* src, uint8_t* dst) {
    const auto row = static_cast<std::size_t>(dst_row_);
    const auto src_row = static_cast<std::size_t>(src_row_);
    float* __restrict reduced = reduced_.data();
    float* __restrict sum = sum_.data();
    // Along y, in table order; each source row is reduced along x when the table reaches it.
    // The table's source rows never decrease and a row straddling two destination rows comes
    // twice in a row, so one reduced row suffices (a small working set: many envs per core).
    std::fill(sum, sum + row, 0.0f);
    int prev_dy = y_tab_.front().dst;
    int reduced_src = -1;
    for (const Weight& y : y_tab_) {
      if (y.src != reduced_src) {
        const uint8_t* s = src + static_cast<std::size_t>(y.src) * src_row;
        if (lanes()) {
          ReduceRowInLanes(s, reduced);
        } else {
          (this->*reduce_row_)(s, reduced);
        }
        reduced_src = y.src;
      }
      const float alpha = y.alpha;
      if (y.dst != prev_dy) {
        WriteRow(sum, dst + static_cast<std::size_t>(prev_dy) * row);
        for (std::size_t i = 0; i < row; ++i) sum[i] = alpha * reduced[i];
        prev_dy = y.dst;
      } else {
        for (std::size_t i = 0; i < row; ++i) sum[i] += alpha * reduced[i];
      }
    }
    WriteRow(sum, dst + static_cast<std::size_t>(prev_dy) * row);
  }

 private:
  struct Weight {
    int dst;  // destination index (times channels along x)
    int src;  // source index (times channels along x)
    float alpha;
  };

  // One element's taps are summed in a register (the same additions in the same order as
  // `out[e] += ...` per tap; starting from the first product instead of 0.0f + it is exact).
  // __restrict and local bounds: a uint8_t or float store could otherwise alias the tables and
  // members, which keeps the compiler from keeping anything in registers. kTaps > 0 unrolls the
  // taps (the Atari widths have 2 or 3); 0 is any count.
  template <int kTaps>
  void ReduceRow(const uint8_t* __restrict s, float* __restrict out) const {
    const auto row = static_cast<std::size_t>(dst_row_);
    const std::size_t taps = kTaps > 0 ? static_cast<std::size_t>(kTaps) : static_cast<std::size_t>(taps_);
    const int* __restrict idx = tap_src_.data();
    const float* __restrict w = tap_weight_.data();
    for (std::size_t e = 0; e < row; ++e) {
      float acc = static_cast<float>(s[idx[e]]) * w[e];
      for (std::size_t t = 1; t < taps; ++t) acc += static_cast<float>(s[idx[t * row + e]]) * w[t * row + e];
      out[e] = acc;
    }
  }

  static constexpr int kLanes = 4;
  static constexpr int kLaneTaps = 3;

  // Lanes are used if the x table of destination pixel p + k * dst_width / 4 is that of p with
  // every source index shifted by k * src_width / 4 and the same weights, bit for bit.
  void MakeLanes(int src_width, int dst_width) {
    if (src_width % kLanes != 0 || dst_width % kLanes != 0) return;
    const int dst_period = dst_width / kLanes, src_period = src_width / kLanes;
    const auto row = static_cast<std::size_t>(dst_row_);
    std::vector<int> src(static_cast<std::size_t>(dst_period) * kLaneTaps, 0);
    std::vector<float> weight(src.size(), 0.0f);
    for (int p = 0; p < dst_period; ++p) {
      for (int t = 0; t < taps_; ++t) {
        const std::size_t at = static_cast<std::size_t>(t) * row;
        const float w = tap_weight_[at + static_cast<std::size_t>(p)];
        const int s0 = tap_src_[at + static_cast<std::size_t>(p)];
        if (w != 0.0f && (s0 < 0 || s0 >= src_period)) return;
        for (int k = 1; k < kLanes; ++k) {
          const std::size_t e = at + static_cast<std::size_t>(p + k * dst_period);
          if (std::memcmp(&tap_weight_[e], &w, sizeof w) != 0) return;
          if (w != 0.0f && tap_src_[e] != s0 + k * src_period) return;
        }
        src[static_cast<std::size_t>(p * kLaneTaps + t)] = w != 0.0f ? s0 : 0;
        weight[static_cast<std::size_t>(p * kLaneTaps + t)] = w;
      }
    }
    lane_tap_src_ = std::move(src);
    lane_tap_weight_ = std::move(weight);
    lane_row_.assign(static_cast<std::size_t>(src_width), 0.0f);
    lane_src_ = src_period;
  }

  // The lane version of ReduceRow: `out[p * 4 + k]` is destination pixel p + k * dst_width / 4,
  // its taps added in the same order (unused taps weigh +0.0f, as in ReduceRow).
  void ReduceRowInLanes(const uint8_t* __restrict s, float* __restrict out) {
    const auto period = static_cast<std::size_t>(lane_src_);
    float* __restrict lanes = lane_row_.data();  // lanes[j * 4 + k] = s[j + k * period]
    std::size_t j = 0;
#if defined(__SSE2__)
    // Four bytes of each lane to floats, then a 4x4 transpose: four lane-order pixels per store.
    for (; j + 4 <= period; j += 4) {
      __m128 v[kLanes];
      for (std::size_t k = 0; k < kLanes; ++k) {
        int32_t four;
        std::memcpy(&four, s + j + k * period, sizeof four);
        const __m128i bytes = _mm_cvtsi32_si128(four);
        const __m128i zero = _mm_setzero_si128();
        v[k] = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_unpacklo_epi8(bytes, zero), zero));
      }
      _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
      for (std::size_t i = 0; i < kLanes; ++i) _mm_storeu_ps(lanes + (j + i) * kLanes, v[i]);
    }
#endif
    for (; j < period; ++j) {
      for (std::size_t k = 0; k < kLanes; ++k) lanes[j * kLanes + k] = static_cast<float>(s[j + k * period]);
    }
    const std::size_t dst_period = static_cast<std::size_t>(dst_row_) / kLanes;
    const int* __restrict idx = lane_tap_src_.data();
    const float* __restrict w = lane_tap_weight_.data();
    for (std::size_t p = 0; p < dst_period; ++p) {
      const float* a = lanes + static_cast<std::size_t>(idx[p * kLaneTaps]) * kLanes;
      const float* b = lanes + static_cast<std::size_t>(idx[p * kLaneTaps + 1]) * kLanes;
      const float* c = lanes + static_cast<std::size_t>(idx[p * kLaneTaps + 2]) * kLanes;
      const float wa = w[p * kLaneTaps], wb = w[p * kLaneTaps + 1], wc = w[p * kLaneTaps + 2];
      float* o = out + p * kLanes;
      for (std::size_t k = 0; k < kLanes; ++k) {
        float acc = a[k] * wa;
        acc += b[k] * wb;
        acc += c[k] * wc;
        o[k] = acc;
      }
    }
  }

  // A summed row into destination bytes (from lane order where the resize runs in lanes).
  void WriteRow(const float* __restrict sum, uint8_t* __restrict d) const {
    const auto row = static_cast<std::size_t>(dst_row_);
    if (!lanes()) {
      for (std::size_t i = 0; i < row; ++i) d[i] = Saturate(sum[i]);
      return;
    }
    const std::size_t dst_period = row / kLanes;
#if defined(__SSE2__)
    // Four pixels at once: cvtps2dq rounds as cvtss2si does (the current mode), and the two
    // saturating packs clamp to 0..255 as Saturate does (out-of-range and NaN give INT_MIN in
    // both, hence 0).
    for (std::size_t p = 0; p < dst_period; ++p) {
      const __m128i r = _mm_cvtps_epi32(_mm_loadu_ps(sum + p * kLanes));
      const __m128i narrow = _mm_packs_epi32(r, r);
      const auto bytes = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_packus_epi16(narrow, narrow)));
      for (std::size_t k = 0; k < kLanes; ++k) d[p + k * dst_period] = static_cast<uint8_t>(bytes >> (8 * k));
    }
#else
    for (std::size_t p = 0; p < dst_period; ++p) {
      for (std::size_t k = 0; k < kLanes; ++k) d[p + k * dst_period] = Saturate(sum[p * kLanes + k]);
    }
#endif
  }

  static bool IsInteger(double v) { return std::abs(v - std::round(v)) < 2.220446049250313e-16; }

  static uint8_t Saturate(float v) {
#if defined(__SSE__)
    // cvtss2si rounds in the current mode (to nearest, ties to even: what lrint does), inline
    // (lrintf is a library call unless math errno is off).
    const int r = _mm_cvtss_si32(_mm_set_ss(v));
#else
    const long r = std::lrint(v);  // round to nearest, ties to even (the default FP mode)
#endif
    return static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
  }

  static std::vector<Weight> Table(int src_size, int dst_size, int cn, double scale) {
    std::vector<Weight> tab;
    tab.reserve(static_cast<std::size_t>(src_size) * 2);
    for (int d = 0; d < dst_size; ++d) {
      const double f1 = d * scale;
      const double f2 = f1 + scale;
      const double cell = std::min(scale, src_size - f1);
      int s1 = static_cast<int>(std::ceil(f1));
      int s2 = static_cast<int>(std::floor(f2));
      s2 = std::min(s2, src_size - 1);
      s1 = std::min(s1, s2);
      if (s1 - f1 > 1e-3) tab.push_back({d * cn, (s1 - 1) * cn, static_cast<float>((s1 - f1) / cell)});
      for (int s = s1; s < s2; ++s) tab.push_back({d * cn, s * cn, static_cast<float>(1.0 / cell)});
      if (f2 - s2 > 1e-3) {
        tab.push_back({d * cn, s2 * cn, static_cast<float>(std::min(std::min(f2 - s2, 1.0), cell) / cell)});
      }
    }
    return tab;
  }

  int src_row_ = 0, dst_row_ = 0;  // rows in elements (pixels * channels)
  int taps_ = 0;                   // source elements per destination element
  std::vector<int> tap_src_;       // taps_ x dst_row_: source element of each tap
  std::vector<float> tap_weight_;  // taps_ x dst_row_: its weight (0: unused)
  std::vector<Weight> y_tab_;
  std::vector<float> reduced_;  // the current source row reduced along x (dst_row_ floats)
  std::vector<float> sum_;      // the destination row being summed along y
  void (AreaResizer::*reduce_row_)(const uint8_t*, float*) const = &AreaResizer::ReduceRow<0>;
  int lane_src_ = 0;                    // source pixels per lane (0: no lanes)
  std::vector<int> lane_tap_src_;       // per destination pixel of lane 0, kLaneTaps: source pixel
  std::vector<float> lane_tap_weight_;  // and weight (0: unused)
  std::vector<float> lane_row_;         // the source row in lane order, as floats
};

}  // namespace envpool_atari
