// ExternalExecutor: envs that run outside the pool and ask it for actions - episodes of
// remote clients (envpool.serve) or of in-process ExternalEnv loops. Nothing here steps an
// env: rows are completed from outside, by whoever receives the clients' requests.
//
// Each env id is a slot that holds one external episode at a time:
//   kFree      its reset was dispatched (or the pool just started): no episode holds it;
//   kAcquired  an episode took it (Acquire) and has not reported an observation yet;
//   kAtTrainer a row was completed (Complete) and the trainer has not answered it yet;
//   kWaiting   the trainer's step was dispatched: the episode may report its next row.
// Complete() writes the slot's row - the first row of an episode when the slot was acquired,
// a step row otherwise - through the episode rules, like any executor. A row that ends the
// episode (terminated/truncated) makes the trainer's next order for the slot a reset (next-step
// autoreset): its action is ignored and the slot becomes free for the next episode.
//
// Dispatched orders are queued as answers (slot, step or freed, action row) for the thread
// that serves the clients, which is woken through an eventfd it can poll with its sockets.
//
// Batches: recv() returns the first batch_size rows to arrive, or - `wait` after the first
// row of a batch arrived - the rows there are (BatchAssembler::Cut), never an empty batch.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/executor.h"

namespace envpool {

class ExternalExecutor final : public Executor {
 public:
  enum class Slot : uint8_t { kFree, kAcquired, kAtTrainer, kWaiting };

  // `wait`: how long the first row of a batch waits for the rest before the batch is cut.
  ExternalExecutor(ExecutorContext context, std::chrono::nanoseconds wait);
  ~ExternalExecutor() override;

  void Dispatch(const int* env_ids, int n, bool wait_follows) override;
  // Sleeps until the batch is complete or, `wait` after its first row, cuts it short.
  WaitResult Wait(const WaitBudget& budget, int in_flight) override;
  bool PartialBatches() const override { return true; }
  int parallelism() const override { return 1; }
  EpisodeState& Episode(int env_id) override { return episodes_[static_cast<std::size_t>(env_id)]; }
  void Stop() override;

  // -- the side that serves external episodes (any thread) ------------------------------------

  // Takes a free slot for a new episode; -1 when every slot is held or awaits the trainer.
  int Acquire();
  // Gives back an acquired slot whose episode ended before it reported any row.
  void Release(int slot);
  // Completes the row of `slot` (kAcquired or kWaiting): `obs[f]` and `info[f]` point at one
  // row of each obs and info field. Throws std::invalid_argument when the slot cannot take a
  // row now, ProtocolError after Stop().
  void Complete(int slot, const void* const* obs, const void* const* info, double reward, bool terminated,
                bool truncated);
  Slot State(int slot) const;

  // Orders dispatched since the last call, in dispatch order: `slots[i]` was answered with a
  // step (`stepped[i]`, its action rows appended to `actions[f]`) or freed; freed slots can be
  // acquired from now on. Clears the eventfd.
  void TakeAnswers(std::vector<int32_t>& slots, std::vector<uint8_t>& stepped, std::vector<std::vector<char>>& actions);
  // Readable while answers are queued (level-triggered: poll it, then TakeAnswers).
  int event_fd() const { return event_fd_; }

 private:
  // Until the batch is complete (true, cut short if need be) or `until`.
  bool WaitUntil(Clock::time_point until);
  void CheckSlot(int slot) const;
  void Signal();

  std::chrono::nanoseconds wait_;
  mutable std::mutex mu_;
  std::condition_variable cv_;  // the waiting caller: a row arrived, or Stop()
  bool caller_waiting_ = false;
  bool stopped_ = false;
  std::vector<EpisodeState> episodes_;
  std::vector<Slot> slots_;
  std::vector<int> free_;        // free slots whose answer was taken, taken from the back
  Clock::time_point first_row_;  // when the batch being filled got its first row
  // Queued answers.
  std::vector<int32_t> answer_slots_;
  std::vector<uint8_t> answer_stepped_;
  std::vector<std::vector<char>> answer_actions_;  // per action field
  int event_fd_ = -1;
};

}  // namespace envpool
