// The shared memory between a pool and its worker processes (core/process_channel.cc): the
// layout both sides compute, the mapping a worker opens by path, and the worker's end of the
// command rings (commands in order, done counts, shutdown, the wake-up, a fork refused). The
// pool's side is played here by writing the words ProcessExecutor writes.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "core/process_channel.h"

using envpool::ArraySpec;
using envpool::DType;
using envpool::EnvSpec;
using envpool::ProcessLayout;
using envpool::SharedMapping;
using envpool::WorkerChannel;

namespace {

EnvSpec Spec() {
  EnvSpec spec;
  spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat32, {3}, {}, {}));      // 12 bytes
  spec.obs.push_back(ArraySpec::Box("frame", DType::kUInt8, {5}, {}, {}));      // 5 bytes
  spec.action.push_back(ArraySpec::Discrete("action", 4));                      // 8 bytes
  spec.action.push_back(ArraySpec::Box("force", DType::kFloat32, {}, {}, {}));  // 4 bytes
  return spec;
}

// Envs 0-2 on worker 0, envs 3-4 on worker 1.
ProcessLayout Layout() { return ProcessLayout::For(Spec(), 5, {0, 3, 5}, 100, 50); }

void BadWorkerSplitsAreRefused() {
  CHECK_THROWS(std::invalid_argument, ProcessLayout::For(Spec(), 5, {0, 3}, 0, 0));        // not to num_envs
  CHECK_THROWS(std::invalid_argument, ProcessLayout::For(Spec(), 5, {1, 5}, 0, 0));        // not from 0
  CHECK_THROWS(std::invalid_argument, ProcessLayout::For(Spec(), 5, {0, 3, 3, 5}, 0, 0));  // an empty worker
  CHECK_THROWS(std::invalid_argument, ProcessLayout::For(Spec(), 5, {0}, 0, 0));
}

// Every region of an env block is inside the block and clear of the others, the typed rows
// (actions, observations) 8-byte aligned; blocks are cache-line aligned and the whole fits in
// total_bytes.
void EnvBlocksHoldEachRegionApart() {
  const ProcessLayout l = Layout();
  struct Region {
    std::size_t begin, bytes;
    bool typed;
  };
  const std::vector<Region> regions = {{0, ProcessLayout::kEnvFixedBytes, true},
                                       {l.action[0], 8, true},
                                       {l.action[1], 4, true},
                                       {l.obs_step[0], 12, true},
                                       {l.obs_step[1], 5, true},
                                       {l.obs_reset[0], 12, true},
                                       {l.obs_reset[1], 5, true},
                                       {l.info_step, 100, false},
                                       {l.info_reset, 100, false},
                                       {l.error, 50, false}};
  for (std::size_t i = 0; i < regions.size(); ++i) {
    if (regions[i].typed) CHECK_EQ(regions[i].begin % 8, 0u);
    CHECK(regions[i].begin + regions[i].bytes <= l.env_stride);
    for (std::size_t j = 0; j < i; ++j) {
      CHECK(regions[j].begin + regions[j].bytes <= regions[i].begin ||
            regions[i].begin + regions[i].bytes <= regions[j].begin);
    }
  }
  CHECK_EQ(l.env_stride % 64, 0u);
  CHECK_EQ(l.envs % 64, 0u);
  CHECK(l.envs >= l.commands + 4 * 6);  // the command rings come before the env blocks
  CHECK_EQ(l.commands, l.workers + 2 * ProcessLayout::kWorkerBytes);
  CHECK_EQ(l.Env(4), l.envs + 4 * l.env_stride);
  CHECK_EQ(l.total_bytes, l.Env(5));
}

void WorkerOfAndCommandRingsFollowTheSplit() {
  const ProcessLayout l = Layout();
  const int want[] = {0, 0, 0, 1, 1};
  for (int e = 0; e < 5; ++e) CHECK_EQ(l.WorkerOf(e), want[e]);
  // Each ring holds the envs its worker hosts, rounded up to a power of two: worker 0's 3 envs
  // get slots 0-3, worker 1's 2 envs slots 4-5; a ring wraps.
  CHECK(l.ring_start == (std::vector<std::size_t>{0, 4, 6}));
  CHECK_EQ(l.CommandIndex(1, 0), 4u);
  CHECK_EQ(l.CommandIndex(1, 1), 5u);
  CHECK_EQ(l.CommandIndex(1, 2), 4u);
  CHECK_EQ(l.CommandIndex(0, 4), 0u);
  CHECK_EQ(l.CommandSlot(1, 1), l.commands + 20);
  // Where the uint32 position wraps at 2^32 the slots go on in order (with one slot per env,
  // 3 slots, positions 2^32 - 1 and 0 both took slot 0).
  CHECK_EQ(l.CommandIndex(0, 0xFFFFFFFFu), 3u);
  CHECK_EQ(l.CommandIndex(0, 0), 0u);
}

// The pool creates the mapping; a worker opens it by path and sees the same (zeroed) memory.
void AMappingOpenedByPathIsTheSameMemory() {
  const SharedMapping pool = SharedMapping::Create(4096);
  CHECK(pool.data() != nullptr);
  CHECK_EQ(pool.size(), 4096u);
  const std::string path = "/proc/self/fd/" + std::to_string(pool.fd());
  const SharedMapping worker = SharedMapping::Open(path, 4096);
  CHECK_EQ(worker.At<uint64_t>(128), 0u);
  pool.At<uint64_t>(128) = 0x1234;
  CHECK_EQ(worker.At<uint64_t>(128), 0x1234u);
  const std::string err = CHECK_THROWS(std::runtime_error, SharedMapping::Open("/nonexistent/envpool", 4096));
  CHECK(err.find("/nonexistent/envpool") != std::string::npos);
}

// The pool's side: queue env ids for worker w as ProcessExecutor does (slot, then the tail).
class PoolSide {
 public:
  PoolSide() : layout(Layout()), map(SharedMapping::Create(layout.total_bytes)) {}
  std::string path() const { return "/proc/self/fd/" + std::to_string(map.fd()); }
  void Queue(int w, const std::vector<int>& env_ids) {
    auto& tail = map.Atomic<uint32_t>(layout.Worker(w) + ProcessLayout::kCmdTail);
    uint32_t t = tail.load();
    for (int e : env_ids) map.At<int32_t>(layout.CommandSlot(w, t++)) = e;
    tail.store(t, std::memory_order_release);
  }
  uint32_t Word(std::size_t offset) const { return map.Atomic<uint32_t>(offset).load(); }
  ProcessLayout layout;
  SharedMapping map;
};

void CommandsAreTakenInOrderAndCountedDone() {
  PoolSide pool;
  WorkerChannel worker(pool.path(), pool.layout, 1);
  CHECK_EQ(worker.Wait(std::chrono::milliseconds(1), std::chrono::nanoseconds(0)), 0);  // nothing queued
  CHECK_THROWS(std::logic_error, worker.Next());
  pool.Queue(1, {4, 3});
  CHECK_EQ(worker.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0)), 2);
  CHECK_EQ(worker.Next(), 4);
  // Busy with env 4 (the pool's step timeout reads this) until Done.
  const std::size_t w = pool.layout.Worker(1);
  CHECK_EQ(pool.map.Atomic<int32_t>(w + ProcessLayout::kBusyEnv).load(), 4);
  CHECK(worker.Done());
  CHECK_EQ(pool.map.Atomic<int32_t>(w + ProcessLayout::kBusyEnv).load(), -1);
  CHECK_EQ(pool.Word(w + ProcessLayout::kDone), 1u);
  CHECK_EQ(pool.Word(ProcessLayout::kDoneSeq), 1u);
  CHECK_EQ(worker.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0)), 1);
  CHECK_EQ(worker.Next(), 3);
  CHECK(worker.Done());
  // The ring wraps: a third command reuses worker 1's first slot.
  pool.Queue(1, {4});
  CHECK_EQ(worker.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0)), 1);
  CHECK_EQ(worker.Next(), 4);
  CHECK(worker.Done());
  CHECK_EQ(pool.Word(w + ProcessLayout::kDone), 3u);
  // Worker 0's counters were not touched.
  CHECK_EQ(pool.Word(pool.layout.Worker(0) + ProcessLayout::kDone), 0u);
}

// After 2^32 commands to a worker (a long run: hours of steps) its uint32 positions wrap; the
// commands queued across the wrap still reach the worker in order, none overwriting another.
void CommandsQueuedAcrossThePositionWrapArriveInOrder() {
  PoolSide pool;
  const std::size_t w = pool.layout.Worker(0);
  pool.map.Atomic<uint32_t>(w + ProcessLayout::kCmdTail).store(0xFFFFFFFEu);
  pool.map.Atomic<uint32_t>(w + ProcessLayout::kDone).store(0xFFFFFFFEu);
  WorkerChannel worker(pool.path(), pool.layout, 0);
  pool.Queue(0, {2, 0, 1});  // positions 2^32 - 2, 2^32 - 1 and 0
  CHECK_EQ(worker.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0)), 3);
  for (int want : {2, 0, 1}) {
    CHECK_EQ(worker.Next(), want);
    CHECK(worker.Done());
  }
  CHECK_EQ(pool.Word(w + ProcessLayout::kDone), 1u);
}

// A replacement worker starts after the commands its predecessor finished.
void AReplacementWorkerResumesAfterTheDoneCommands() {
  PoolSide pool;
  pool.Queue(0, {0, 1, 2});
  {
    WorkerChannel first(pool.path(), pool.layout, 0);
    CHECK_EQ(first.Next(), 0);
    CHECK(first.Done());
  }
  WorkerChannel second(pool.path(), pool.layout, 0);
  CHECK_EQ(second.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0)), 2);
  CHECK_EQ(second.Next(), 1);
  CHECK_THROWS(std::invalid_argument, WorkerChannel(pool.path(), pool.layout, 2));  // no worker 2
}

void ShutdownOrAWriteOffEndsTheWait() {
  PoolSide pool;
  WorkerChannel worker(pool.path(), pool.layout, 0);
  pool.Queue(0, {1});
  pool.map.Atomic<uint32_t>(pool.layout.Worker(0) + ProcessLayout::kDead).store(1);
  CHECK_EQ(worker.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0)), WorkerChannel::kShutdown);
  pool.map.Atomic<uint32_t>(pool.layout.Worker(0) + ProcessLayout::kDead).store(0);
  pool.map.Atomic<uint32_t>(ProcessLayout::kShutdown).store(1);
  CHECK_EQ(worker.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0)), WorkerChannel::kShutdown);
}

// A sleeping worker wakes for commands the pool queues and signals (wake_seq + futex), long
// before its timeout.
void ASleepingWorkerWakesForNewCommands() {
  PoolSide pool;
  WorkerChannel worker(pool.path(), pool.layout, 1);
  const std::size_t w = pool.layout.Worker(1);
  std::atomic<int> got{-100};
  const auto start = std::chrono::steady_clock::now();
  std::thread t([&] { got = worker.Wait(std::chrono::seconds(60), std::chrono::nanoseconds(0)); });
  const auto deadline = start + std::chrono::seconds(30);
  while (pool.Word(w + ProcessLayout::kSleeping) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  pool.Queue(1, {3});
  pool.map.Atomic<uint32_t>(w + ProcessLayout::kWakeSeq).fetch_add(1);
  envpool::FutexWakeAll(pool.map.Atomic<uint32_t>(w + ProcessLayout::kWakeSeq));
  t.join();
  CHECK_EQ(got.load(), 1);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

// A fork of the worker (an env that forks, its child back in the worker's loop) is refused:
// Done() marks nothing done and the fork's pid and env are reported to the pool.
void AForkOfTheWorkerIsRefusedAndReported() {
  PoolSide pool;
  WorkerChannel worker(pool.path(), pool.layout, 0);
  pool.Queue(0, {2});
  CHECK_EQ(worker.Next(), 2);
  const pid_t child = fork();
  if (child == 0) _exit(worker.Done() ? 1 : 0);
  int status = 0;
  CHECK_EQ(waitpid(child, &status, 0), child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::size_t w = pool.layout.Worker(0);
  CHECK_EQ(pool.map.Atomic<int32_t>(w + ProcessLayout::kForkPid).load(), static_cast<int32_t>(child));
  CHECK_EQ(pool.map.Atomic<int32_t>(w + ProcessLayout::kForkEnv).load(), 2);
  CHECK_EQ(pool.Word(w + ProcessLayout::kDone), 0u);
  CHECK(worker.Done());  // the worker itself goes on
  CHECK_EQ(pool.Word(w + ProcessLayout::kDone), 1u);
}

}  // namespace

int main() {
  return RunTests({
      {"bad worker splits are refused", BadWorkerSplitsAreRefused},
      {"env blocks hold each region apart", EnvBlocksHoldEachRegionApart},
      {"WorkerOf and the command rings follow the split", WorkerOfAndCommandRingsFollowTheSplit},
      {"a mapping opened by path is the same memory", AMappingOpenedByPathIsTheSameMemory},
      {"commands are taken in order and counted done", CommandsAreTakenInOrderAndCountedDone},
      {"commands queued across the position wrap arrive in order", CommandsQueuedAcrossThePositionWrapArriveInOrder},
      {"a replacement worker resumes after the done commands", AReplacementWorkerResumesAfterTheDoneCommands},
      {"shutdown or a write-off ends the wait", ShutdownOrAWriteOffEndsTheWait},
      {"a sleeping worker wakes for new commands", ASleepingWorkerWakesForNewCommands},
      {"a fork of the worker is refused and reported", AForkOfTheWorkerIsRefusedAndReported},
  });
}
