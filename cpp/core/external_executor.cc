#include "core/external_executor.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include "core/protocol.h"

namespace envpool {

ExternalExecutor::ExternalExecutor(ExecutorContext context, std::chrono::nanoseconds wait)
    : Executor(context),
      wait_(wait),
      episodes_(static_cast<std::size_t>(ctx_.num_envs)),
      slots_(static_cast<std::size_t>(ctx_.num_envs), Slot::kAtTrainer),
      answer_actions_(ctx_.spec.action.size()) {
  if (ctx_.rules.mode() != AutoresetMode::kNextStep) {
    throw std::invalid_argument("external episodes need next-step autoreset");
  }
  free_.reserve(slots_.size());
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (event_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

ExternalExecutor::~ExternalExecutor() {
  Stop();
  if (event_fd_ >= 0) close(event_fd_);
}

void ExternalExecutor::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return;
  stopped_ = true;
  cv_.notify_all();
  Signal();  // the serving thread finds the pool closed
}

void ExternalExecutor::Signal() {
  const uint64_t one = 1;
  // A full counter (never in practice) already makes the fd readable.
  [[maybe_unused]] const ssize_t n = write(event_fd_, &one, sizeof(one));
}

void ExternalExecutor::CheckSlot(int slot) const {
  if (slot < 0 || slot >= ctx_.num_envs) {
    throw std::invalid_argument("slot " + std::to_string(slot) + " is out of range [0, " +
                                std::to_string(ctx_.num_envs) + ")");
  }
}

void ExternalExecutor::Dispatch(const int* env_ids, int n, bool /*wait_follows*/) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool was_empty = answer_slots_.empty();
  for (int i = 0; i < n; ++i) {
    const int id = env_ids ? env_ids[i] : i;
    const auto s = static_cast<std::size_t>(id);
    // A step for a slot whose episode ended is a reset: the action is ignored, the slot freed.
    const Op op = ctx_.rules.Effective(episodes_[s], ctx_.orders.OpFor(id, env_ids != nullptr));
    answer_slots_.push_back(id);
    if (op == Op::kStep) {
      slots_[s] = Slot::kWaiting;
      answer_stepped_.push_back(1);
      for (std::size_t f = 0; f < ctx_.spec.action.size(); ++f) {
        const char* row = static_cast<const char*>(ctx_.orders.ActionRow(f, id));
        answer_actions_[f].insert(answer_actions_[f].end(), row, row + ctx_.spec.action[f].RowBytes());
      }
    } else {
      // Free for a new episode once the serving thread has taken this answer (TakeAnswers):
      // it then knows the slot's last episode is over before another one can take it.
      slots_[s] = Slot::kFree;
      episodes_[s] = EpisodeState{};
      answer_stepped_.push_back(0);
      for (std::size_t f = 0; f < ctx_.spec.action.size(); ++f) {
        answer_actions_[f].resize(answer_actions_[f].size() + ctx_.spec.action[f].RowBytes(), 0);
      }
    }
  }
  if (was_empty && !answer_slots_.empty()) Signal();
}

void ExternalExecutor::TakeAnswers(std::vector<int32_t>& slots, std::vector<uint8_t>& stepped,
                                   std::vector<std::vector<char>>& actions) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t count;
  [[maybe_unused]] const ssize_t n = read(event_fd_, &count, sizeof(count));  // EAGAIN when not signalled
  slots.clear();
  stepped.clear();
  slots.swap(answer_slots_);
  stepped.swap(answer_stepped_);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!stepped[i]) free_.push_back(slots[i]);
  }
  actions.resize(answer_actions_.size());
  for (std::size_t f = 0; f < actions.size(); ++f) {
    actions[f].clear();
    actions[f].swap(answer_actions_[f]);
  }
  if (stopped_) Signal();  // stays readable: the serving thread sees the pool closed
}

int ExternalExecutor::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) throw ProtocolError("the pool is closed");
  if (free_.empty()) return -1;
  const int slot = free_.back();
  free_.pop_back();
  slots_[static_cast<std::size_t>(slot)] = Slot::kAcquired;
  return slot;
}

void ExternalExecutor::Release(int slot) {
  CheckSlot(slot);
  std::lock_guard<std::mutex> lock(mu_);
  if (slots_[static_cast<std::size_t>(slot)] != Slot::kAcquired) {
    throw std::invalid_argument("slot " + std::to_string(slot) + " has reported a row: it cannot be released");
  }
  slots_[static_cast<std::size_t>(slot)] = Slot::kFree;
  free_.push_back(slot);
}

ExternalExecutor::Slot ExternalExecutor::State(int slot) const {
  CheckSlot(slot);
  std::lock_guard<std::mutex> lock(mu_);
  return slots_[static_cast<std::size_t>(slot)];
}

void ExternalExecutor::Complete(int slot, const void* const* obs, const void* const* info, double reward,
                                bool terminated, bool truncated) {
  CheckSlot(slot);
  const auto s = static_cast<std::size_t>(slot);
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) throw ProtocolError("the pool is closed");
  const Slot state = slots_[s];
  if (state != Slot::kAcquired && state != Slot::kWaiting) {
    throw std::invalid_argument("slot " + std::to_string(slot) + " is not waiting for a row");
  }
  if (state == Slot::kAcquired && (terminated || truncated)) {
    throw std::invalid_argument("an episode's first row cannot end it (release the slot instead)");
  }
  BatchAssembler& batches = ctx_.batches;
  // Rows are reserved one at a time under mu_, so Cut() (also under mu_) never races a Reserve.
  auto [batch, row] = batches.Reserve(1);
  batches.AwaitArmed(batch);
  const std::size_t pos = batches.PosOf(batch);
  if (row == 0) first_row_ = Clock::now();
  auto write = [&](Output& out) {
    for (std::size_t f = 0; f < ctx_.spec.obs.size(); ++f)
      std::memcpy(out.Obs<char>(f), obs[f], ctx_.spec.obs[f].RowBytes());
    for (std::size_t f = 0; f < ctx_.spec.info.size(); ++f) {
      std::memcpy(out.Info<char>(f), info[f], ctx_.spec.info[f].RowBytes());
    }
    out.reward() = reward;
  };
  std::string error;
  ctx_.rules.Run(
      episodes_[s], slot, state == Slot::kAcquired ? Op::kReset : Op::kStep, batches.Buffers(pos), row, write,
      [&](Output& out) {
        write(out);
        out.terminated() = terminated;
        out.truncated() = truncated;
      },
      &error);
  slots_[s] = Slot::kAtTrainer;
  batches.Publish(pos, 1);
  // Wake the waiting caller only when it has something to do: a batch's first row starts its
  // wait_ms clock, its last completes it. Waking it for every row would cost the serving
  // thread a context switch per row on a busy machine.
  if (caller_waiting_ && (row == 0 || row + 1 == static_cast<std::size_t>(ctx_.batch_size))) cv_.notify_all();
}

WaitResult ExternalExecutor::Wait(const WaitBudget& budget, int /*in_flight*/) {
  return CollectUntilReady(budget, [this](Clock::time_point until) { return WaitUntil(until); });
}

bool ExternalExecutor::WaitUntil(Clock::time_point until) {
  BatchAssembler& batches = ctx_.batches;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (batches.Ready()) return true;
    const auto now = Clock::now();
    auto wake = until;
    if (batches.Written(batches.TakePos()) > 0) {
      const auto cut_at = first_row_ + wait_;
      if (now >= cut_at) {
        batches.Cut();  // every reserved row is published (both happen under mu_)
        return batches.Ready();
      }
      if (cut_at < wake) wake = cut_at;
    }
    if (now >= until || stopped_) return false;
    caller_waiting_ = true;
    cv_.wait_until(lock, wake);
    caller_waiting_ = false;
  }
}

}  // namespace envpool
