// BatchAssembler: the ring of result batches that rows are written into.
//
// Producers - worker threads stepping native envs, the collector of a process executor,
// later network clients - complete rows with three calls:
//   Reserve(count)   claims `count` consecutive rows (one compare-and-swap, whoever calls it);
//   Buffers(pos)     where to write them (BatchBuffers of the ring position);
//   Publish(pos, k)  makes k written rows of a position visible; the batch is complete when
//                    batch_size rows are published.
// The consumer (the user thread) waits until the next batch is complete (Ready / SleepUntil)
// and takes it (Take), handing in fresh memory for that ring position.
//
// Full batches (batch_size == num_envs) skip Reserve: the row of env i is row i of the
// position being filled (FullBatchPos), so no shared counter is touched per env.
//
// A row is one result of one env; nothing here assumes one row per env, so an env that
// reports several rows at once (agents of a multi-agent env) reserves several.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/buffers.h"
#include "core/spin.h"

namespace envpool {

class BatchAssembler {
 public:
  // Batches of `batch_size` rows, `ring_size` of them complete or filling at once.
  BatchAssembler(const BatchLayout& layout, int batch_size, int ring_size)
      : layout_(layout),
        batch_size_(batch_size),
        ring_(static_cast<std::size_t>(ring_size)),
        written_(std::make_unique<RowCounter[]>(static_cast<std::size_t>(ring_size))),
        rows_(std::make_unique<RowCounter[]>(static_cast<std::size_t>(ring_size))) {
    if (static_cast<uint64_t>(batch_size) > kRowMask) throw std::invalid_argument("batch_size must be < 2^24");
    for (int i = 0; i < ring_size; ++i) rows_[static_cast<std::size_t>(i)].value.store(batch_size);
  }

  const BatchLayout& layout() const { return layout_; }
  int batch_size() const { return batch_size_; }
  int ring_size() const { return static_cast<int>(ring_.size()); }

  // Lends memory for ring position `pos` (one pointer per layout field, batch_size rows each).
  void Arm(int pos, BatchBuffers buffers) {
    if (pos < 0 || pos >= ring_size() || buffers.data.size() != layout_.fields.size()) {
      throw std::invalid_argument("ArmBuffers: bad position or field count");
    }
    ring_[static_cast<std::size_t>(pos)] = std::move(buffers);
  }

  const BatchBuffers& Buffers(std::size_t pos) const { return ring_[pos]; }

  // -- producers ------------------------------------------------------------------------------

  // Full batch: the position being filled (rows are env ids). Producers read it after taking
  // their work from a queue or cursor whose synchronization orders it after Take's store.
  std::size_t FullBatchPos() const { return full_batch_pos_; }

  // Claims `count` consecutive rows: (batch index, first row). Rows past the end of a batch
  // continue in the next batch (index + 1, row 0, ...).
  std::pair<uint64_t, std::size_t> Reserve(int count) {
    // next_row_ packs (batch index << 24 | row); batch_size < 2^24 (checked at construction).
    const auto b = static_cast<uint64_t>(batch_size_);
    uint64_t cur = next_row_.load(std::memory_order_relaxed);
    uint64_t nxt;
    do {
      const uint64_t row = (cur & kRowMask) + static_cast<uint64_t>(count);
      nxt = (((cur >> 24) + row / b) << 24) | (row % b);
    } while (!next_row_.compare_exchange_weak(cur, nxt, std::memory_order_relaxed));
    return {cur >> 24, static_cast<std::size_t>(cur & kRowMask)};
  }

  std::size_t PosOf(uint64_t batch) const { return static_cast<std::size_t>(batch % ring_.size()); }
  std::size_t NextPos(std::size_t pos) const { return pos + 1 == ring_.size() ? 0 : pos + 1; }

  // Whether the ring position of batch `batch` has been re-armed for it. Batch `batch` reuses
  // the position of batch `batch - ring size`, re-armed when that batch was taken; acquiring
  // taken_batches_ is what orders the re-arming before the producer's writes. The pool never
  // has more unreturned rows than the ring holds, so a row's position is armed by the time it
  // is reserved, unless the load is stale.
  bool Armed(uint64_t batch) const { return taken_batches_.load(std::memory_order_acquire) + ring_.size() > batch; }

  // Waits until the position of batch `batch` is armed (see Armed: at once, unless the load
  // is stale). For producers on other threads than the consumer's.
  void AwaitArmed(uint64_t batch) const {
    for (unsigned i = 0; !Armed(batch); ++i) SpinWait(i);
  }
  // The same, giving up (false) once `stop` is set: a pool that closes never waits on it.
  bool AwaitArmed(uint64_t batch, const std::atomic<bool>& stop) const {
    for (unsigned i = 0; !Armed(batch); ++i) {
      SpinWait(i);
      if ((i & 255) == 255 && stop.load(std::memory_order_relaxed)) return false;
    }
    return true;
  }

  // Batches taken so far: the index of the next batch to take.
  uint64_t Taken() const { return taken_batches_.load(std::memory_order_relaxed); }

  // Makes `count` written rows of position `pos` visible to the consumer.
  void Publish(std::size_t pos, int count) {
    // seq_cst pairs with SleepUntil's store to waiter_sleeping_ (no lost wake-up).
    if (written_[pos].value.fetch_add(count) + count == rows_[pos].value.load() && waiter_sleeping_.load()) {
      {
        std::lock_guard<std::mutex> lock(done_mu_);
      }
      done_cv_.notify_all();
    }
  }

  // -- the consumer ---------------------------------------------------------------------------

  // Ring position of the next batch to take.
  std::size_t TakePos() const { return taken_pos_; }
  int Written(std::size_t pos) const { return written_[pos].value.load(std::memory_order_relaxed); }
  bool Ready() const {
    return written_[taken_pos_].value.load(std::memory_order_acquire) ==
           rows_[taken_pos_].value.load(std::memory_order_relaxed);
  }
  // Rows of the next batch to take: batch_size, or fewer after Cut() or ExpectRows().
  int Rows() const { return rows_[taken_pos_].value.load(std::memory_order_relaxed); }

  // Ends the next batch to take at the rows reserved so far (at least one), so that it is
  // complete once those are published: a partial batch, for executors whose rows arrive
  // when their producers please (external episodes). Rows reserved afterwards start the
  // following batch. Returns the batch's rows, or 0 when it has none reserved yet or is
  // already closed (complete or cut).
  int Cut() {
    const uint64_t batch = taken_batches_.load(std::memory_order_relaxed);
    uint64_t cur = next_row_.load(std::memory_order_relaxed);
    do {
      if ((cur >> 24) != batch || (cur & kRowMask) == 0) return 0;
    } while (!next_row_.compare_exchange_weak(cur, (batch + 1) << 24, std::memory_order_relaxed));
    const int rows = static_cast<int>(cur & kRowMask);
    // seq_cst, before a producer's Publish of the last reserved row compares against it.
    rows_[taken_pos_].value.store(rows);
    return rows;
  }

  // Full batch sent by env id: the batch being filled is complete at `rows` rows (the envs
  // sent so far; a subset of the envs gives a short batch). Called by the user thread before
  // it dispatches the envs that raise the count, so no Publish can miss it.
  void ExpectRows(int rows) { rows_[taken_pos_].value.store(rows); }

  // Sleeps until the next batch is complete or `until`; true when it is complete.
  bool SleepUntil(std::chrono::steady_clock::time_point until) {
    waiter_sleeping_.store(true);
    {
      std::unique_lock<std::mutex> lock(done_mu_);
      done_cv_.wait_until(lock, until, [this] { return Ready(); });
    }
    waiter_sleeping_.store(false);
    return Ready();
  }

  // Takes the complete next batch: returns its position, which is re-armed with `fresh` (the
  // caller now owns the memory that was there).
  int Take(BatchBuffers fresh) {
    const std::size_t pos = taken_pos_;
    if (!Ready()) throw std::logic_error("TakeBatch: the batch is not complete");
    if (fresh.data.size() != layout_.fields.size()) throw std::invalid_argument("TakeBatch: wrong field count");
    written_[pos].value.store(0, std::memory_order_relaxed);
    rows_[pos].value.store(batch_size_, std::memory_order_relaxed);
    ring_[pos] = std::move(fresh);
    // release: a producer that acquires this count sees the position re-armed (AwaitArmed).
    taken_batches_.fetch_add(1, std::memory_order_release);
    taken_pos_ = NextPos(pos);
    full_batch_pos_ = taken_pos_;
    return static_cast<int>(pos);
  }

 private:
  static constexpr uint64_t kRowMask = (uint64_t{1} << 24) - 1;
  // One cache line each: producers fill one batch while the consumer polls another.
  struct alignas(64) RowCounter {
    std::atomic<int> value{0};
  };

  const BatchLayout& layout_;
  const int batch_size_;
  std::vector<BatchBuffers> ring_;
  std::unique_ptr<RowCounter[]> written_;               // rows published per ring position
  std::unique_ptr<RowCounter[]> rows_;                  // rows that complete each position's batch
  alignas(64) std::atomic<uint64_t> next_row_{0};       // next free (batch index << 24 | row)
  alignas(64) std::atomic<uint64_t> taken_batches_{0};  // batches taken (their positions re-armed)
  std::size_t full_batch_pos_ = 0;
  std::size_t taken_pos_ = 0;

  // Batch-complete notification for a sleeping consumer.
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  std::atomic<bool> waiter_sleeping_{false};
};

}  // namespace envpool
