// WFCEnv's graph steps on the generated layout, as networkx 3.x and CPython 3.11 order them:
// which cells stay open (the largest connected component of the open cells, when
// ensure_connected) and the order of the candidate nodes that np_random.permutation picks the
// start and goal from. That order is the subgraph's node order, which networkx takes from the
// node set itself (not the graph) when the set is under half the graph (FilterAtlas.__iter__):
// then it is a CPython set's table order, which PySetOrder reproduces (tuple hash, table
// growth, probing), so the same seed picks the same cells.
#pragma once

#include <cstdint>
#include <vector>

namespace envpool::minigrid::wfc {

// hash((r, c)) for small non-negative ints (hash(int) is the int): CPython's xxHash-based
// tuplehash on 64-bit builds.
inline uint64_t TupleHash(uint64_t r, uint64_t c) {
  constexpr uint64_t kP1 = 11400714785074694791ull;
  constexpr uint64_t kP2 = 14029467366897019727ull;
  constexpr uint64_t kP5 = 2870177450012600261ull;
  uint64_t acc = kP5;
  for (const uint64_t lane : {r, c}) {
    acc += lane * kP2;
    acc = (acc << 31) | (acc >> 33);
    acc *= kP1;
  }
  acc += 2 ^ (kP5 ^ 3527539ull);
  return acc == ~uint64_t{0} ? 1546275796ull : acc;
}

// A CPython set of distinct keys filled by add() alone (no deletions): its table, the same
// probe sequence (slot, then up to 9 linear probes, then perturbation) and resizes (to the
// smallest power of two above 4 * used once fill * 5 >= mask * 3), so Order() is its iteration
// order.
class PySetOrder {
 public:
  void Add(int key, uint64_t hash) {
    Put(table_, key, hash);
    ++fill_;
    if (fill_ * 5 < (table_.size() - 1) * 3) return;
    std::size_t size = 8;
    while (size <= fill_ * 4) size <<= 1;
    std::vector<Slot> old(size);
    old.swap(table_);
    for (const Slot& s : old) {
      if (s.key >= 0) Put(table_, s.key, s.hash);
    }
  }
  std::vector<int> Order() const {
    std::vector<int> out;
    for (const Slot& s : table_) {
      if (s.key >= 0) out.push_back(s.key);
    }
    return out;
  }

 private:
  struct Slot {
    int key = -1;
    uint64_t hash = 0;
  };
  static void Put(std::vector<Slot>& table, int key, uint64_t hash) {
    const std::size_t mask = table.size() - 1;
    std::size_t i = hash & mask;
    uint64_t perturb = hash;
    while (true) {
      if (table[i].key < 0) {
        table[i] = {key, hash};
        return;
      }
      if (i + 9 <= mask) {
        for (std::size_t j = 1; j <= 9; ++j) {
          if (table[i + j].key < 0) {
            table[i + j] = {key, hash};
            return;
          }
        }
      }
      perturb >>= 5;
      i = (i * 5 + 1 + perturb) & mask;
    }
  }

  std::vector<Slot> table_ = std::vector<Slot>(8);
  std::size_t fill_ = 0;
};

// _get_largest_component then _place_start_and_goal_random's candidate list, for the h x w
// layout `open` (row-major, node (r, c) = cell r * w + c). keep[cell] says which cells stay
// open; the return value lists them in the graph's node order. Components come from
// connected_components (BFS from each node in row-major order, neighbours in the adjacency
// order the layout's edges were added in: up, left, down, right); the largest, the first found
// among equals (sorted() is stable), and minigrid fails (IndexError) when no component has two
// cells: an empty list then.
inline std::vector<int> LargestComponent(const std::vector<uint8_t>& open, int h, int w, std::vector<uint8_t>* keep) {
  const int cells = h * w;
  std::vector<int> label(static_cast<std::size_t>(cells), -1);
  std::vector<std::vector<int>> bfs_orders;
  int open_count = 0;
  for (int s = 0; s < cells; ++s) {
    if (!open[static_cast<std::size_t>(s)]) continue;
    ++open_count;
    if (label[static_cast<std::size_t>(s)] >= 0) continue;
    const int id = static_cast<int>(bfs_orders.size());
    std::vector<int> order{s};
    label[static_cast<std::size_t>(s)] = id;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const int r = order[k] / w;
      const int c = order[k] % w;
      const int nbr[4][2] = {{r - 1, c}, {r, c - 1}, {r + 1, c}, {r, c + 1}};
      for (const auto& [nr, nc] : nbr) {
        if (nr < 0 || nr >= h || nc < 0 || nc >= w) continue;
        const int n = nr * w + nc;
        if (!open[static_cast<std::size_t>(n)] || label[static_cast<std::size_t>(n)] >= 0) continue;
        label[static_cast<std::size_t>(n)] = id;
        order.push_back(n);
      }
    }
    bfs_orders.push_back(std::move(order));
  }
  keep->assign(static_cast<std::size_t>(cells), 0);
  int best = -1;
  for (int i = 0; i < static_cast<int>(bfs_orders.size()); ++i) {
    if (best < 0 ||
        bfs_orders[static_cast<std::size_t>(i)].size() > bfs_orders[static_cast<std::size_t>(best)].size()) {
      best = i;
    }
  }
  if (best < 0 || bfs_orders[static_cast<std::size_t>(best)].size() < 2) return {};
  const auto& comp = bfs_orders[static_cast<std::size_t>(best)];
  for (const int cell : comp) (*keep)[static_cast<std::size_t>(cell)] = 1;
  const auto size = static_cast<int>(comp.size());
  if (2 * size >= open_count) {  // the graph's own (row-major) order
    std::vector<int> out;
    for (int cell = 0; cell < cells; ++cell) {
      if ((*keep)[static_cast<std::size_t>(cell)]) out.push_back(cell);
    }
    return out;
  }
  // c (the BFS's set) -> show_nodes' set(c) -> the component copy in that order -> set(component).
  const auto hash = [w](int cell) {
    return TupleHash(static_cast<uint64_t>(cell / w), static_cast<uint64_t>(cell % w));
  };
  std::vector<int> order = comp;
  for (int round = 0; round < 3; ++round) {
    PySetOrder set;
    for (const int cell : order) set.Add(cell, hash(cell));
    order = set.Order();
  }
  return order;
}

}  // namespace envpool::minigrid::wfc
