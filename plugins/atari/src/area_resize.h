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
      : src_w_(src_width), dst_w_(dst_width), cn_(channels) {
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
    x_tab_ = Table(src_width, dst_width, channels, scale_x);
    y_tab_ = Table(src_height, dst_height, 1, scale_y);
    buf_.assign(static_cast<std::size_t>(dst_width * channels), 0.0f);
    sum_.assign(buf_.size(), 0.0f);
  }

  // src: src_height x src_width x channels bytes; dst: dst_height x dst_width x channels.
  void operator()(const uint8_t* src, uint8_t* dst) {
    const std::size_t row = buf_.size();
    std::fill(sum_.begin(), sum_.end(), 0.0f);
    int prev_dy = y_tab_.front().dst;
    for (const Weight& y : y_tab_) {
      const uint8_t* s = src + static_cast<std::size_t>(y.src) * static_cast<std::size_t>(src_w_ * cn_);
      std::fill(buf_.begin(), buf_.end(), 0.0f);
      for (const Weight& x : x_tab_) {
        for (int c = 0; c < cn_; ++c) buf_[x.dst + c] += static_cast<float>(s[x.src + c]) * x.alpha;
      }
      if (y.dst != prev_dy) {
        uint8_t* d = dst + static_cast<std::size_t>(prev_dy) * row;
        for (std::size_t i = 0; i < row; ++i) {
          d[i] = Saturate(sum_[i]);
          sum_[i] = y.alpha * buf_[i];
        }
        prev_dy = y.dst;
      } else {
        for (std::size_t i = 0; i < row; ++i) sum_[i] += y.alpha * buf_[i];
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

  int src_w_ = 0, dst_w_ = 0, cn_ = 1;
  std::vector<Weight> x_tab_, y_tab_;
  std::vector<float> buf_, sum_;  // one destination row: x-reduced source row, y accumulation
};

}  // namespace envpool_atari
