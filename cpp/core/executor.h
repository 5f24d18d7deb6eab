// Executors: what turns the pool's orders into result rows.
//
// The pool (pool.h) checks the protocol and records each sent env's order (orders.h); its
// executor runs the orders and completes rows in the batch assembler, applying the episode
// rules. ThreadExecutor (thread_executor.h) steps native C++ envs in a thread pool; a process
// executor collects rows that worker processes wrote into shared memory. Rows may therefore
// be completed by threads the pool does not own, or by the waiting caller itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
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
  std::vector<std::pair<int, std::string>> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<int, std::string>> out;
    out.swap(errors_);
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<int, std::string>> errors_;
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

  // The waiting caller's share of the last dispatch, run between its checks of the deadline
  // and of Ctrl-C: one piece of work per call; false when there is none (left).
  virtual bool Help() { return false; }

  // Blocks until the next batch may be complete, or `until`; true when it is complete.
  // Executors whose rows the caller completes itself override this to collect them.
  virtual bool WaitUntil(Clock::time_point until) { return ctx_.batches.SleepUntil(until); }

  // True when rows only complete inside WaitUntil (the caller collects them): then the
  // caller does not spin on the batch, it waits in WaitUntil.
  virtual bool CallerCompletesRows() const { return false; }

  // True when WaitUntil may end a batch early (BatchAssembler::Cut): then recv() needs only
  // one env in flight, not a whole batch, and a batch may hold fewer than batch_size rows.
  virtual bool PartialBatches() const { return false; }

  // Running estimate of one env step's cost in ns (-1: unknown), and how many envs step at
  // once: the waiting caller sleeps at once when its batch is far from complete.
  virtual int64_t NsPerEnv() const { return -1; }
  virtual int parallelism() const = 0;

  // The episode state of an env that is not in flight.
  virtual EpisodeState& Episode(int env_id) = 0;

  // Access to envs that are not in flight.
  virtual void Render(int /*env_id*/, uint8_t* /*rgb*/) { throw std::invalid_argument("these envs do not render"); }
  virtual std::vector<double> GetState(int /*env_id*/) const {
    throw std::invalid_argument("these envs do not expose their state");
  }
  virtual void SetState(int /*env_id*/, const std::vector<double>& /*state*/) {
    throw std::invalid_argument("these envs do not expose their state");
  }

  // Stops whatever runs envs; no row is completed afterwards. Idempotent.
  virtual void Stop() = 0;

 protected:
  ExecutorContext ctx_;
};

}  // namespace envpool
