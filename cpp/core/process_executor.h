// ProcessExecutor: envs that live in worker processes (Python envs, see envpool/python_envs.py),
// each worker hosting a contiguous block of envs.
//
// Dispatch writes each env's order and action into shared memory (process_channel.h), queues
// the env on its worker's command ring and wakes the worker. The worker runs its commands in
// order, stages each result in the env's block and bumps a counter. The waiting caller is the
// collector: in WaitUntil it completes a row for every finished command - reserving it in the
// batch assembler and applying the episode rules as a worker thread does for native envs -
// and sleeps on a futex when nothing is finished. So no thread of ours waits on processes,
// and a batch is the first batch_size envs to finish, whichever worker ran them.
//
// A worker that dies (or is killed for exceeding a step timeout) is reported with
// WorkerDied(); the collector then completes that worker's unfinished commands as error rows,
// and a replacement worker takes over the ring where the dead one stopped.
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
  bool Help() override { return Collect(); }
  bool WaitUntil(Clock::time_point until) override;
  bool CallerCompletesRows() const override { return true; }
  int parallelism() const override { return static_cast<int>(layout_.num_workers); }
  EpisodeState& Episode(int env_id) override { return episodes_[static_cast<std::size_t>(env_id)]; }
  void Stop() override;

  // Called from any thread when worker `worker` is gone: its unfinished commands complete as
  // error rows with `reason` (at the next collection), then Revived() may hand its ring to a
  // replacement. Returns false if the worker was already reported.
  bool WorkerDied(int worker, const std::string& reason);
  // Whether the collector has settled the dead worker's commands (a replacement may start).
  bool DeathSettled(int worker) const;
  // A replacement worker is starting: the ring is its.
  void Revived(int worker);
  // Wakes a worker that sleeps waiting for commands.
  void Wake(int worker);

 private:
  bool Collect();  // completes every finished command; true if it completed any
  // Completes worker `worker`'s finished commands up to its count `done`; true if any.
  bool CompleteFinished(int worker, uint32_t done);
  void CompleteRow(int env_id);
  void SettleDeath(int worker);

  ProcessLayout layout_;
  SharedMapping map_;
  std::vector<EpisodeState> episodes_;  // user thread only: the collector is the caller
  std::vector<Op> sent_op_;             // the op each env was dispatched with
  std::vector<uint32_t> consumed_;      // per worker: commands completed into rows
  std::vector<uint8_t> touched_;        // per worker: got commands in this dispatch
  int64_t wait_ns_ = 0;  // running average of how long the collector waits for a batch
  static constexpr std::chrono::nanoseconds kSpinWhileBelow{std::chrono::microseconds(100)};
  std::mutex death_mu_;
  std::vector<std::string> death_reason_;
  std::atomic<bool> stopped_{false};
};

}  // namespace envpool
