// Executors: what turns the pool's orders into result rows.
//
// The pool (pool.h) checks the protocol and records each sent env's order (orders.h); its
// executor runs the orders and completes rows in the batch assembler, applying the episode
// rules. ThreadExecutor (thread_executor.h) steps native C++ envs in a thread pool; a process
// executor collects rows that worker processes wrote into shared memory. Rows may therefore
// be completed by threads the pool does not own, or by the waiting caller itself.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/batch_assembler.h"
#include "core/episode_rules.h"
#include "core/orders.h"
#include "core/spec.h"

namespace envpool {

// Errors thrown by envs, collected from whichever thread ran them: (env_id, text).
class EnvErrors {
 public:
  void Add(int env_id, std::string text) {
    std::lock_guard<std::mutex> lock(mu_);
    errors_.emplace_back(env_id, std::move(text));
  }
  // The errors of envs `env_ids` (n of them); the others stay for the batches that hold their
  // rows (an async pool may have run an env that fails for a later batch than the one taken).
  std::vector<std::pair<int, std::string>> TakeFor(const int32_t* env_ids, int n) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<int, std::string>> out;
    if (errors_.empty()) return out;
    std::vector<std::pair<int, std::string>> kept;
    for (auto& e : errors_) {
      bool mine = false;
      for (int i = 0; i < n && !mine; ++i) mine = env_ids[i] == e.first;
      (mine ? out : kept).push_back(std::move(e));
    }
    errors_.swap(kept);
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<int, std::string>> errors_;
};

enum class WaitResult { kReady, kTimeout, kInterrupted };

// A caller's wait for a batch: its deadline (none when the timeout is negative) and its check
// for an interruption (the Python module's Ctrl-C), looked at every kCheckInterval at most.
class WaitBudget {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kCheckInterval{10};

  WaitBudget(double timeout_s, const std::function<bool()>& interrupted)
      : start_(Clock::now()),
        has_deadline_(timeout_s >= 0),
        deadline_(start_ + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(has_deadline_ ? timeout_s : 0.0))),
        interrupted_(interrupted) {}

  Clock::time_point start() const { return start_; }
  bool Expired(Clock::time_point now) const { return has_deadline_ && now >= deadline_; }
  // kTimeout or kInterrupted when the wait must end now.
  std::optional<WaitResult> Check(Clock::time_point now) const {
    if (Expired(now)) return WaitResult::kTimeout;
    if (interrupted_ && interrupted_()) return WaitResult::kInterrupted;
    return std::nullopt;
  }
  // When to look at the budget again: one check interval on, or the deadline if sooner.
  Clock::time_point NextWake(Clock::time_point now) const {
    const auto until = now + kCheckInterval;
    return has_deadline_ && deadline_ < until ? deadline_ : until;
  }

 private:
  Clock::time_point start_;
  bool has_deadline_;
  Clock::time_point deadline_;
  const std::function<bool()>& interrupted_;
};

// What a pool shares with its executor. All references outlive the executor.
struct ExecutorContext {
  const EnvSpec& spec;
  const BatchLayout& layout;
  int num_envs;
  int batch_size;
  BatchAssembler& batches;
  EpisodeRules& rules;
  OrderBook& orders;
  EnvErrors& errors;
  bool full_batch() const { return batch_size == num_envs; }
};

class Executor {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Executor(ExecutorContext context) : ctx_(context) {}
  virtual ~Executor() = default;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Starts the orders recorded for envs `env_ids` (nullptr: envs 0..n-1). `wait_follows`: the
  // caller waits for the batch right away (step()), so it may take a share of the work.
  virtual void Dispatch(const int* env_ids, int n, bool wait_follows) = 0;

  // Waits on the caller's thread until the next batch is complete, within `budget`; each
  // kind waits its own way (helping step envs, collecting rows, cutting partial batches).
  // `in_flight`: envs sent and not yet returned. The default spins briefly, then sleeps.
  virtual WaitResult Wait(const WaitBudget& budget, int in_flight) {
    (void)in_flight;
    return SpinThenSleep(budget, false);
  }

  // True when Wait may end a batch early (BatchAssembler::Cut): then recv() needs only one
  // env in flight, not a whole batch, and a batch may hold fewer than batch_size rows.
  virtual bool PartialBatches() const { return false; }

  // How many envs step at once (the pool's num_threads for native envs).
  virtual int parallelism() const = 0;

  // The episode state of an env that is not in flight.
  virtual EpisodeState& Episode(int env_id) = 0;

  // Access to envs that are not in flight.
  virtual void Render(int /*env_id*/, uint8_t* /*rgb*/) { throw std::invalid_argument("these envs do not render"); }
  // Draws envs env_ids[0..n) (nullptr: 0..n-1) into `frames`, `frame_bytes` apart. The default
  // draws them one after another on the calling thread; the thread executor draws them on its
  // workers (an env's GL context belongs to the thread that draws it: see ThreadExecutor).
  virtual void RenderMany(const int* env_ids, int n, uint8_t* frames, std::size_t frame_bytes) {
    for (int i = 0; i < n; ++i) Render(env_ids ? env_ids[i] : i, frames + static_cast<std::size_t>(i) * frame_bytes);
  }
  virtual std::vector<double> GetState(int /*env_id*/) const {
    throw std::invalid_argument("these envs do not expose their state");
  }
  virtual void SetState(int /*env_id*/, const std::vector<double>& /*state*/) {
    throw std::invalid_argument("these envs do not expose their state");
  }

  // Stops whatever runs envs; no row is completed afterwards. Idempotent.
  virtual void Stop() = 0;

 protected:
  // The longest a caller spins on a batch it expects soon, before it sleeps.
  static constexpr std::chrono::nanoseconds kSpinMax{std::chrono::microseconds(50)};

  // Runs `help()` (one piece of the caller's share of the work per call, false when there is
  // none left) while it finds work, checking the budget between pieces. Sets `*helped` when
  // it ran any; returns a result when the budget ended the wait.
  template <class Help>
  std::optional<WaitResult> HelpWhileWorkLasts(const WaitBudget& budget, Help&& help, bool* helped) {
    auto next_check = budget.start() + WaitBudget::kCheckInterval;
    while (help()) {
      *helped = true;
      const auto now = Clock::now();
      if (now >= next_check) {
        if (auto r = budget.Check(now)) return r;
        next_check = now + WaitBudget::kCheckInterval;
      }
    }
    return std::nullopt;
  }

  // For rows the caller completes itself: `wait_until(t)` collects rows until the batch is
  // complete (true) or `t`; the budget is checked after each slice.
  template <class WaitUntil>
  WaitResult CollectUntilReady(const WaitBudget& budget, WaitUntil&& wait_until) {
    for (;;) {
      if (ctx_.batches.Ready()) return WaitResult::kReady;
      if (wait_until(budget.NextWake(Clock::now()))) return WaitResult::kReady;
      if (auto r = budget.Check(Clock::now())) return *r;
    }
  }

  // For rows other threads complete: spins briefly (unless `sleep_at_once`), then sleeps in
  // slices of the check interval until the batch is complete.
  WaitResult SpinThenSleep(const WaitBudget& budget, bool sleep_at_once) {
    for (unsigned i = 1;; ++i) {
      if (ctx_.batches.Ready()) return WaitResult::kReady;
      if (!sleep_at_once) {
        SpinWait(i);
        if ((i & 255) != 0 && i < 2048) continue;
      }
      const auto now = Clock::now();
      if (budget.Expired(now)) return WaitResult::kTimeout;
      if (!sleep_at_once && now - budget.start() < std::chrono::microseconds(200)) continue;
      if (ctx_.batches.SleepUntil(budget.NextWake(now))) return WaitResult::kReady;
      if (auto r = budget.Check(Clock::now())) return *r;
    }
  }

  ExecutorContext ctx_;
};

}  // namespace envpool
