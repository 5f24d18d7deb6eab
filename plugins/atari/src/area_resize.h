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
// Only the order of the additions into one value matters for the bits; here the x reduction is
// laid out per destination element so that it runs as plain vectorizable loops.
// Integer scales take another path in OpenCV (a plain mean); the resizer refuses them (and
// enlargement) rather than differ.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool_atari {

class AreaResizer {
 public:
  AreaResizer() = default;
  // `channels` interleaved channels per pixel (1 gray, 3 RGB).
  AreaResizer(int src_height, int src_width, int dst_height, int dst_width, int channels)
      : src_h_(src_height), src_row_(src_width * channels), dst_row_(dst_width * channels) {
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
    rows_.assign(static_cast<std::size_t>(src_height) * static_cast<std::size_t>(dst_row_), 0.0f);
    sum_.assign(static_cast<std::size_t>(dst_row_), 0.0f);
  }

  // src: src_height x src_width x channels bytes; dst: dst_height x dst_width x channels.
  void operator()(const uint8_t* src, uint8_t* dst) {
    const auto row = static_cast<std::size_t>(dst_row_);
    // Along x, once per source row (a source row straddling two destination rows is used twice).
    for (int r = 0; r < src_h_; ++r) ReduceRow(src + static_cast<std::size_t>(r) * static_cast<std::size_t>(src_row_),
                                               rows_.data() + static_cast<std::size_t>(r) * row);
    // Along y, in table order.
    std::fill(sum_.begin(), sum_.end(), 0.0f);
    int prev_dy = y_tab_.front().dst;
    for (const Weight& y : y_tab_) {
      const float* buf = rows_.data() + static_cast<std::size_t>(y.src) * row;
      if (y.dst != prev_dy) {
        uint8_t* d = dst + static_cast<std::size_t>(prev_dy) * row;
        for (std::size_t i = 0; i < row; ++i) {
          d[i] = Saturate(sum_[i]);
          sum_[i] = y.alpha * buf[i];
        }
        prev_dy = y.dst;
      } else {
        for (std::size_t i = 0; i < row; ++i) sum_[i] += y.alpha * buf[i];
      }
    }
    uint8_t* d = dst + static_cast<std::size_t>(prev_dy) * row;
    for (std::size_t i = 0; i < row; ++i) d[i] = Saturate(sum_[i]);
  }

 private:
  struct Weight {
    int dst;  // destination index (times channels along x)
    int src;  // source index (times channels along x)
    float alpha;
  };

  void ReduceRow(const uint8_t* s, float* out) const {
    const auto row = static_cast<std::size_t>(dst_row_);
    for (std::size_t e = 0; e < row; ++e) out[e] = 0.0f;
    for (int t = 0; t < taps_; ++t) {
      const int* idx = tap_src_.data() + static_cast<std::size_t>(t) * row;
      const float* w = tap_weight_.data() + static_cast<std::size_t>(t) * row;
      for (std::size_t e = 0; e < row; ++e) out[e] += static_cast<float>(s[idx[e]]) * w[e];
    }
  }

  static bool IsInteger(double v) { return std::abs(v - std::round(v)) < 2.220446049250313e-16; }

  static uint8_t Saturate(float v) {
    const long r = std::lrint(v);  // round to nearest, ties to even (the default FP mode)
    return static_cast<uint8_t>(std::clamp(r, 0L, 255L));
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

  int src_h_ = 0, src_row_ = 0, dst_row_ = 0;  // rows in elements (pixels * channels)
  int taps_ = 0;                               // source elements per destination element
  std::vector<int> tap_src_;                   // taps_ x dst_row_: source element of each tap
  std::vector<float> tap_weight_;              // taps_ x dst_row_: its weight (0: unused)
  std::vector<Weight> y_tab_;
  std::vector<float> rows_;  // every source row reduced along x (src_height x dst_row_)
  std::vector<float> sum_;   // the destination row being summed along y
};

}  // namespace envpool_atari
