// The result memory a test lends an EnvPool, as the Python module lends it NumPy arrays: every
// ring position armed before the first send, a fresh allocation for each batch taken, and all
// of it kept until the test ends (a taken batch stays readable, as the user's arrays do).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

#include "check.h"
#include "core/pool.h"

class LentBatches {
 public:
  // Arms every ring position of `pool`.
  explicit LentBatches(envpool::EnvPool& pool) : pool_(pool) {
    armed_.resize(static_cast<std::size_t>(pool_.ring_size()));
    for (int pos = 0; pos < pool_.ring_size(); ++pos) {
      armed_[static_cast<std::size_t>(pos)] = NewBuffers();
      pool_.ArmBuffers(pos, armed_[static_cast<std::size_t>(pos)]);
    }
  }

  // Waits for the next batch (failing the test if it is not ready within `timeout_s`) and takes
  // it: its memory is what was armed at the position TakeBatch names, re-armed with fresh memory.
  const envpool::BatchBuffers& Recv(double timeout_s = 30) {
    static const std::function<bool()> never_interrupted;
    CHECK(pool_.WaitBatch(timeout_s, never_interrupted) == envpool::WaitResult::kReady);
    const envpool::BatchBuffers fresh = NewBuffers();
    const auto pos = static_cast<std::size_t>(pool_.TakeBatch(fresh));
    taken_.push_back(armed_[pos]);
    armed_[pos] = fresh;
    return taken_.back();
  }

  // Row `row` of field `field` of a taken batch.
  template <typename T>
  T At(const envpool::BatchBuffers& batch, std::size_t field, int row) const {
    return *batch.Row<T>(pool_.layout(), field, static_cast<std::size_t>(row));
  }

 private:
  envpool::BatchBuffers NewBuffers() {
    envpool::BatchBuffers b;
    for (const auto& f : pool_.layout().fields) {
      store_.emplace_back(f.row_bytes * static_cast<std::size_t>(pool_.batch_size()), char{0});
      b.data.push_back(store_.back().data());
    }
    return b;
  }

  envpool::EnvPool& pool_;
  std::vector<envpool::BatchBuffers> armed_;
  std::deque<envpool::BatchBuffers> taken_;  // a deque: references to taken batches stay valid
  std::deque<std::vector<char>> store_;      // every buffer lent
};
