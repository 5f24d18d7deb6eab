// Worker threads that run chunks of envs.
//
// The unit of work is a chunk: a run of env ids linked through the pool's `next` array, so
// handing N envs to the workers costs one queue operation per chunk, not per env. Workers
// pull chunks under one mutex (a few dozen per batch at most), spin briefly when the queue is
// empty (a training loop sends again within microseconds), then sleep on a condition variable
// so that an idle pool costs no CPU. A thread waiting for results calls RunOne() to help.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace envpool {

struct Chunk {
  int head = -1;  // first env id; the rest follow through the pool's next[] links
  int count = 0;
};

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

class ThreadPool {
 public:
  using RunChunk = std::function<void(const Chunk&)>;

  // `capacity` bounds the chunks queued at once (the pool never has more than one per env).
  ThreadPool(int num_workers, int capacity, RunChunk run, std::chrono::nanoseconds spin)
      : run_(std::move(run)), queue_(static_cast<std::size_t>(capacity)), spin_(spin) {
    threads_.reserve(static_cast<std::size_t>(num_workers));
    for (int i = 0; i < num_workers; ++i) threads_.emplace_back([this] { WorkerLoop(); });
  }

  ~ThreadPool() { Stop(); }

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Stops and joins the workers; chunks still queued are dropped. Idempotent.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_.store(true);
    }
    cv_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
    threads_.clear();
  }

  int num_workers() const { return static_cast<int>(threads_.size()); }

  // Queues chunks and wakes sleeping workers (one lock for the whole batch).
  void Submit(const Chunk* chunks, int n) {
    int wake = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int i = 0; i < n; ++i) {
        queue_[(head_ + size_) % queue_.size()] = chunks[i];
        ++size_;
      }
      pending_.store(size_, std::memory_order_release);
      wake = sleeping_ < n ? sleeping_ : n;
    }
    if (wake >= static_cast<int>(threads_.size())) {
      cv_.notify_all();
    } else {
      for (int i = 0; i < wake; ++i) cv_.notify_one();
    }
  }

  // Runs one queued chunk on the calling thread; false when the queue is empty.
  bool RunOne() {
    if (pending_.load(std::memory_order_acquire) == 0) return false;
    Chunk chunk;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (size_ == 0) return false;
      chunk = queue_[head_];
      head_ = (head_ + 1) % queue_.size();
      --size_;
      pending_.store(size_, std::memory_order_release);
    }
    run_(chunk);
    return true;
  }

  bool HasPending() const { return pending_.load(std::memory_order_acquire) != 0; }

 private:
  void WorkerLoop() {
    using Clock = std::chrono::steady_clock;
    for (;;) {
      if (stop_.load(std::memory_order_relaxed)) return;
      if (RunOne()) continue;
      // Spin for a while: the next batch usually arrives within microseconds.
      const auto spin_until = Clock::now() + spin_;
      bool work = false;
      for (unsigned i = 1;; ++i) {
        if (pending_.load(std::memory_order_relaxed) != 0) {
          work = true;
          break;
        }
        CpuRelax();
        if ((i & 255) == 0) {
          if (stop_.load(std::memory_order_relaxed)) return;
          if (Clock::now() >= spin_until) break;
        }
      }
      if (work) continue;
      std::unique_lock<std::mutex> lock(mu_);
      ++sleeping_;
      cv_.wait(lock, [this] { return stop_.load() || size_ != 0; });
      --sleeping_;
      if (stop_.load()) return;
    }
  }

  RunChunk run_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Chunk> queue_;  // ring buffer guarded by mu_
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  int sleeping_ = 0;
  std::atomic<bool> stop_{false};  // written under mu_, read without it while spinning
  std::atomic<std::size_t> pending_{0};  // == size_, readable without the lock
  std::chrono::nanoseconds spin_;
  std::vector<std::thread> threads_;
};

}  // namespace envpool
