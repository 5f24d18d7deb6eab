// ThreadExecutor: native C++ envs stepped by a thread pool (thread_pool.h), each env's
// result written straight into its row of the batch being assembled.
//
// Dispatch without per-env locks or queue operations: a dispatch of all envs is one
// partitioned range (envs stay on one core batch after batch); a set of env ids goes out as
// linked chunks of about kChunkWork each through the lock-free queue, and each chunk reserves
// its rows with one compare-and-swap when a worker starts it (a chunk of a single env: when it
// finishes, so batches fill in finish order). In a full-batch step() of envs known to be
// quick the calling thread steps envs too (Help), as it does in async loops where a core is
// left for it; it never takes work whose cost it does not know yet, so it stays free to
// notice Ctrl-C and timeouts.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/executor.h"
#include "core/pool_options.h"
#include "core/registry.h"
#include "core/rng.h"
#include "core/solo_switch.h"
#include "core/thread_pool.h"

namespace envpool {

class ThreadExecutor final : public Executor {
 public:
  // Makes env i from configs[i] with its RNG seeded with the pool's seed for it, and starts the
  // pool's num_threads workers (spinning for its `spin` before they sleep, pinned as it says).
  ThreadExecutor(ExecutorContext context, const TaskSpec& task, const std::vector<Config>& configs,
                 const ResolvedPoolOptions& options);
  ~ThreadExecutor() override { Stop(); }

  void Dispatch(const int* env_ids, int n, bool wait_follows) override;
  // Waits for the batch (WaitForBatch) and tells the solo switch.
  WaitResult Wait(const WaitBudget& budget, int in_flight) override;
  int parallelism() const override { return num_threads_; }
  EpisodeState& Episode(int env_id) override { return slots_[static_cast<std::size_t>(env_id)].episode; }
  void Render(int env_id, uint8_t* rgb) override { RenderMany(&env_id, 1, rgb, 0); }
  // On the workers, in up to num_threads chunks queued as env steps are (see RenderJob).
  void RenderMany(const int* env_ids, int n, uint8_t* frames, std::size_t frame_bytes) override;
  std::vector<double> GetState(int env_id) const override {
    return slots_[static_cast<std::size_t>(env_id)].env->GetState();
  }
  void SetState(int env_id, const std::vector<double>& state) override;
  void Stop() override {
    if (threads_) threads_->Stop();
  }

 private:
  // Per-env state written by the thread stepping the env; cache-line aligned so envs stepped
  // by different threads never share a line.
  // The env pointer and the episode state, read for every step, come first, so they share the
  // slot's first line (the 64-byte Rng makes a slot two lines; an env that draws no random
  // numbers in a step touches only the first: callgrind's simulated L1 misses, CartPole 64
  // envs 1 thread, 280 -> 173 per step; no wall-clock change measured on the 2-core VM).
  struct alignas(64) EnvSlot {
    std::unique_ptr<Env> env;
    EpisodeState episode;
    // Resets so far (ResetEnv times one in eight). Here rather than a thread_local counter: in
    // a shared library every thread_local access calls __tls_get_addr (callgrind, Blackjack-v1
    // 1024 envs, a reset every 1-2 steps: 4.7 instructions per env step).
    uint32_t resets = 0;
    Rng rng;
  };

  // Helps step envs (Help) while that is safe, then spins or, when the batch is far from
  // complete in an async loop, sleeps at once (leaving the cores to the workers).
  WaitResult WaitForBatch(const WaitBudget& budget, int in_flight);
  // Whether the caller may step every env of the coming batch alone (solo_switch.h): it may
  // step them (QuickForCaller) and there are workers whose waits it could save. In a full
  // batch, where it steps envs anyway (caller_helps_), with more than one worker.
  bool SoloAllowed(int64_t estimate) const {
    return ctx_.full_batch() ? caller_helps_ && num_threads_ > 1 : QuickForCaller(estimate);
  }
  // The waiting caller's share of the work: one piece per call, false when there is none
  // (left): its chunks of a full-batch dispatch, or in async loops queued envs while its batch
  // is incomplete and a batch's steps add up to kCallerMinWork (see the .cc).
  bool Help();
  // Whether envs whose step costs `estimate` ns are quick enough for the caller to step: it must
  // notice Ctrl-C and timeouts between env steps. A step may be an autoreset, so their resets
  // must be known to be quick enough too (an Atari reset with a large noop_max takes seconds
  // where its step takes 0.2 ms: the caller stuck in one held Ctrl-C back 1.7-11 s).
  bool QuickForCaller(int64_t estimate) const {
    const int64_t reset = ns_per_reset_.load(std::memory_order_relaxed);
    return estimate > 0 && estimate < kCallerMaxStep.count() && reset > 0 && reset < kCallerMaxReset.count();
  }
  // Whether a caller waiting in an async recv() steps queued envs (see Help): a core is left
  // for it, the envs are quick and a batch's steps add up to kCallerMinWork.
  bool AsyncCallerStepsQueued(int64_t estimate) const {
    return !ctx_.full_batch() && async_caller_helps_ && QuickForCaller(estimate) &&
           estimate * ctx_.batch_size >= kCallerMinWork.count();
  }
  // Whether a full-batch range the caller helps with, of `work` ns of steps, should wake
  // sleeping workers (see kWakeWork and the .cc).
  bool WakeForRange(int64_t work);
  void RunChunk(const Chunk& chunk);  // runs and times a chunk
  void RunRenderChunk(int part);      // part `part` of the render job
  void RunChunkEnvs(const Chunk& chunk);
  // Async, a chunk of one env (envs whose step costs about kChunkWork or more, unless a send
  // holds more of them than kMaxChunksPerThread per thread): the env steps
  // into a row of this thread's own and only then reserves its row of the batch, so batches
  // fill in the order envs finish: where step times differ between envs, a batch of quick
  // ones is not held up by a slow env that happened to start before them. The row's copy is
  // small beside such a step; chunks of several (cheap) envs reserve their rows up front.
  void RunOneInFinishOrder(int env_id, Op op, std::string& error);
  // Resets one env, timing one reset in eight of each env's (its first among them) for
  // ns_per_reset_. Out of line: resets are rare beside steps.
  [[gnu::noinline]] void ResetEnv(EnvSlot& slot, Output& out);
  // Steps (or resets) one env into row `row` of `buf`, whose rows `rows` holds resolved, reading
  // its action rows where `actions` says.
  void StepEnv(int env_id, const BatchBuffers& buf, const BatchRows& rows, std::size_t row, Op op,
               const OrderBook::Rows& actions, std::string& error);

  std::vector<EnvSlot> slots_;  // read by the workers for every env
  int num_threads_;
  std::chrono::nanoseconds spin_;  // how long an idle worker spins before it sleeps
  // Written by the calling thread per dispatch: a cache line apart from what workers read.
  alignas(64) std::vector<Chunk> chunk_scratch_;
  std::vector<Chunk> caller_chunks_;                    // chunks the waiting caller runs itself
  std::chrono::steady_clock::time_point last_range_{};  // last dispatch that found a sleeper (WakeForRange)
  bool caller_helps_ = false;                           // the current dispatch lets the caller step envs
  bool solo_allowed_ = false;                           // SoloAllowed for the last dispatch
  bool solo_ = false;                                   // the last dispatch is the caller's alone
  SoloSwitch solo_switch_;                              // chooses solo_ where allowed
  bool async_caller_helps_ = false;                     // fewer workers than cores: see Help()
  alignas(64) std::atomic<int64_t> ns_per_env_{-1};     // running estimate of one env step's cost (-1: unknown)
  std::atomic<int64_t> ns_per_reset_{-1};               // the same for a reset, explicit or automatic

  // Work per chunk handed to a thread: large enough to amortize a hand-off between cores
  // (~0.1-1 us), small enough that threads finish a batch at nearly the same time.
  static constexpr std::chrono::nanoseconds kChunkWork{std::chrono::microseconds(20)};
  static constexpr int kMaxChunksPerThread = 4;
  // Pieces of a partitioned full batch. Each piece costs a claim, a publish of its rows to the
  // batch's shared count and, once a thread's own part is done, steals that move envs (and
  // their cache lines) to another core; smaller pieces only even out the threads' finishing
  // times. Measured on the 16-core device (CartPole 8192 envs, 16 threads): 4 µs pieces 54-87M
  // steps/s, 8-64 µs 121-148M (4 threads: 34 -> 48M with 16 µs); on 2 cores 16 µs is within
  // noise of 4 µs (0.99-1.02x, CartPole 256-8192, Pendulum 1024, HalfCheetah 16/64).
  static constexpr std::chrono::nanoseconds kPieceWork{std::chrono::microseconds(16)};
  // The caller steps envs only if one step is estimated below kCallerMaxStep and one reset below
  // kCallerMaxReset (interrupts and timeouts wait for them). Resets may take longer: they are
  // rare, and a task whose reset settles its physics (dm_control's cheetah: 200 steps, ~1 ms)
  // kept out of the caller's help lost the solo switch, and beside two busy processes its
  // 32-env pool ran at a quarter of its one-thread rate (a preempted worker holding pieces).
  static constexpr std::chrono::nanoseconds kCallerMaxStep{std::chrono::milliseconds(1)};
  static constexpr std::chrono::nanoseconds kCallerMaxReset{std::chrono::milliseconds(10)};
  // In a full-batch step() the caller wakes a sleeping worker for a batch whose steps take at
  // least this (smaller ones: see WakeForRange). A wake-up costs the caller a futex syscall
  // and the worker 10-30 µs on a VM before it claims a piece, which the caller then waits for.
  // Measured on 2 cores with 300 µs of caller work between steps, 2 threads, always waking:
  // CartPole 64 envs 11.0 µs a step (1 thread: 3.0), 1024 envs (31 µs of steps) 36 (31),
  // Pendulum 256 (23 µs) 31 (23.5); Pendulum 1024 (89 µs) 70 (90) and HalfCheetah 4 (90 µs)
  // 71 (88) gain.
  static constexpr std::chrono::nanoseconds kWakeWork{std::chrono::microseconds(50)};
  // In async loops the caller steps envs only if a batch's steps take at least this (see Help).
  static constexpr std::chrono::nanoseconds kCallerMinWork{std::chrono::microseconds(10)};

  // The envs a render() draws, split into `parts` chunks that go through the queue as chunks of
  // steps do, marked by a negative head (-1 - part). Drawing on the workers, not the caller:
  // envs that draw with GL (MuJoCo) keep a context per drawing thread, made at its first frame
  // and freed when the thread exits, so a pool's contexts go with its workers at close(). A
  // render() runs alone (the pool's callers are serialized) and waits for its parts.
  struct RenderJob {
    const int* env_ids = nullptr;
    int n = 0, parts = 0;
    uint8_t* frames = nullptr;
    std::size_t frame_bytes = 0;
    std::atomic<int> done{0};
    std::mutex error_mu;
    std::exception_ptr error;  // the first env's that threw
  } render_job_;

  std::unique_ptr<ThreadPool> threads_;  // last: its workers stop before the rest is destroyed
};

}  // namespace envpool
