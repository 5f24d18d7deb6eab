// Worker threads that run chunks of envs.
//
// The unit of work is a chunk: a run of env ids, so handing N envs to the workers costs one
// queue operation per chunk, not per env. Two sources of chunks:
//  * a partitioned range (full batches, envs 0..n-1): each thread owns one contiguous part
//    and claims small pieces of it from a cursor of its own, then steals from other parts
//    when its own is done. The same envs stay on the same core batch after batch, so their
//    state stays in that core's cache, while the small pieces keep threads finishing together;
//  * a bounded lock-free queue (any set of env ids: async sends, partial batches).
// Workers spin briefly when there is no work (a training loop sends again within
// microseconds), then sleep on a condition variable so that an idle pool costs no CPU. A
// range may let the submitting thread help (RunOne()): it then owns part 0 in place of the
// last worker, which sits that range out. While the workers are out (SetWorkersOut: the
// caller steps alone, see solo_switch.h) they claim nothing and sleep.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/spin.h"

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

namespace envpool {

struct Chunk {
  int head = -1;  // first env id
  int count = 0;
  bool linked = false;  // the rest follow through the pool's next[] links; else head+1, head+2, ...
};

// Bounded multi-producer multi-consumer queue of chunks (D. Vyukov's design): a cell's
// sequence number says whether it is free for the push of round `pos` or holds the chunk
// for the pop of round `pos`.
class ChunkQueue {
 public:
  explicit ChunkQueue(std::size_t min_capacity) {
    std::size_t cap = 1;
    while (cap < min_capacity) cap <<= 1;
    mask_ = cap - 1;
    cells_ = std::make_unique<Cell[]>(cap);
    for (std::size_t i = 0; i < cap; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
  }

  // False when full (the pool sizes the queue so that it never is).
  bool Push(const Chunk& chunk) {
    std::size_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      const std::size_t seq = cell.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          cell.chunk = chunk;
          cell.seq.store(pos + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  bool Pop(Chunk* chunk) {
    std::size_t pos = head_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      const std::size_t seq = cell.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos + 1);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          *chunk = cell.chunk;
          cell.seq.store(pos + mask_ + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
  }

 private:
  struct alignas(64) Cell {
    std::atomic<std::size_t> seq{0};
    Chunk chunk;
  };
  std::unique_ptr<Cell[]> cells_;
  std::size_t mask_ = 0;
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
};

// A range [0, n) split into one part per thread, each claimed in pieces from its cursor.
//
// A cursor is one 64-bit word, (end << 32) | next, so that Start replaces a part's bounds in
// one store: a claim that lands before that store sees the previous range (exhausted: nothing
// to claim), one that lands after sees the new range whole. With next and end as two words a
// claim could pair the new end with the old next - before a pool's first range, next = 0 -
// and take envs of another part that its owner then runs too: an env stepped twice at once
// and a batch with one row too many, which never completes (the hang seen once in the
// create/destroy test, under load: a fresh pool's workers make their first claim while the
// caller starts the first reset).
class PartitionedRange {
 public:
  explicit PartitionedRange(int parts)
      : parts_(parts > 0 ? parts : 1), cursor_(std::make_unique<Cursor[]>(static_cast<std::size_t>(parts_))) {}

  int parts() const { return parts_; }

  // Called by one thread while no other thread can claim from a previous range that still
  // has pieces left (the pool starts a range only after the previous batch completed).
  void Start(int n, int piece) {
    piece_.store(piece, std::memory_order_relaxed);
    for (int p = 0; p < parts_; ++p) {
      const auto begin = static_cast<uint64_t>(static_cast<int64_t>(n) * p / parts_);
      const auto end = static_cast<uint64_t>(static_cast<int64_t>(n) * (p + 1) / parts_);
      // release: a thread that claims from this cursor sees everything written before Start.
      cursor_[p].word.store(end << 32 | begin, std::memory_order_release);
    }
  }

  // Claims a piece, own part first: true with [*begin, *end) to run.
  bool Claim(int thread, int* begin, int* end) {
    const auto piece = static_cast<uint64_t>(piece_.load(std::memory_order_relaxed));
    for (int k = 0; k < parts_; ++k) {
      Cursor& c = cursor_[(thread + k) % parts_];
      const uint64_t seen = c.word.load(std::memory_order_relaxed);
      if (Next(seen) >= End(seen)) continue;
      // Only claims that saw pieces left increment next, so next stays below n plus a few
      // pieces: the increment never carries into end.
      const uint64_t was = c.word.fetch_add(piece, std::memory_order_acq_rel);
      const uint32_t start = Next(was), stop = End(was);
      if (start < stop) {
        *begin = static_cast<int>(start);
        *end = static_cast<int>(start + piece < stop ? start + piece : stop);
        return true;
      }
    }
    return false;
  }

 private:
  static uint32_t Next(uint64_t word) { return static_cast<uint32_t>(word); }
  static uint32_t End(uint64_t word) { return static_cast<uint32_t>(word >> 32); }
  struct alignas(64) Cursor {
    std::atomic<uint64_t> word{0};  // (end << 32) | next
  };
  int parts_;
  std::atomic<int> piece_{1};
  std::unique_ptr<Cursor[]> cursor_;
};

class ThreadPool {
 public:
  using RunChunk = std::function<void(const Chunk&)>;

  // `capacity` bounds the chunks queued at once (the pool never has more than one per env).
  // `affinity_offset` >= 0 pins worker i to one CPU (PinWorkers); -1 leaves them unpinned.
  ThreadPool(int num_workers, int capacity, RunChunk run, std::chrono::nanoseconds spin, int affinity_offset = -1)
      : run_(std::move(run)), queue_(static_cast<std::size_t>(capacity)), range_(num_workers), spin_(spin) {
    threads_.reserve(static_cast<std::size_t>(num_workers));
    for (int i = 0; i < num_workers; ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
    if (affinity_offset >= 0) PinWorkers(affinity_offset);
  }

  ~ThreadPool() { Stop(); }

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Stops and joins the workers; chunks still queued are dropped. Idempotent.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(sleep_mu_);
      stop_.store(true);
    }
    sleep_cv_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
    threads_.clear();
  }

  int num_workers() const { return static_cast<int>(threads_.size()); }
  // Set by Stop(): work still running gives up its waits (BatchAssembler::AwaitArmed).
  const std::atomic<bool>& stopping() const { return stop_; }

  // Queues chunks and wakes sleeping workers (none while the workers are out).
  void Submit(const Chunk* chunks, int n) {
    if (n <= 0) return;
    // Counted before pushing, so a pop never finds more chunks than pending_ says.
    pending_.fetch_add(n);
    for (int i = 0; i < n; ++i) {
      while (!queue_.Push(chunks[i])) CpuRelax();  // cannot happen: capacity >= envs in flight
    }
    WakeSleepers();
  }

  // While `out`, workers claim nothing (no part of a range, no queued chunk), go to sleep and
  // are not woken: the submitting thread runs everything through RunOne(). Set by that thread
  // before it submits; a worker that read the old value runs the chunk it took, which any
  // thread may.
  void SetWorkersOut(bool out) { workers_out_.store(out); }  // seq_cst, as WakeSleepers

  // Hands out envs [0, n) in pieces of `piece` envs, one contiguous part per thread. With
  // `caller_helps` the submitting thread takes part 0 through RunOne() and the last worker
  // sits out (with one worker, the caller steps everything and no worker is woken). With
  // `caller_helps` and not `wake`, sleeping workers are left asleep (spinning ones still join):
  // the caller claims every part that no worker does, so the range completes either way.
  void SubmitRange(int n, int piece, bool caller_helps, bool wake = true) {
    range_.Start(n, piece);
    range_caller_helps_.store(caller_helps);
    range_epoch_.fetch_add(1);
    // The worker that sits out is not woken: a futex wake per batch would cost this thread a
    // syscall and put a third runnable thread on the cores that step envs.
    if (!caller_helps) {
      WakeSleepers();
    } else if (wake && !workers_out_.load(std::memory_order_relaxed) && num_workers() > 1 &&
               sleeping_with_part_.load() > 0) {  // seq_cst, as WakeSleepers
      {
        std::lock_guard<std::mutex> lock(sleep_mu_);
      }
      sleep_cv_.notify_all();
    }
  }

  // Whether a worker that would step a part of a range the caller helps with is asleep (a
  // relaxed hint: SubmitRange's own check is the one that cannot miss a sleeper).
  bool SleepingWithPart() const { return sleeping_with_part_.load(std::memory_order_relaxed) > 0; }

  // Runs one piece of the range (as part 0) or one queued chunk on the calling thread; false
  // when there is no work.
  bool RunOne() { return RunOneAs(0); }

 private:
  // The reference EnvPool's thread_affinity_offset: worker i runs only on CPU (offset + i) mod
  // the CPU count, set from here right after the threads start (as the reference does, so the
  // pinning holds once the constructor returns). The CPUs are those this process may use
  // (sched_getaffinity), in order: where it may use all of them that is the reference's CPU;
  // under a restricted set (taskset, a container's cpuset) the reference would name CPUs the
  // process may not use, which pthread_setaffinity_np refuses, so the count wraps within the
  // allowed set instead. Pinning is a placement hint: a refusal (the set changed meanwhile)
  // leaves that worker unpinned rather than failing the pool. Other platforms: no pinning.
  void PinWorkers(int offset) {
#ifdef __linux__
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    }
    if (cpus.empty()) return;
    for (std::size_t i = 0; i < threads_.size(); ++i) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[(static_cast<std::size_t>(offset) + i) % cpus.size()], &one);
      (void)pthread_setaffinity_np(threads_[i].native_handle(), sizeof(one), &one);
    }
#else
    (void)offset;
#endif
  }

  void WakeSleepers() {
    // Out, a worker would find no work (HasWork): waking it would only cost a futex call. The
    // submitting thread set the flag, so this relaxed load sees its own store.
    if (workers_out_.load(std::memory_order_relaxed)) return;
    // seq_cst with the sleeper's increment of sleeping_: either we see it, or it sees the work.
    if (sleeping_.load() > 0) {
      {
        std::lock_guard<std::mutex> lock(sleep_mu_);
      }
      sleep_cv_.notify_all();
    }
  }

  bool RunOneAs(int part) {
    int begin, end;
    if (range_.Claim(part, &begin, &end)) {
      run_(Chunk{begin, end - begin, false});
      return true;
    }
    return RunQueued();
  }

  bool RunQueued() {
    if (pending_.load(std::memory_order_acquire) <= 0) return false;
    Chunk chunk;
    if (!queue_.Pop(&chunk)) return false;
    pending_.fetch_sub(1, std::memory_order_relaxed);
    run_(chunk);
    return true;
  }

  // The range part worker `worker` steps, or -1 when it sits the current range out.
  int PartOf(int worker) const {
    const int part = worker + (range_caller_helps_.load() ? 1 : 0);
    return part < range_.parts() ? part : -1;
  }

  // Whether worker `worker`, which last saw range epoch `seen_epoch`, has work: relaxed loads
  // in the spin loop, seq_cst under the sleep mutex (pairing with WakeSleepers).
  bool HasWork(int worker, uint64_t seen_epoch, std::memory_order order = std::memory_order_seq_cst) const {
    if (workers_out_.load(order)) return false;
    return pending_.load(order) > 0 || (range_epoch_.load(order) != seen_epoch && PartOf(worker) >= 0);
  }

  bool WorkerRunOne(int worker) {
    if (workers_out_.load(std::memory_order_relaxed)) return false;
    const int part = PartOf(worker);
    return part >= 0 ? RunOneAs(part) : RunQueued();
  }

  void WorkerLoop(int worker) {
    using Clock = std::chrono::steady_clock;
    uint64_t seen_epoch = 0;
    for (;;) {
      if (stop_.load(std::memory_order_relaxed)) return;
      // Read the epoch before claiming: a range started later bumps it and is not missed.
      const uint64_t epoch = range_epoch_.load(std::memory_order_acquire);
      if (WorkerRunOne(worker)) continue;
      seen_epoch = epoch;
      // Spin for a while: the next batch usually arrives within microseconds.
      const auto spin_until = Clock::now() + spin_;
      bool work = false;
      for (unsigned i = 1;; ++i) {
        if (HasWork(worker, seen_epoch, std::memory_order_relaxed)) {
          work = true;
          break;
        }
        SpinWait(i);
        if ((i & 255) == 0 || i >= 2048) {
          if (stop_.load(std::memory_order_relaxed)) return;
          if (Clock::now() >= spin_until) break;
        }
      }
      if (work) continue;
      std::unique_lock<std::mutex> lock(sleep_mu_);
      // The last worker has no part in a range the caller helps with (see SubmitRange).
      const bool has_part = worker + 1 < range_.parts();
      sleeping_.fetch_add(1);
      if (has_part) sleeping_with_part_.fetch_add(1);
      sleep_cv_.wait(lock, [&] { return stop_.load() || HasWork(worker, seen_epoch); });
      if (has_part) sleeping_with_part_.fetch_sub(1);
      sleeping_.fetch_sub(1);
      if (stop_.load()) return;
    }
  }

  RunChunk run_;
  ChunkQueue queue_;
  PartitionedRange range_;
  std::atomic<bool> range_caller_helps_{false};
  alignas(64) std::atomic<uint64_t> range_epoch_{0};
  alignas(64) std::atomic<int64_t> pending_{0};  // chunks queued or being queued
  alignas(64) std::atomic<int> sleeping_{0};
  std::atomic<int> sleeping_with_part_{0};  // sleepers other than the last worker
  std::atomic<bool> stop_{false};
  std::atomic<bool> workers_out_{false};  // see SetWorkersOut
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
  std::chrono::nanoseconds spin_;
  std::vector<std::thread> threads_;
};

}  // namespace envpool
