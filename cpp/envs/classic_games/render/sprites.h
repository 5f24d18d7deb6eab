// The board games' pictures are PettingZoo's own PNG files (pettingzoo/classic/<game>/img/, MIT),
// read from the installed pettingzoo package when an env is made with render_mode="rgb_array"
// (none is copied into this repository), and drawn as PettingZoo's render() draws them:
// pygame.transform.scale to a size, then Surface.blit at a position truncated to int.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/classic_games/render/png.h"
#include "envs/package_dirs.h"

namespace envpool::classic_games::render {

// PettingZoo's picture `relative` (e.g. "classic/tictactoe/img/board.png"), decoded once per
// process. Throws std::runtime_error naming `pip install pettingzoo` when it is not installed,
// and when a picture has partly transparent pixels (blits here copy opaque pixels and skip
// transparent ones, which is exactly pygame's blit only for alpha 0 and 255, as PettingZoo
// 1.27's pictures have).
inline const Image& PettingZooImage(const std::string& relative) {
  static std::mutex mutex;
  static std::map<std::string, Image> cache;  // nodes stay put: references outlive the lock
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(relative); it != cache.end()) return it->second;
  const std::string dir = InterpreterPackageDir("pettingzoo");
  const std::filesystem::path path = std::filesystem::path(dir) / relative;
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_regular_file(path, ec)) {
    throw std::runtime_error(
        "the board games draw PettingZoo's pictures (" + relative +
        "), read from the installed pettingzoo package, which is not installed: pip install pettingzoo==1.27.0");
  }
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) throw std::runtime_error("cannot read " + path.string());
  Image image = DecodePng(bytes, path.string());
  for (std::size_t i = 3; i < image.rgba.size(); i += 4) {
    if (image.rgba[i] != 0 && image.rgba[i] != 255) {
      throw std::runtime_error(path.string() +
                               " has partly transparent pixels, which these frames cannot blend as pygame does");
    }
  }
  return cache.emplace(relative, std::move(image)).first->second;
}

// pygame.transform.scale(src, (w, h)) blitted onto the frame `rgb` (width x height x 3) with its
// top-left corner at (x, y). The scale is SDL2's nearest-neighbour stretch (SDL_SoftStretch,
// which pygame-ce 2.5 calls): output column i takes source column (inc / 2 + i * inc) >> 16 with
// inc = (src.width << 16) / w, rows alike. The blit copies opaque pixels, skips transparent
// ones (PettingZooImage allows no others) and clips at the frame's edges.
inline void BlitScaled(uint8_t* rgb, int width, int height, const Image& src, int w, int h, int x, int y) {
  if (w <= 0 || h <= 0 || src.width <= 0 || src.height <= 0) return;  // pygame's empty surface
  const uint64_t inc_x = (static_cast<uint64_t>(src.width) << 16) / static_cast<uint64_t>(w);
  const uint64_t inc_y = (static_cast<uint64_t>(src.height) << 16) / static_cast<uint64_t>(h);
  for (int r = 0; r < h; ++r) {
    const int64_t fy = int64_t{y} + r;
    if (fy < 0 || fy >= height) continue;
    const int sy = static_cast<int>((inc_y / 2 + static_cast<uint64_t>(r) * inc_y) >> 16);
    uint8_t* row = rgb + 3 * static_cast<std::size_t>(fy) * static_cast<std::size_t>(width);
    for (int c = 0; c < w; ++c) {
      const int64_t fx = int64_t{x} + c;
      if (fx < 0 || fx >= width) continue;
      const int sx = static_cast<int>((inc_x / 2 + static_cast<uint64_t>(c) * inc_x) >> 16);
      const uint8_t* p = src.Pixel(sx, sy);
      if (p[3] != 0) std::memcpy(row + 3 * fx, p, 3);
    }
  }
}

// Python's int() of a float PettingZoo computes (a blit position or a size): toward zero, kept
// within +-2^30 (far off any frame) so that the integer arithmetic above cannot overflow.
inline int PyInt(double v) {
  if (!(v == v)) return 0;
  return static_cast<int>(v < -1073741824.0 ? -1073741824.0 : v > 1073741824.0 ? 1073741824.0 : v);
}

}  // namespace envpool::classic_games::render
