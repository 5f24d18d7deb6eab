// The shared memory between a pool and its worker processes (see process_executor.h).
//
// One mapping holds everything; nothing is pickled per step:
//   header          done_seq (bumped by a worker after each env it finishes: the futex word the
//                   collecting caller sleeps on), collector_waiting and wake_at (when to wake
//                   it), shutdown;
//   one block per worker
//                   wake_seq (the futex word the worker sleeps on), cmd_tail (commands queued
//                   by the pool), done (commands the worker finished), sleeping, dead,
//                   busy_since_ns / busy_env (what it runs now, for step timeouts),
//                   fork_pid / fork_env (a fork of the worker that tried to go on with its
//                   loop, see WorkerChannel::ReportFork);
//   command lists   per worker, a ring of env ids with at least one slot per env it hosts (an
//                   env is in flight at most once, so a ring never overflows), a power of two
//                   in size so that a position's slot stays continuous when the uint32
//                   position wraps at 2^32 (2^32 is a multiple of the size);
//   one block per env
//                   its order (op, reseed, time_limit, seed), its action rows, and what the
//                   worker staged: reward and flags, the observation after a step and after a
//                   reset, pickled info dicts (optional, bounded) and an error text.
// Counters only grow (uint32, wrapping); a worker takes commands in order, so `done` says
// exactly which of its commands are finished. The pool never takes a worker's word for more
// than it sent (see ProcessExecutor::Collect): shared memory is writable by every process
// that maps it, a fork of a worker included. Words that two processes both touch are
// lock-free std::atomic (address-free, so valid across processes) and futexes are shared.
//
// The layout is computed from the env spec by ProcessLayout, identically in the pool and in
// each worker (the worker gets it as a plain dict).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/spec.h"

namespace envpool {

// Byte offsets of everything in the mapping.
struct ProcessLayout {
  std::size_t num_envs = 0;
  std::size_t num_workers = 0;
  std::vector<int> worker_start;   // worker w hosts envs [worker_start[w], worker_start[w + 1])
  std::size_t info_capacity = 0;   // bytes per pickled info dict
  std::size_t error_capacity = 0;  // bytes per error text

  // Header (each word on a cache line of its own).
  // The collector sleeps until done_seq reaches wake_at (the commands its batch still needs),
  // so a batch costs it one wake-up, not one per env.
  static constexpr std::size_t kDoneSeq = 0, kCollectorWaiting = 64, kWakeAt = 68, kShutdown = 128, kHeaderBytes = 192;
  // Per worker block.
  static constexpr std::size_t kWakeSeq = 0, kSleeping = 4, kCmdTail = 8, kDone = 64, kDead = 68, kBusySince = 72,
                               kBusyEnv = 80, kForkPid = 84, kForkEnv = 88, kWorkerBytes = 128;
  std::size_t workers = 0;   // first worker block
  std::size_t commands = 0;  // int32 ring slots, worker w's at commands + 4 * ring_start[w]
  // Worker w's command ring is slots [ring_start[w], ring_start[w + 1]): the smallest power of two
  // that holds one slot per env it hosts (RingStarts).
  std::vector<std::size_t> ring_start;
  // Per env block: env e's is at envs + e * env_stride.
  static constexpr std::size_t kOp = 0, kReseed = 1, kTimeLimit = 2, kFailed = 3, kInfoStepLen = 4, kInfoResetLen = 8,
                               kErrorLen = 12, kSeed = 16, kReward = 24, kTerminated = 32, kTruncated = 33,
                               kEnvFixedBytes = 64;
  std::size_t envs = 0;
  std::size_t env_stride = 0;
  std::vector<std::size_t> action;     // per action field, offset within an env block
  std::vector<std::size_t> obs_step;   // per obs field: the observation after a step
  std::vector<std::size_t> obs_reset;  // per obs field: the observation after a reset
  std::size_t info_step = 0, info_reset = 0, error = 0;
  std::size_t total_bytes = 0;

  static ProcessLayout For(const EnvSpec& spec, int num_envs, const std::vector<int>& worker_start,
                           std::size_t info_capacity, std::size_t error_capacity);

  std::size_t Env(int env_id) const { return envs + static_cast<std::size_t>(env_id) * env_stride; }
  std::size_t Worker(int w) const { return workers + static_cast<std::size_t>(w) * kWorkerBytes; }
  // Index of command `pos` of worker `w` among all ring slots (its byte offset: CommandSlot).
  std::size_t CommandIndex(int w, uint32_t pos) const {
    const std::size_t first = ring_start[static_cast<std::size_t>(w)];
    const std::size_t size = ring_start[static_cast<std::size_t>(w) + 1] - first;  // a power of two
    return first + (pos & (size - 1));
  }
  std::size_t CommandSlot(int w, uint32_t pos) const { return commands + 4 * CommandIndex(w, pos); }
  int WorkerOf(int env_id) const;
  // ring_start for a split of the envs among workers (worker_start).
  static std::vector<std::size_t> RingStarts(const std::vector<int>& worker_start);
};

// A shared memory mapping; the pool creates it (an anonymous memfd), workers open it by path.
class SharedMapping {
 public:
  static SharedMapping Create(std::size_t bytes);                         // a new zeroed memfd mapping
  static SharedMapping Open(const std::string& path, std::size_t bytes);  // e.g. /proc/<pid>/fd/<fd>
  SharedMapping() = default;
  SharedMapping(SharedMapping&& other) noexcept { *this = std::move(other); }
  SharedMapping& operator=(SharedMapping&& other) noexcept;
  ~SharedMapping();

  char* data() const { return data_; }
  std::size_t size() const { return size_; }
  int fd() const { return fd_; }

  template <typename T>
  std::atomic<T>& Atomic(std::size_t offset) const {
    static_assert(std::atomic<T>::is_always_lock_free);
    return *reinterpret_cast<std::atomic<T>*>(data_ + offset);
  }
  template <typename T>
  T& At(std::size_t offset) const {
    return *reinterpret_cast<T*>(data_ + offset);
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  int fd_ = -1;
};

// Futex wait / wake on a 32-bit word in shared memory (cross-process).
// Wait returns when *word != expected, on a wake, or after `timeout` (spurious returns are ok).
void FutexWait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::nanoseconds timeout);
void FutexWakeAll(std::atomic<uint32_t>& word);

// The worker process's end: takes its commands in order and reports each finished one.
// Only the process that opened the channel may use it: a fork of the worker (an env that
// forks, and whose child returns into the worker's loop) is refused and reported instead.
class WorkerChannel {
 public:
  static constexpr int kShutdown = -1;  // Wait(): the pool shuts down, or wrote this worker off
  static constexpr int kForked = -2;    // Wait(): called in a fork of the worker (reported)

  WorkerChannel(const std::string& path, ProcessLayout layout, int worker);

  const ProcessLayout& layout() const { return layout_; }
  const SharedMapping& mapping() const { return map_; }

  // Waits up to `timeout` for commands, spinning for `spin` first (a training loop sends
  // again quickly): returns how many are queued, 0 on timeout or when woken with none (the
  // pool has a control message), kShutdown or kForked.
  int Wait(std::chrono::nanoseconds timeout, std::chrono::nanoseconds spin);
  // The next command: its env id (the caller reads the env's order from the env block). The
  // worker counts as busy with that env (for step timeouts) until Done().
  int Next();
  // The command taken by Next() is done: its results are staged. False in a fork of the
  // worker, which must stop at once: the fork is reported and nothing is marked done.
  bool Done();
  // Tells the pool that a fork of this worker (this process, when it is not the one that
  // opened the channel) reached the worker's loop while running env `env_id` (-1: unknown).
  // The pool reports the worker as failed and replaces it; the fork must exit.
  void ReportFork(int env_id);

 private:
  void SetBusy(int env_id);  // -1: idle
  bool IsFork() const;

  SharedMapping map_;
  ProcessLayout layout_;
  int worker_;
  int owner_pid_;         // the process that opened the channel
  uint32_t next_ = 0;     // position of the next command to take
  int current_env_ = -1;  // the command taken by Next(), until Done()
};

// Starts a thread that ends this process - its whole process group when it leads one - once
// process `pid` has exited. A worker process calls it with the pool's process: unlike
// PR_SET_PDEATHSIG, which fires when the *thread* that forked the worker exits (a pool made
// in a short-lived thread would lose its workers), this follows the process. Waits on a
// pidfd (Linux >= 5.3), else polls getppid() every 100 ms. Throws if `pid` is already gone.
// `remove_dir` (unless empty) is removed first, with all it holds: the pool's spill directory,
// which the pool's process, killed, could not remove itself.
void EndProcessGroupWhenProcessExits(int pid, const std::string& remove_dir = {});

}  // namespace envpool
