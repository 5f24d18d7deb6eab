// ProcessExecutor: envs that live in worker processes (Python envs, see envpool/process/pool.py),
// each worker hosting a contiguous block of envs.
//
// Dispatch writes each env's order and action into shared memory (process_channel.h), queues
// the env on its worker's command ring and wakes the worker. The worker runs its commands in
// order, stages each result in the env's block and bumps a counter. The waiting caller is the
// collector: in Wait it completes a row for every finished command - reserving it in the
// batch assembler and applying the episode rules as a worker thread does for native envs -
// and sleeps on a futex when nothing is finished. So no thread of ours waits on processes,
// and a batch is the first batch_size envs to finish, whichever worker ran them.
//
// A worker that dies (or is killed for exceeding a step timeout) is reported with
// WorkerDied(); the collector then completes that worker's unfinished commands as error rows,
// cuts short the episodes of its other envs whose rows are not yet returned (one fault, one
// EnvError), and a replacement worker takes over the ring where the dead one stopped.
//
// The collector trusts nothing in shared memory beyond what it sent: a worker's `done` count
// outside [completed, sent], or a fork of a worker reporting itself (WorkerChannel::Done),
// writes the worker off as failed - the same way as a death; the pool kills and replaces it.
// Nothing the collector does waits on a worker: it never spins on a ring position (the rows
// it completes are bounded by the envs sent) and sleeps only until the caller's deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/executor.h"
#include "core/process_channel.h"

namespace envpool {

class ProcessExecutor final : public Executor {
 public:
  ProcessExecutor(ExecutorContext context, ProcessLayout layout);
  ~ProcessExecutor() override { Stop(); }

  const ProcessLayout& layout() const { return layout_; }
  const SharedMapping& mapping() const { return map_; }

  void Dispatch(const int* env_ids, int n, bool wait_follows) override;
  // Collects finished rows while there are any, then waits for the workers in WaitUntil.
  WaitResult Wait(const WaitBudget& budget, int in_flight) override;
  int parallelism() const override { return static_cast<int>(layout_.num_workers); }
  EpisodeState& Episode(int env_id) override { return envs_[static_cast<std::size_t>(env_id)].episode; }
  void Stop() override;

  // Called from any thread when worker `worker` is gone: its unfinished commands complete as
  // error rows with `reason` (at the next collection), then Revived() may hand its ring to a
  // replacement. Returns false if the worker was already reported (or written off).
  bool WorkerDied(int worker, const std::string& reason);
  // Whether the collector has settled the dead worker's commands (a replacement may start
  // once the old process and its process group are gone).
  bool DeathSettled(int worker) const;
  // A replacement worker is starting: the ring is its.
  void Revived(int worker);
  // Wakes a worker that sleeps waiting for commands.
  void Wake(int worker);

 private:
  // Collects rows until the batch is complete (true) or `until`.
  bool WaitUntil(Clock::time_point until);
  // What the collector knows of each worker, whatever shared memory says.
  struct WorkerBook {
    uint32_t sent = 0;      // commands queued (the ring's tail)
    uint32_t consumed = 0;  // commands completed into rows
    bool touched = false;   // got commands in this dispatch
  };
  // Per env: the user thread's (the collector is the caller).
  struct EnvBook {
    EpisodeState episode;
    Op sent_op = Op::kStep;             // the op it was dispatched with
    uint64_t row_batch = ~uint64_t{0};  // batch index of its last row (none yet)
    std::size_t row = 0;                // and the row in it
  };
  static constexpr uint32_t kAlive = 0, kDied = 1, kSettled = 2;  // a worker block's `dead`

  bool Collect();  // completes every finished command; true if it completed any
  // Completes worker `worker`'s finished commands up to its count `done`; true if any.
  bool CompleteFinished(int worker, uint32_t done);
  // Completes env `env_id`'s row from what its worker staged, or as lost (`lost`: why).
  void CompleteRow(int env_id, const std::string* lost = nullptr);
  void SettleDeath(int worker);
  // The worker's envs whose rows are complete but not yet returned lost their episodes too.
  void CutShortUnreturned(int worker, const std::string& reason);
  std::string WriteOffReason(int worker, int32_t fork_pid, uint32_t done) const;
  std::string EnvsOf(int worker) const;

  ProcessLayout layout_;
  SharedMapping map_;
  std::vector<EnvBook> envs_;
  std::vector<WorkerBook> workers_;
  std::vector<int> sent_env_;  // the env id of each ring slot, as sent (ProcessLayout::CommandIndex)
  int64_t wait_ns_ = 0;        // running average of how long the collector waits for a batch
  static constexpr std::chrono::nanoseconds kSpinWhileBelow{std::chrono::microseconds(100)};
  std::mutex death_mu_;
  std::vector<std::string> death_reason_;
  std::vector<uint32_t> revive_done_;  // per worker, at its last death: where its replacement starts
  std::atomic<bool> stopped_{false};
};

}  // namespace envpool
