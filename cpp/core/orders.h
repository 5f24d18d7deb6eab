// Orders: what the user thread asks of each env it sends (reset, step with an action, repeat
// the last observation), written before a dispatch and read by whoever runs the env - a
// worker thread, a worker process's collector - until the env's result is taken.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/spec.h"

namespace envpool {

enum class Op : uint8_t {
  kStep,    // step with the env's action row (or start a new episode, see EpisodeRules)
  kReset,   // start a new episode (reseeded first when Order::reseed)
  kRepeat,  // not reset: show the last observation again (a partial reset of a full batch)
  kPerEnv,  // (OrderBook::range_op only) each env's own Order::op applies
};

struct Order {
  int32_t next = -1;  // next env of the same chunk (executors link the envs of a chunk)
  int32_t row = 0;    // full batch sent by env id: the env's row, its place in the sends
  Op op = Op::kStep;
  bool reseed = false;
  uint64_t seed = 0;
};

// Per-env orders and action rows. Kept apart from the envs' own state (and small) so that a
// send touches few cache lines, none of them those the stepping threads write.
class OrderBook {
 public:
  OrderBook(const EnvSpec& spec, int num_envs) : orders_(static_cast<std::size_t>(num_envs)) {
    for (const auto& a : spec.action) {
      row_bytes_.push_back(a.RowBytes());
      action_data_.emplace_back(static_cast<std::size_t>(num_envs) * a.RowBytes());
      action_src_.push_back(action_data_.back().data());
    }
  }

  Order& operator[](int env_id) { return orders_[static_cast<std::size_t>(env_id)]; }
  const Order& operator[](int env_id) const { return orders_[static_cast<std::size_t>(env_id)]; }

  // The op of a dispatch of all envs in one range: writing it into every env's order would
  // drag each order's cache line to the sending core and back. kPerEnv: read Order::op.
  Op range_op = Op::kPerEnv;
  Op OpFor(int env_id, bool by_id) const {
    return by_id || range_op == Op::kPerEnv ? orders_[static_cast<std::size_t>(env_id)].op : range_op;
  }

  // Full batch: whether rows follow the order the envs were sent in (a batch sent by env id,
  // possibly a subset) or are the env ids (a dispatch of all envs in one range).
  bool rows_by_send_order = false;
  std::size_t FullBatchRow(int env_id) const {
    return static_cast<std::size_t>(rows_by_send_order ? orders_[static_cast<std::size_t>(env_id)].row : env_id);
  }

  std::size_t num_action_fields() const { return action_data_.size(); }
  const void* ActionRow(std::size_t field, int env_id) const {
    return action_src_[field] + static_cast<std::size_t>(env_id) * row_bytes_[field];
  }

  // Where the action rows are, copied out of the vectors once for a chunk of envs: the per-env
  // loop then reads a local array, not each vector's bounds and data (~9 instructions a step).
  // Row() repeats ActionRow's arithmetic on purpose: one inline helper for both measured ~1% more
  // instructions per env step (callgrind, 4e5a334).
  struct Rows {
    explicit Rows(const OrderBook& book) : num_fields(book.action_data_.size()) {
      for (std::size_t f = 0; f < num_fields; ++f) {
        src[f] = book.action_src_[f];
        bytes[f] = book.row_bytes_[f];
      }
    }
    const void* Row(std::size_t field, int env_id) const {
      return src[field] + static_cast<std::size_t>(env_id) * bytes[field];
    }
    std::size_t num_fields;
    const char* src[kMaxArraysPerKind];
    std::size_t bytes[kMaxArraysPerKind];
  };

  // Stores the actions of n envs (`actions[f]`: n contiguous rows of field f). With `borrow`
  // (a full batch the caller waits for) the caller's arrays are read in place until the batch
  // is taken: copying them would only move cache lines between cores. With `step`, envs sent by
  // id also get Op::kStep, in the pass that copies their first field (one pass over the ids).
  void StoreActions(const int* env_ids, int n, const std::vector<const void*>& actions, bool borrow,
                    bool step = false) {
    Order* ops = step && env_ids != nullptr ? orders_.data() : nullptr;
    for (std::size_t f = 0; f < action_data_.size(); ++f) {
      const std::size_t bytes = row_bytes_[f];
      const char* src = static_cast<const char*>(actions[f]);
      // Written only when it changes, which happens only with nothing in flight (a borrow
      // needs every env idle; so does the first send after a borrowed batch is taken).
      const char* want = borrow ? src : action_data_[f].data();
      if (action_src_[f] != want) action_src_[f] = want;
      if (borrow) continue;
      if (env_ids == nullptr) {
        std::memcpy(action_data_[f].data(), src, bytes * static_cast<std::size_t>(n));
        continue;
      }
      char* dst = action_data_[f].data();
      if (ops) {
        ScatterRowsTo(dst, src, bytes, env_ids, n, ops);
        ops = nullptr;
      } else {
        ScatterRowsTo(dst, src, bytes, env_ids, n, static_cast<Order*>(nullptr));
      }
    }
    if (ops) {  // no action field
      for (int i = 0; i < n; ++i) ops[env_ids[i]].op = Op::kStep;
    }
  }

 private:
  // One row per env, scattered by id: rows of the common sizes are copied as one load and
  // store each (a memcpy call per 8-byte row cost more than the copy; callgrind). `ops`
  // (unless nullptr) gets each env's Op::kStep in the same pass.
  static void ScatterRowsTo(char* dst, const char* src, std::size_t bytes, const int* env_ids, int n, Order* ops) {
    switch (bytes) {
      case 8:
        return ops ? ScatterRows<8, true>(dst, src, env_ids, n, ops) : ScatterRows<8, false>(dst, src, env_ids, n, ops);
      case 4:
        return ops ? ScatterRows<4, true>(dst, src, env_ids, n, ops) : ScatterRows<4, false>(dst, src, env_ids, n, ops);
      case 1:
        return ops ? ScatterRows<1, true>(dst, src, env_ids, n, ops) : ScatterRows<1, false>(dst, src, env_ids, n, ops);
      default:
        for (int i = 0; i < n; ++i) {
          std::memcpy(dst + static_cast<std::size_t>(env_ids[i]) * bytes, src + static_cast<std::size_t>(i) * bytes,
                      bytes);
          if (ops) ops[env_ids[i]].op = Op::kStep;
        }
    }
  }
  template <std::size_t kBytes, bool kSetOps>
  static void ScatterRows(char* dst, const char* src, const int* env_ids, int n, Order* ops) {
    for (int i = 0; i < n; ++i) {
      const int id = env_ids[i];
      std::memcpy(dst + static_cast<std::size_t>(id) * kBytes, src + static_cast<std::size_t>(i) * kBytes, kBytes);
      if constexpr (kSetOps) ops[id].op = Op::kStep;
    }
  }

  std::vector<Order> orders_;
  std::vector<std::size_t> row_bytes_;
  std::vector<std::vector<char>> action_data_;  // per action field: num_envs rows
  std::vector<const char*> action_src_;         // where actions are read: action_data_, or the
                                                // caller's arrays during a full-batch step()
};

}  // namespace envpool
