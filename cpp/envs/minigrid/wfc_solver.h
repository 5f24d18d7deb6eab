// Wave Function Collapse as minigrid 3.2.0's wfclogic runs it for the registered WFC presets
// (tile_size 1, 8 rotations, entropy location heuristic, weighted pattern choice, no ground,
// no backtracking), giving the same wall layout from the same np_random draws.
//  - Tiles and patterns are identified by hash_downto's codes: the dot product (wrapping int64)
//    of the values with the first n draws of RandomState(0).randint(1 - 2^63, 2^63, n, int64).
//    The codes order the patterns (np.unique sorts them as int64), which is the order the
//    weighted choice walks, so they are computed, not just compared.
//  - Patterns: every k x k window (wrapped at the image's edges, for periodic and non-periodic
//    input alike, as minigrid pads with "wrap" in both cases) of the image after each of the 8
//    cumulative transforms identity, fliplr, rot90 cw, fliplr, ... A pattern's weight is the
//    number of transforms whose image holds it (Counter of unique codes per transform).
//  - Adjacency (dx, dy) in (0,-1), (1,0), (0,1), (-1,0): p1 then p2 when p1[r][c] == p2[r-dy][c-dx]
//    wherever both are defined (dx shifts columns). The solver reads (dx, dy) as (row, column)
//    offsets of the neighbouring cell: pattern i stays at a cell while each neighbour holds some
//    j with adj[d][i][j]; outside a non-periodic output every pattern is present.
//  - Propagation: minigrid sweeps all cells until nothing changes and raises Contradiction if a
//    cell is left empty. Its result is the largest arc-consistent sub-wave, which is unique, so a
//    worklist reaches the same wave (and stops at the first empty cell: a contradiction either way).
//  - Draws: np_random.random((h, w)) * 0.1 once (the location preferences), then per collapse
//    one np_random.choice(P, p=w*wave/sum): cumsum, divided by its last entry, searchsorted
//    (right) of one random(). Up to 1000 attempts continue the same stream.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "envs/minigrid/wfc_patterns.h"

namespace envpool::minigrid::wfc {

// The first n values of RandomState(0).randint(1 - 2**63, 2**63, n, dtype=int64), as uint64:
// legacy MT19937 seeded by init_genrand(0) (std::mt19937's seeding), 64-bit draws high word
// first, masked rejection of draws above the range 2^64 - 2.
inline std::vector<uint64_t> HashWeights(int n) {
  std::mt19937 mt(0);
  constexpr uint64_t kRange = std::numeric_limits<uint64_t>::max() - 1;
  constexpr uint64_t kLow = (uint64_t{1} << 63) + 1;  // 1 - 2^63 as two's complement
  std::vector<uint64_t> out;
  while (static_cast<int>(out.size()) < n) {
    const uint64_t hi = mt();
    const uint64_t lo = mt();
    const uint64_t value = (hi << 32) | lo;
    if (value > kRange) continue;
    out.push_back(kLow + value);
  }
  return out;
}

// The patterns of one image: their order, weights, top-left tile (wall or not) and adjacency.
class Catalog {
 public:
  Catalog(const PatternImage& image, int k) : k_(k) {
    const int w = image.width;
    const int h = image.height;
    const auto v3 = HashWeights(3);
    std::vector<uint64_t> grid(static_cast<std::size_t>(w * h));
    std::map<uint64_t, bool> tile_wall;
    for (int r = 0; r < h; ++r) {
      for (int c = 0; c < w; ++c) {
        const auto rgb = PixelRgb(image.pixels[static_cast<std::size_t>(r * w + c)]);
        const uint64_t code = rgb[0] * v3[0] + rgb[1] * v3[1] + rgb[2] * v3[2];
        grid[static_cast<std::size_t>(r * w + c)] = code;
        tile_wall[code] = rgb[0] == 0;  // _pattern_to_minigrid_layout: a wall where red is 0
      }
    }
    const auto vk = HashWeights(k * k);
    std::map<int64_t, std::vector<uint64_t>> contents;  // ordered as int64: np.unique's order
    std::map<int64_t, int> weight;
    int rows = h;
    int cols = w;
    for (int t = 0; t < 8; ++t) {
      if (t % 2 == 1) {  // fliplr
        for (int r = 0; r < rows; ++r) std::reverse(grid.begin() + r * cols, grid.begin() + (r + 1) * cols);
      } else if (t > 0) {  // np.rot90(axes=(1, 0)): clockwise, out[i][j] = in[rows-1-j][i]
        std::vector<uint64_t> rotated(grid.size());
        for (int i = 0; i < cols; ++i) {
          for (int j = 0; j < rows; ++j)
            rotated[static_cast<std::size_t>(i * rows + j)] = grid[static_cast<std::size_t>((rows - 1 - j) * cols + i)];
        }
        grid.swap(rotated);
        std::swap(rows, cols);
      }
      std::set<int64_t> seen;
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
          std::vector<uint64_t> window(static_cast<std::size_t>(k * k));
          uint64_t code = 0;
          for (int a = 0; a < k; ++a) {
            for (int b = 0; b < k; ++b) {
              const uint64_t tile = grid[static_cast<std::size_t>(((r + a) % rows) * cols + (c + b) % cols)];
              window[static_cast<std::size_t>(a * k + b)] = tile;
              code += tile * vk[static_cast<std::size_t>(a * k + b)];
            }
          }
          const auto key = static_cast<int64_t>(code);
          if (seen.insert(key).second) {
            ++weight[key];
            contents.emplace(key, std::move(window));
          }
        }
      }
    }
    count_ = static_cast<int>(contents.size());
    words_ = (count_ + 63) / 64;
    for (const auto& [key, window] : contents) {
      patterns_.push_back(window);
      weights_.push_back(static_cast<double>(weight[key]));
      wall_.push_back(tile_wall.at(window[0]));
    }
    for (int d = 0; d < 4; ++d) {
      adj_[d].assign(static_cast<std::size_t>(count_ * words_), 0);
      any_[d].assign(static_cast<std::size_t>(count_), false);
      for (int i = 0; i < count_; ++i) {
        for (int j = 0; j < count_; ++j) {
          if (!Overlaps(i, j, kOffsets[d][0], kOffsets[d][1])) continue;
          adj_[d][static_cast<std::size_t>(i * words_ + j / 64)] |= uint64_t{1} << (j % 64);
          any_[d][static_cast<std::size_t>(i)] = true;
        }
      }
    }
  }

  // execute_wfc's direction_offsets, in its order.
  static constexpr int kOffsets[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};

  int count() const { return count_; }
  int words() const { return words_; }
  double weight(int p) const { return weights_[static_cast<std::size_t>(p)]; }
  bool wall(int p) const { return wall_[static_cast<std::size_t>(p)]; }
  const uint64_t* adj(int d, int p) const { return adj_[d].data() + static_cast<std::size_t>(p * words_); }
  bool any(int d, int p) const { return any_[d][static_cast<std::size_t>(p)]; }

 private:
  bool Overlaps(int p1, int p2, int dx, int dy) const {
    const auto& a = patterns_[static_cast<std::size_t>(p1)];
    const auto& b = patterns_[static_cast<std::size_t>(p2)];
    for (int r = std::max(0, dy); r < std::min(k_, k_ + dy); ++r) {
      for (int c = std::max(0, dx); c < std::min(k_, k_ + dx); ++c) {
        if (a[static_cast<std::size_t>(r * k_ + c)] != b[static_cast<std::size_t>((r - dy) * k_ + (c - dx))])
          return false;
      }
    }
    return true;
  }

  int k_;
  int count_ = 0;
  int words_ = 0;
  std::vector<std::vector<uint64_t>> patterns_;
  std::vector<double> weights_;
  std::vector<bool> wall_;
  std::vector<uint64_t> adj_[4];
  std::vector<bool> any_[4];
};

// The solver's state for an h x w output; Generate fills `wall` (row-major) as execute_wfc's
// image read by _pattern_to_minigrid_layout.
class Solver {
 public:
  Solver(const Catalog& catalog, bool periodic) : cat_(catalog), periodic_(periodic) {}

  // false when every one of `attempts` attempts ended in a contradiction.
  bool Generate(Rng& rng, int h, int w, int attempts, std::vector<uint8_t>* wall) {
    h_ = h;
    w_ = w;
    const auto cells = static_cast<std::size_t>(h * w);
    pref_.resize(cells);
    nbr_.resize(cells * 4);
    for (int c = 0; c < h * w; ++c) {
      for (int d = 0; d < 4; ++d) nbr_[static_cast<std::size_t>(c * 4 + d)] = Neighbor(c, d);
    }
    for (auto& p : pref_) p = rng.Uniform() * 0.1;
    for (int a = 0; a < attempts; ++a) {
      if (!Attempt(rng)) continue;
      wall->assign(cells, 0);
      for (std::size_t x = 0; x < cells; ++x) (*wall)[x] = cat_.wall(FirstPattern(static_cast<int>(x))) ? 1 : 0;
      return true;
    }
    return false;
  }

 private:
  uint64_t* Dom(int cell) { return wave_.data() + static_cast<std::size_t>(cell) * cat_.words(); }
  int Count(int cell) {
    int n = 0;
    for (int q = 0; q < cat_.words(); ++q) n += std::popcount(Dom(cell)[q]);
    return n;
  }
  int FirstPattern(int cell) {
    for (int q = 0; q < cat_.words(); ++q) {
      if (Dom(cell)[q] != 0) return q * 64 + std::countr_zero(Dom(cell)[q]);
    }
    return 0;
  }
  // The neighbouring cell in direction d, or -1 outside a non-periodic output.
  int Neighbor(int cell, int d) const {
    int x = cell / w_ + Catalog::kOffsets[d][0];
    int y = cell % w_ + Catalog::kOffsets[d][1];
    if (periodic_) {
      x = (x + h_) % h_;
      y = (y + w_) % w_;
    } else if (x < 0 || x >= h_ || y < 0 || y >= w_) {
      return -1;
    }
    return x * w_ + y;
  }
  // Queues `cell` to recheck its patterns' support in the directions of `dirs` (bit d: d).
  void Push(int cell, uint8_t dirs) {
    uint8_t& pending = queued_[static_cast<std::size_t>(cell)];
    if (pending == 0) queue_.push_back(cell);
    pending |= dirs;
  }
  // After `cell` lost patterns: each neighbour rechecks the direction that points back at it.
  void PushNeighbors(int cell) {
    for (int d = 0; d < 4; ++d) {
      const int n = nbr_[static_cast<std::size_t>(cell * 4 + d)];
      if (n >= 0) Push(n, static_cast<uint8_t>(1 << ((d + 2) % 4)));
    }
  }

  // propagate(): false on a contradiction.
  bool Propagate() {
    const int words = cat_.words();
    while (!queue_.empty()) {
      const int cell = queue_.back();
      queue_.pop_back();
      const uint8_t dirs = queued_[static_cast<std::size_t>(cell)];
      queued_[static_cast<std::size_t>(cell)] = 0;
      bool changed = false;
      for (int q = 0; q < words; ++q) {
        uint64_t bits = Dom(cell)[q];
        while (bits != 0) {
          const int p = q * 64 + std::countr_zero(bits);
          bits &= bits - 1;
          for (int d = 0; d < 4; ++d) {
            if (((dirs >> d) & 1) == 0) continue;
            const int n = nbr_[static_cast<std::size_t>(cell * 4 + d)];
            bool supported = false;
            if (n < 0) {
              supported = cat_.any(d, p);
            } else {
              const uint64_t* a = cat_.adj(d, p);
              for (int r = 0; r < words && !supported; ++r) supported = (a[r] & Dom(n)[r]) != 0;
            }
            if (!supported) {
              Dom(cell)[q] &= ~(uint64_t{1} << (p % 64));
              changed = true;
              break;
            }
          }
        }
      }
      if (!changed) continue;
      counts_[static_cast<std::size_t>(cell)] = Count(cell);
      if (counts_[static_cast<std::size_t>(cell)] == 0) return false;
      PushNeighbors(cell);
    }
    return true;
  }

  // One run(): solve_next until solved; false on a contradiction.
  bool Attempt(Rng& rng) {
    const int cells = h_ * w_;
    const int words = cat_.words();
    const int count = cat_.count();
    wave_.assign(static_cast<std::size_t>(cells * words), ~uint64_t{0});
    if (count % 64 != 0) {
      for (int c = 0; c < cells; ++c) Dom(c)[words - 1] = (uint64_t{1} << (count % 64)) - 1;
    }
    queued_.assign(static_cast<std::size_t>(cells), 0);
    counts_.assign(static_cast<std::size_t>(cells), count);
    queue_.clear();
    for (int c = cells - 1; c >= 0; --c) Push(c, 0xF);
    cdf_.resize(static_cast<std::size_t>(count));
    while (true) {
      // is_solved, then the propagate solve_next opens with (a no-op after the first).
      int best = -1;
      double best_weight = std::numeric_limits<double>::infinity();
      bool solved = true;
      for (int c = 0; c < cells && solved; ++c) solved = counts_[static_cast<std::size_t>(c)] == 1;
      if (solved) return true;
      if (!Propagate()) return false;
      // entropyLocationHeuristic: argmin of preference + count over unresolved cells.
      for (int c = 0; c < cells; ++c) {
        const int n = counts_[static_cast<std::size_t>(c)];
        if (n <= 1) continue;
        const double v = pref_[static_cast<std::size_t>(c)] + static_cast<double>(n);
        if (v < best_weight) {
          best_weight = v;
          best = c;
        }
      }
      // The first propagate can resolve every cell: argmin of all-inf is cell 0, whose one
      // pattern the choice then draws for.
      if (best < 0) best = 0;
      // weightedPatternHeuristic: np_random.choice(P, p=weights * wave / sum).
      uint64_t* dom = Dom(best);
      double sum = 0.0;
      for (int p = 0; p < count; ++p) {
        if ((dom[p / 64] >> (p % 64)) & 1) sum += cat_.weight(p);
      }
      double acc = 0.0;
      for (int p = 0; p < count; ++p) {
        const bool in = (dom[p / 64] >> (p % 64)) & 1;
        acc += in ? cat_.weight(p) / sum : 0.0;
        cdf_[static_cast<std::size_t>(p)] = acc;
      }
      const double last = cdf_.back();
      const double u = rng.Uniform();
      int chosen = count - 1;
      for (int p = 0; p < count; ++p) {
        if (cdf_[static_cast<std::size_t>(p)] / last > u) {
          chosen = p;
          break;
        }
      }
      for (int q = 0; q < words; ++q) dom[q] = 0;
      dom[chosen / 64] = uint64_t{1} << (chosen % 64);
      counts_[static_cast<std::size_t>(best)] = 1;
      PushNeighbors(best);
      if (!Propagate()) return false;
    }
  }

  const Catalog& cat_;
  bool periodic_;
  int h_ = 0;
  int w_ = 0;
  std::vector<double> pref_;
  std::vector<uint64_t> wave_;
  std::vector<int> counts_;      // patterns left per cell, kept by Propagate and the collapse
  std::vector<int> nbr_;         // the neighbour of each cell in each direction, or -1
  std::vector<uint8_t> queued_;  // per cell: the directions it waits to recheck (0: not queued)
  std::vector<int> queue_;
  std::vector<double> cdf_;
};

}  // namespace envpool::minigrid::wfc
