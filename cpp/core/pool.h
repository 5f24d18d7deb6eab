// EnvPool: many copies of one task, stepped by a thread pool, results written in batches.
//
// Protocol (all calls from one user thread at a time; only WaitBatch blocks):
//   SendReset / SendStep  hand a set of envs to the workers (each env at most once in flight);
//   WaitBatch             waits until the next batch of `batch_size` results is complete;
//   TakeBatch             returns that batch's ring position (re-armed with fresh memory) and
//                         marks its envs idle again.
//
// Batches: the k-th batch holds the k-th group of `batch_size` envs that workers pick up, i.e.
// the first to finish up to the chunk each worker has in hand. A chunk of envs reserves its
// rows with one compare-and-swap when a worker starts it, so there is no queue operation or
// shared counter per env. When
// batch_size == num_envs ("full batch") every batch holds each env exactly once, rows are in
// env-id order and no shared counter is touched per env. Result memory is lent by the caller per ring position (ArmBuffers): a
// batch's memory is handed to the user as is and the position re-armed with fresh memory.
//
// Autoreset, as gymnasium.vector.AutoresetMode:
//   kNextStep  after an episode ends, the env's next step ignores its action, starts a new
//              episode and returns its first observation with reward 0 and both flags false;
//   kSameStep  an env whose episode ends is reset in the same step: the row holds the new
//              episode's first observation and the final_* fields the finished one's last;
//   kDisabled  never reset automatically: stepping an env whose episode is over is refused
//              until it is reset.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/buffers.h"
#include "core/env.h"
#include "core/rng.h"
#include "core/spec.h"
#include "core/thread_pool.h"
#include "envs/registry.h"

namespace envpool {

// A call that breaks the send/recv protocol (stepping an env that is in flight, ...).
class ProtocolError : public std::logic_error {
  using std::logic_error::logic_error;
};
// An argument of the wrong type (e.g. a float array for a discrete action).
class InputTypeError : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class AutoresetMode { kNextStep, kSameStep, kDisabled };

struct PoolOptions {
  int num_envs = 1;
  int batch_size = 0;          // 0: num_envs (full batch)
  int num_threads = 1;         // threads stepping envs (see EnvPool::EnvPool)
  uint64_t seed = 0;           // env i's RNG is seeded from seed + i
  int max_episode_steps = -1;  // -1: the task's limit; 0: no limit
  std::vector<Config> configs; // per env, complete (see MakeConfigs); empty: task defaults
  AutoresetMode autoreset = AutoresetMode::kNextStep;
  std::chrono::nanoseconds spin{std::chrono::microseconds(50)};  // worker spin before sleeping
};

class EnvPool {
 public:
  enum class WaitResult { kReady, kTimeout, kInterrupted };

  EnvPool(const TaskSpec& task, PoolOptions options);
  ~EnvPool();
  EnvPool(const EnvPool&) = delete;
  EnvPool& operator=(const EnvPool&) = delete;

  const TaskSpec& task() const { return task_; }
  const EnvSpec& spec() const { return spec_; }
  const BatchLayout& layout() const { return layout_; }
  int num_envs() const { return num_envs_; }
  int batch_size() const { return batch_size_; }
  int num_threads() const { return num_threads_; }
  int max_episode_steps() const { return max_episode_steps_; }
  AutoresetMode autoreset() const { return autoreset_; }
  bool full_batch() const { return batch_size_ == num_envs_; }
  // Number of ring positions: batches that can be complete or filling at once.
  int ring_size() const { return static_cast<int>(ring_.size()); }
  // Envs sent and not yet returned by TakeBatch.
  int in_flight() const { return in_flight_; }
  bool closed() const { return closed_; }

  // Lends memory for ring position `pos` (one pointer per layout field, batch_size rows each).
  // Every position must be armed before the first send; later, TakeBatch re-arms them.
  void ArmBuffers(int pos, BatchBuffers buffers);

  // Starts new episodes for `env_ids` (nullptr: all envs, n == num_envs). With `seeds`, env
  // env_ids[i]'s RNG is reseeded with seeds[i] first. Where `keep[i]` is set, env env_ids[i]
  // is not reset but returns its last observation again (reward 0, flags false): this lets a
  // full batch reset a subset of envs (kDisabled only, where last observations are kept).
  void SendReset(const int* env_ids, int n, const uint64_t* seeds, const uint8_t* keep = nullptr,
                 bool wait_follows = false);

  // Steps `env_ids` (nullptr: all envs) with actions: for each action field f, `actions[f]`
  // points at n contiguous rows in that field's dtype. All arguments are validated before
  // anything changes: on error the pool is untouched. `wait_follows`: the caller waits for
  // the results right away (step()), so in full-batch mode it keeps a share of the work, and
  // workers may read `actions` in place: they must stay valid until TakeBatch.
  void SendStep(const int* env_ids, int n, const std::vector<const void*>& actions, bool wait_follows = false);

  // Blocks until the next batch is complete, helping the workers meanwhile. `timeout_s` < 0
  // waits forever. `interrupted` is polled every few milliseconds while sleeping (the Python
  // module checks for Ctrl-C there). Throws ProtocolError when nothing could complete it.
  WaitResult WaitBatch(double timeout_s, const std::function<bool()>& interrupted);

  // After WaitBatch returned kReady: the batch's ring position; its envs become idle. The
  // caller now owns the batch's memory, and the position is re-armed with `fresh`.
  int TakeBatch(BatchBuffers fresh);

  // Errors thrown by envs since the last call: (env_id, message).
  std::vector<std::pair<int, std::string>> TakeEnvErrors();

  // Draws envs `env_ids` (nullptr: all) into `frames` (n frames of render_height x
  // render_width x 3 bytes). The envs must not be in flight.
  void Render(const int* env_ids, int n, uint8_t* frames);

  // Full internal state of an idle env (see Env::GetState / SetState).
  std::vector<double> GetState(int env_id) const;
  void SetState(int env_id, const std::vector<double>& state);

  // Stops the workers; later calls throw ProtocolError. Idempotent.
  void Close();

 private:
  enum class Op : uint8_t { kStep, kReset, kRepeat, kPerEnv };  // kPerEnv: see EnvSlot::op
  enum class Status : uint8_t { kNeedsReset, kIdle, kInFlight };

  // Per-env state written by the worker stepping the env; cache-line aligned so envs stepped
  // by different threads never share a line.
  struct alignas(64) EnvSlot {
    std::unique_ptr<Env> env;
    Rng rng;
    int32_t elapsed_step = 0;
    bool episode_over = false;  // the episode ended; kNextStep resets on the next step
  };
  // Per-env orders written by the sending thread and read by the worker; kept apart from
  // EnvSlot (and small) so a send touches few cache lines, none of them the workers'.
  struct SendInfo {
    int32_t next = -1;   // next env of the same chunk
    Op op = Op::kStep;   // for envs sent by id (or when range_op_ is kPerEnv)
    bool reseed = false;
    uint64_t seed = 0;
  };

  void CheckUsable() const;
  void CheckSendable(const int* env_ids, int n, bool for_step);
  void ValidateActions(const ArraySpec& spec, const void* data, const int* env_ids, int n) const;
  void SetStatus(std::size_t env_id, Status status) {
    idle_count_ += (status == Status::kIdle) - (status_[env_id] == Status::kIdle);
    status_[env_id] = status;
  }
  void Dispatch(const int* env_ids, int n, bool wait_follows);
  void RunChunk(const Chunk& chunk);      // runs and times a chunk
  void RunChunkEnvs(const Chunk& chunk);
  std::pair<uint64_t, std::size_t> ReserveRows(int count);  // async: first (batch index, row)
  // Async: waits until the ring position of batch `batch` has been re-armed for it (it always
  // has, but acquiring taken_batches_ is what orders the re-arming before the worker's writes).
  void AwaitArmed(uint64_t batch) const;
  void PublishRows(std::size_t pos, int count);
  void StepEnv(int env_id, std::size_t pos, std::size_t row, Op op);
  void ResetEnv(EnvSlot& slot, Output& out);
  // What to do with an env: a range of all envs may carry one op for all (range_op_).
  Op OpFor(const Chunk& chunk, int env_id) const {
    return chunk.linked || range_op_ == Op::kPerEnv ? sent_[static_cast<std::size_t>(env_id)].op : range_op_;
  }
  // Same-step autoreset: copies the finished episode's obs and info rows into final_* fields.
  void WriteFinal(const BatchBuffers& buf, std::size_t row, int32_t elapsed, bool done);
  char* LastObs(std::size_t field, int env_id) {
    return last_obs_[field].data() + static_cast<std::size_t>(env_id) * layout_.fields[field].row_bytes;
  }
  const void* ActionRow(std::size_t field, int env_id) const {
    return action_src_[field] + static_cast<std::size_t>(env_id) * spec_.action[field].RowBytes();
  }

  const TaskSpec& task_;
  EnvSpec spec_;
  BatchLayout layout_;
  int num_envs_;
  int batch_size_;
  int num_threads_;
  int max_episode_steps_;
  AutoresetMode autoreset_;

  std::vector<EnvSlot> slots_;
  std::vector<SendInfo> sent_;
  std::vector<std::vector<char>> action_data_;  // per action field: num_envs rows
  std::vector<const char*> action_src_;         // where workers read actions: action_data_, or
                                                // the caller's arrays during a full-batch step()
  std::vector<std::vector<char>> last_obs_;     // kDisabled: per obs field, each env's last obs
  std::vector<BatchBuffers> ring_;
  struct alignas(64) RowCounter {  // one cache line each: workers fill one batch while the caller polls another
    std::atomic<int> value{0};
  };
  std::unique_ptr<RowCounter[]> written_;  // rows written per ring position
  alignas(64) std::atomic<uint64_t> next_row_{0};  // async: next free (batch index << 24 | row)
  static constexpr uint64_t kRowMask = (uint64_t{1} << 24) - 1;
  alignas(64) std::atomic<uint64_t> taken_batches_{0};  // batches taken (and their positions re-armed)
  std::size_t full_batch_pos_ = 0;     // full batch: the position being filled
  Op range_op_ = Op::kPerEnv;          // the op of a dispatch of all envs

  // User-thread-only bookkeeping.
  std::vector<Status> status_;
  std::vector<uint32_t> seen_;  // duplicate detection stamps
  uint32_t stamp_ = 0;
  std::size_t taken_pos_ = 0;  // ring position of the next batch to take
  int in_flight_ = 0;
  int idle_count_ = 0;  // envs with status kIdle (lets a full batch skip per-env checks)
  bool closed_ = false;
  std::vector<Chunk> chunk_scratch_;
  std::vector<Chunk> caller_chunks_;  // full batch: chunks the waiting caller runs itself

  // Work per chunk handed to a thread: large enough to amortize a hand-off between cores
  // (~0.1-1 us), small enough that threads finish a batch at nearly the same time.
  static constexpr std::chrono::nanoseconds kChunkWork{std::chrono::microseconds(20)};
  static constexpr int kMaxChunksPerThread = 4;
  // Pieces of a partitioned full batch: own-part claims are cheap, so pieces can be small.
  static constexpr std::chrono::nanoseconds kPieceWork{std::chrono::microseconds(4)};
  // The caller steps envs only if one step is estimated below this (interrupts wait for it).
  static constexpr std::chrono::nanoseconds kCallerMaxStep{std::chrono::milliseconds(1)};
  // Async loops: a waiting caller sleeps at once when its batch is estimated further than
  // this from complete (see WaitBatch).
  static constexpr std::chrono::nanoseconds kSpinMax{std::chrono::microseconds(50)};
  // How often a waiting caller checks its deadline and Ctrl-C.
  static constexpr std::chrono::milliseconds kCheckInterval{10};
  bool caller_helps_ = false;  // the current dispatch lets the caller step envs
  alignas(64) std::atomic<int64_t> ns_per_env_{-1};  // running estimate of one env step's cost (-1: unknown)

  // Batch-complete notification for a sleeping WaitBatch.
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  std::atomic<bool> waiter_sleeping_{false};

  std::mutex error_mu_;
  std::vector<std::pair<int, std::string>> env_errors_;

  std::unique_ptr<ThreadPool> threads_;  // last: its workers stop before the rest is destroyed
};

// Per-env configs from a task's defaults and the user's kwargs: `kwargs` maps a key to either
// one value for all envs or one value per env. Throws std::invalid_argument naming an unknown
// key (with close matches) or a value of the wrong type or length.
std::vector<Config> MakeConfigs(const TaskSpec& task, int num_envs,
                                const std::vector<std::pair<std::string, std::vector<ConfigValue>>>& kwargs);

}  // namespace envpool
