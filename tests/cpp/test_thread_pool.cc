// The thread pool's parts (core/thread_pool.h): the chunk queue, the partitioned range and the
// workers, each driven from several threads. Every env of a batch must run exactly once.
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "check.h"
#include "core/thread_pool.h"

using envpool::Chunk;
using envpool::ChunkQueue;
using envpool::PartitionedRange;
using envpool::ThreadPool;

namespace {

// Waits (bounded) until `counter` reaches `target`.
void AwaitCount(const std::atomic<int>& counter, int target) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (counter.load() < target) {
    CHECK(std::chrono::steady_clock::now() < deadline);
    std::this_thread::yield();
  }
}

void QueueHoldsItsCapacityThenRefuses() {
  ChunkQueue queue(5);  // rounded up to 8
  int pushed = 0;
  while (queue.Push(Chunk{pushed, 1, false})) ++pushed;
  CHECK_EQ(pushed, 8);
  Chunk chunk;
  for (int i = 0; i < 8; ++i) {
    CHECK(queue.Pop(&chunk));
    CHECK_EQ(chunk.head, i);  // first in, first out
  }
  CHECK(!queue.Pop(&chunk));
}

void QueueDeliversEveryChunkOnceAcrossThreads() {
  constexpr int kProducers = 4, kConsumers = 4, kPerProducer = 20000;
  ChunkQueue queue(64);
  std::vector<std::atomic<int>> seen(kProducers * kPerProducer);
  std::atomic<int> popped{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) {
        while (!queue.Push(Chunk{p * kPerProducer + i, 1, false})) std::this_thread::yield();
      }
    });
  }
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&] {
      Chunk chunk;
      while (popped.load() < kProducers * kPerProducer) {
        if (queue.Pop(&chunk)) {
          seen[static_cast<std::size_t>(chunk.head)].fetch_add(1);
          popped.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& s : seen) CHECK_EQ(s.load(), 1);
}

void RangeClaimsEveryIndexOnce() {
  constexpr int kThreads = 4;
  PartitionedRange range(kThreads);
  for (int n : {1, 3, 7, 64, 1000, 4099}) {
    for (int piece : {1, 2, 5, 64}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
      range.Start(n, piece);
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          int begin, end;
          while (range.Claim(t, &begin, &end)) {
            CHECK(0 <= begin && begin < end && end <= n && end - begin <= piece);
            for (int i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
          }
        });
      }
      for (auto& t : threads) t.join();
      for (const auto& h : hits) CHECK_EQ(h.load(), 1);
    }
  }
}

// A pool whose workers count how often each env ran.
struct CountingPool {
  explicit CountingPool(int workers, int envs)
      : runs(static_cast<std::size_t>(envs)),
        pool(workers, envs, [this](const Chunk& c) { Run(c); }, std::chrono::microseconds(50)) {}
  void Run(const Chunk& c) {
    for (int i = 0; i < c.count; ++i) runs[static_cast<std::size_t>(c.head + i)].fetch_add(1);
    if (std::this_thread::get_id() == creator) on_creator.fetch_add(c.count);
    total.fetch_add(c.count);
  }
  std::thread::id creator = std::this_thread::get_id();
  std::atomic<int> on_creator{0};  // envs run by the thread that made the pool (as the caller)
  std::vector<std::atomic<int>> runs;
  std::atomic<int> total{0};
  ThreadPool pool;
};

void PoolRunsEveryQueuedChunkOnce() {
  constexpr int kEnvs = 257;
  CountingPool counting(3, kEnvs);
  for (int round = 1; round <= 200; ++round) {
    // Chunks of 1..5 envs, as async sends hand them over.
    std::vector<Chunk> chunks;
    for (int head = 0; head < kEnvs;) {
      const int count = std::min(1 + (head + round) % 5, kEnvs - head);
      chunks.push_back(Chunk{head, count, false});
      head += count;
    }
    counting.pool.Submit(chunks.data(), static_cast<int>(chunks.size()));
    AwaitCount(counting.total, round * kEnvs);
  }
  for (const auto& r : counting.runs) CHECK_EQ(r.load(), 200);
}

void PoolRunsEveryRangeEnvOnceWithAndWithoutTheCaller() {
  constexpr int kEnvs = 1000, kRounds = 300;
  for (bool caller_helps : {true, false}) {
    for (int workers : {1, 3}) {
      CountingPool counting(workers, kEnvs);
      for (int round = 1; round <= kRounds; ++round) {
        counting.pool.SubmitRange(kEnvs, 8, caller_helps, /*wake=*/true);
        if (caller_helps) {
          while (counting.pool.RunOne()) {
          }
        }
        AwaitCount(counting.total, round * kEnvs);  // a range starts only after the last completed
      }
      for (const auto& r : counting.runs) CHECK_EQ(r.load(), kRounds);
    }
  }
}

// A range the caller helps with and does not wake sleeping workers for (a small batch after a
// pause): the caller claims every part itself, sleeping workers stay asleep, nothing is lost;
// a later range that wakes them is shared again.
void RangeNotWakingSleepersIsRunByTheCaller() {
  constexpr int kEnvs = 64;
  CountingPool counting(3, kEnvs);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // workers asleep past their spin
  for (int round = 1; round <= 50; ++round) {
    counting.pool.SubmitRange(kEnvs, 4, /*caller_helps=*/true, /*wake=*/false);
    while (counting.pool.RunOne()) {
    }
    CHECK_EQ(counting.on_creator.load(), round * kEnvs);  // every env, on this thread
    AwaitCount(counting.total, round * kEnvs);
  }
  counting.pool.SubmitRange(kEnvs, 4, /*caller_helps=*/true, /*wake=*/true);
  while (counting.pool.RunOne()) {
  }
  AwaitCount(counting.total, 51 * kEnvs);
  for (const auto& r : counting.runs) CHECK_EQ(r.load(), 51);
}

// With the workers out (the caller steps alone: core/solo_switch.h) every queued chunk and
// every piece of a range, asked to wake workers or not, runs on the caller's thread, exactly
// once; once they are in again the workers share the work.
void WorkersOutLeaveEveryChunkToTheCaller() {
  constexpr int kEnvs = 96;
  CountingPool counting(3, kEnvs);
  counting.pool.SetWorkersOut(true);
  int expected = 0;
  for (int round = 0; round < 40; ++round) {
    if (round % 2 == 0) {
      std::vector<Chunk> chunks;
      for (int head = 0; head < kEnvs; head += 8) chunks.push_back(Chunk{head, 8, false});
      counting.pool.Submit(chunks.data(), static_cast<int>(chunks.size()));
    } else {
      counting.pool.SubmitRange(kEnvs, 4, /*caller_helps=*/round % 4 == 1, /*wake=*/true);
    }
    while (counting.pool.RunOne()) {
    }
    expected += kEnvs;
    CHECK_EQ(counting.on_creator.load(), expected);
    CHECK_EQ(counting.total.load(), expected);
  }
  counting.pool.SetWorkersOut(false);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int round = 0; counting.total.load() - counting.on_creator.load() == 0; ++round) {
    CHECK(std::chrono::steady_clock::now() < deadline);
    std::vector<Chunk> chunks;
    for (int head = 0; head < kEnvs; head += 8) chunks.push_back(Chunk{head, 8, false});
    counting.pool.Submit(chunks.data(), static_cast<int>(chunks.size()));
    AwaitCount(counting.total, expected + (round + 1) * kEnvs);  // the workers alone run these
  }
  for (const auto& r : counting.runs) CHECK(r.load() >= 41);
}

void StopJoinsIdleWorkersAndIsIdempotent() {
  CountingPool counting(4, 16);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // workers asleep past their spin
  counting.pool.Stop();
  CHECK_EQ(counting.pool.num_workers(), 0);
  CHECK(counting.pool.stopping().load());
  counting.pool.Stop();
}

}  // namespace

int main() {
  return RunTests({
      {"queue holds its capacity, then refuses", QueueHoldsItsCapacityThenRefuses},
      {"queue delivers every chunk once across threads", QueueDeliversEveryChunkOnceAcrossThreads},
      {"range claims every index once", RangeClaimsEveryIndexOnce},
      {"pool runs every queued chunk once", PoolRunsEveryQueuedChunkOnce},
      {"pool runs every range env once, with and without the caller", PoolRunsEveryRangeEnvOnceWithAndWithoutTheCaller},
      {"a range not waking sleepers is run by the caller", RangeNotWakingSleepersIsRunByTheCaller},
      {"workers out leave every chunk to the caller", WorkersOutLeaveEveryChunkToTheCaller},
      {"stop joins idle workers and is idempotent", StopJoinsIdleWorkersAndIsIdempotent},
  });
}
