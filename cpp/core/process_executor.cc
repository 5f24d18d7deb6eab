#include "core/process_executor.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/exception_text.h"

namespace envpool {

ProcessExecutor::ProcessExecutor(ExecutorContext context, ProcessLayout layout)
    : Executor(context),
      layout_(std::move(layout)),
      map_(SharedMapping::Create(layout_.total_bytes)),
      envs_(static_cast<std::size_t>(ctx_.num_envs)),
      workers_(layout_.num_workers),
      sent_env_(layout_.ring_start.back(), -1),
      death_reason_(layout_.num_workers),
      revive_done_(layout_.num_workers, 0) {
  if (layout_.num_envs != static_cast<std::size_t>(ctx_.num_envs)) throw std::invalid_argument("layout/env count");
}

void ProcessExecutor::Stop() {
  if (stopped_.exchange(true)) return;
  map_.Atomic<uint32_t>(ProcessLayout::kShutdown).store(1);  // seq_cst: a worker about to sleep sees it
  for (std::size_t w = 0; w < layout_.num_workers; ++w) Wake(static_cast<int>(w));
}

void ProcessExecutor::Dispatch(const int* env_ids, int n, bool /*wait_follows*/) {
  for (auto& book : workers_) book.touched = false;
  for (int i = 0; i < n; ++i) {
    const int id = env_ids ? env_ids[i] : i;
    EnvBook& env = envs_[static_cast<std::size_t>(id)];
    const Op ordered = ctx_.orders.OpFor(id, env_ids != nullptr);
    const Op op = ctx_.rules.Effective(env.episode, ordered);
    env.sent_op = op;
    const std::size_t e = layout_.Env(id);
    if (op == Op::kRepeat) {  // nothing for the worker to do: the row repeats the last obs
      map_.At<uint8_t>(e + ProcessLayout::kFailed) = 0;
      map_.At<int32_t>(e + ProcessLayout::kInfoStepLen) = 0;  // and has no info
      map_.At<int32_t>(e + ProcessLayout::kInfoResetLen) = 0;
      CompleteRow(id);
      continue;
    }
    const Order& order = ctx_.orders[id];
    map_.At<uint8_t>(e + ProcessLayout::kOp) = static_cast<uint8_t>(op);
    // Only a reset the user asked for reseeds (an autoreset continues the env's RNG).
    map_.At<uint8_t>(e + ProcessLayout::kReseed) = ordered == Op::kReset && order.reseed;
    map_.At<uint64_t>(e + ProcessLayout::kSeed) = order.seed;
    map_.At<uint8_t>(e + ProcessLayout::kTimeLimit) = op == Op::kStep && ctx_.rules.StepHitsTimeLimit(env.episode);
    if (op == Op::kStep) {
      for (std::size_t f = 0; f < ctx_.spec.action.size(); ++f) {
        std::memcpy(map_.data() + e + layout_.action[f], ctx_.orders.ActionRow(f, id), ctx_.spec.action[f].RowBytes());
      }
    }
    const int w = layout_.WorkerOf(id);
    WorkerBook& book = workers_[static_cast<std::size_t>(w)];
    const uint32_t pos = book.sent++;
    sent_env_[layout_.CommandIndex(w, pos)] = id;
    map_.At<int32_t>(layout_.CommandSlot(w, pos)) = id;
    // release: publishes the order, action and slot
    map_.Atomic<uint32_t>(layout_.Worker(w) + ProcessLayout::kCmdTail).store(book.sent, std::memory_order_release);
    book.touched = true;
  }
  for (std::size_t w = 0; w < layout_.num_workers; ++w) {
    if (workers_[w].touched) Wake(static_cast<int>(w));
  }
}

void ProcessExecutor::Wake(int worker) {
  const std::size_t block = layout_.Worker(worker);
  auto& wake = map_.Atomic<uint32_t>(block + ProcessLayout::kWakeSeq);
  wake.fetch_add(1);  // seq_cst: pairs with the worker's store to `sleeping`
  if (map_.Atomic<uint32_t>(block + ProcessLayout::kSleeping).load() != 0) FutexWakeAll(wake);
}

bool ProcessExecutor::Collect() {
  bool any = false;
  for (std::size_t w = 0; w < layout_.num_workers; ++w) {
    const int worker = static_cast<int>(w);
    const std::size_t block = layout_.Worker(worker);
    const uint32_t dead = map_.Atomic<uint32_t>(block + ProcessLayout::kDead).load(std::memory_order_acquire);
    if (dead == kSettled) continue;  // written off; its replacement has not started yet
    if (dead == kAlive) {
      const WorkerBook& book = workers_[w];
      const uint32_t done = map_.Atomic<uint32_t>(block + ProcessLayout::kDone).load(std::memory_order_acquire);
      const int32_t fork_pid = map_.Atomic<int32_t>(block + ProcessLayout::kForkPid).load(std::memory_order_acquire);
      // Finished commands lie between those completed and those sent (wrapping counters).
      if (fork_pid == 0 && done - book.consumed <= book.sent - book.consumed) {
        any |= CompleteFinished(worker, done);
        continue;
      }
      WorkerDied(worker, WriteOffReason(worker, fork_pid, done));  // settled below, at once
    }
    SettleDeath(worker);
    any = true;
  }
  return any;
}

bool ProcessExecutor::CompleteFinished(int worker, uint32_t done) {
  uint32_t& consumed = workers_[static_cast<std::size_t>(worker)].consumed;
  const bool any = consumed != done;
  for (; consumed != done; ++consumed) CompleteRow(sent_env_[layout_.CommandIndex(worker, consumed)]);
  return any;
}

WaitResult ProcessExecutor::Wait(const WaitBudget& budget, int /*in_flight*/) {
  bool helped = false;
  if (auto r = HelpWhileWorkLasts(budget, [this] { return Collect(); }, &helped)) return *r;
  return CollectUntilReady(budget, [this](Clock::time_point until) { return WaitUntil(until); });
}

bool ProcessExecutor::WaitUntil(Clock::time_point until) {
  auto& done_seq = map_.Atomic<uint32_t>(ProcessLayout::kDoneSeq);
  auto& waiting = map_.Atomic<uint32_t>(ProcessLayout::kCollectorWaiting);
  const auto start = Clock::now();
  // Spin first only while batches come back within microseconds: when they take longer, a
  // spinning collector would take a core from the workers it waits for (2 cores, 2 workers).
  const unsigned spins = wait_ns_ < kSpinWhileBelow.count() ? 2048 : 0;
  for (unsigned i = 1;; ++i) {
    const uint32_t seen = done_seq.load();
    Collect();
    const auto now = Clock::now();
    if (ctx_.batches.Ready()) {
      const int64_t waited = std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count();
      wait_ns_ += (waited - wait_ns_) / 4;
      return true;
    }
    if (now >= until) return false;
    if (i < spins) {
      SpinWait(i);
      continue;
    }
    // Sleep until the commands this batch still needs are done (each completes one row).
    const uint32_t missing = static_cast<uint32_t>(ctx_.batches.Rows() - ctx_.batches.Written(ctx_.batches.TakePos()));
    const uint32_t before = done_seq.load();
    map_.Atomic<uint32_t>(ProcessLayout::kWakeAt).store(seen + missing);
    waiting.store(1);  // seq_cst: pairs with a worker's bump of done_seq
    const uint32_t now_seq = done_seq.load();
    if (now_seq == before && static_cast<int32_t>(now_seq - (seen + missing)) < 0) {
      FutexWait(done_seq, now_seq, until - now);
    }
    waiting.store(0);
  }
}

void ProcessExecutor::CompleteRow(int env_id, const std::string* lost) {
  BatchAssembler& batches = ctx_.batches;
  EnvBook& env = envs_[static_cast<std::size_t>(env_id)];
  std::size_t pos, row;
  if (ctx_.full_batch()) {
    pos = batches.FullBatchPos();
    row = ctx_.orders.FullBatchRow(env_id);
    env.row_batch = batches.Taken();
  } else {
    auto [batch, first] = batches.Reserve(1);
    // This thread is the one that takes batches: waiting here for a position to be re-armed
    // would wait forever. Rows completed never exceed the envs sent, so it cannot happen.
    if (!batches.Armed(batch))
      throw std::logic_error("process pool: a row was completed for a batch the ring cannot hold");
    pos = batches.PosOf(batch);
    row = first;
    env.row_batch = batch;
  }
  env.row = row;
  const std::size_t e = layout_.Env(env_id);
  const char* base = map_.data() + e;
  auto fail_if_failed = [&] {
    if (lost) throw EnvFailure(*lost);
    if (map_.At<uint8_t>(e + ProcessLayout::kFailed) == 0) return;
    const auto len = std::min<std::size_t>(map_.At<uint32_t>(e + ProcessLayout::kErrorLen), layout_.error_capacity);
    throw EnvFailure(std::string(base + layout_.error, len));
  };
  auto copy_obs = [&](Output& out, const std::vector<std::size_t>& offsets) {
    for (std::size_t f = 0; f < ctx_.spec.obs.size(); ++f) {
      std::memcpy(out.Obs<char>(f), base + offsets[f], ctx_.spec.obs[f].RowBytes());
    }
  };
  std::string error;
  ctx_.rules.Run(
      env.episode, env_id, env.sent_op, batches.Buffers(pos), row,
      [&](Output& out) {
        fail_if_failed();
        copy_obs(out, layout_.obs_reset);
      },
      [&](Output& out) {
        fail_if_failed();
        copy_obs(out, layout_.obs_step);
        out.reward() = map_.At<double>(e + ProcessLayout::kReward);
        out.terminated() = map_.At<uint8_t>(e + ProcessLayout::kTerminated) != 0;
        out.truncated() = map_.At<uint8_t>(e + ProcessLayout::kTruncated) != 0;
      },
      &error);
  if (!error.empty()) ctx_.errors.Add(env_id, std::move(error));
  batches.Publish(pos, 1);
}

bool ProcessExecutor::WorkerDied(int worker, const std::string& reason) {
  if (worker < 0 || static_cast<std::size_t>(worker) >= layout_.num_workers) throw std::invalid_argument("bad worker");
  auto& dead = map_.Atomic<uint32_t>(layout_.Worker(worker) + ProcessLayout::kDead);
  {
    std::lock_guard<std::mutex> lock(death_mu_);
    if (dead.load() != kAlive) return false;
    death_reason_[static_cast<std::size_t>(worker)] = reason;
    dead.store(kDied, std::memory_order_release);
  }
  // Wake the collector: it settles the death.
  auto& done_seq = map_.Atomic<uint32_t>(ProcessLayout::kDoneSeq);
  done_seq.fetch_add(1);
  FutexWakeAll(done_seq);
  return true;
}

std::string ProcessExecutor::EnvsOf(int worker) const {
  const int first = layout_.worker_start[static_cast<std::size_t>(worker)];
  const int last = layout_.worker_start[static_cast<std::size_t>(worker) + 1] - 1;
  return first == last ? "env " + std::to_string(first) : "envs " + std::to_string(first) + "-" + std::to_string(last);
}

std::string ProcessExecutor::WriteOffReason(int worker, int32_t fork_pid, uint32_t done) const {
  const std::string who = "the worker process " + std::to_string(worker) + " hosting " + EnvsOf(worker);
  const std::string after = "; it was killed with its process group and its envs restart in a new worker";
  if (fork_pid != 0) {
    const int32_t env = map_.Atomic<int32_t>(layout_.Worker(worker) + ProcessLayout::kForkEnv).load();
    return who + " forked, and the child (pid " + std::to_string(fork_pid) + ") went on running the worker's loop" +
           (env >= 0 ? " after env " + std::to_string(env) + "'s step or reset" : std::string()) +
           " (an env may fork, but its child must exec or exit, never return)" + after;
  }
  const WorkerBook& book = workers_[static_cast<std::size_t>(worker)];
  return who + " counted " + std::to_string(done) + " finished commands, outside the " + std::to_string(book.consumed) +
         ".." + std::to_string(book.sent) + " possible: another process (a fork of it?) wrote to its shared memory" +
         after;
}

void ProcessExecutor::SettleDeath(int worker) {
  const std::size_t block = layout_.Worker(worker);
  WorkerBook& book = workers_[static_cast<std::size_t>(worker)];
  const uint32_t done = map_.Atomic<uint32_t>(block + ProcessLayout::kDone).load(std::memory_order_acquire);
  const bool forked = map_.Atomic<int32_t>(block + ProcessLayout::kForkPid).load(std::memory_order_acquire) != 0;
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(death_mu_);
    reason = death_reason_[static_cast<std::size_t>(worker)].substr(0, layout_.error_capacity);
  }
  // A dead worker's finished commands complete as they are; after a second writer (a fork)
  // nothing it staged is trusted, so every unreturned command of it is lost.
  if (!forked && done - book.consumed <= book.sent - book.consumed) CompleteFinished(worker, done);
  for (; book.consumed != book.sent; ++book.consumed) {
    const int id = sent_env_[layout_.CommandIndex(worker, book.consumed)];
    const std::size_t e = layout_.Env(id);
    map_.At<int32_t>(e + ProcessLayout::kInfoStepLen) = 0;  // no info (recv() reads it from here)
    map_.At<int32_t>(e + ProcessLayout::kInfoResetLen) = 0;
    CompleteRow(id, &reason);
  }
  CutShortUnreturned(worker, reason);
  {
    std::lock_guard<std::mutex> lock(death_mu_);
    revive_done_[static_cast<std::size_t>(worker)] = book.sent;
  }
  map_.Atomic<int64_t>(block + ProcessLayout::kBusySince).store(0);
  map_.Atomic<int32_t>(block + ProcessLayout::kBusyEnv).store(-1);
  map_.Atomic<uint32_t>(block + ProcessLayout::kDead).store(kSettled, std::memory_order_release);
}

void ProcessExecutor::CutShortUnreturned(int worker, const std::string& reason) {
  const uint64_t taken = ctx_.batches.Taken();
  for (int id = layout_.worker_start[static_cast<std::size_t>(worker)];
       id < layout_.worker_start[static_cast<std::size_t>(worker) + 1]; ++id) {
    EnvBook& env = envs_[static_cast<std::size_t>(id)];
    // Rows already returned cannot change: such an env reports its lost episode on its next
    // row (the replacement has a fresh env). An episode that ended has nothing to lose.
    if (env.episode.episode_over || env.row_batch == ~uint64_t{0} || env.row_batch < taken) continue;
    ctx_.rules.CutShort(env.episode, ctx_.batches.Buffers(ctx_.batches.PosOf(env.row_batch)), env.row);
    ctx_.errors.Add(id, reason);
  }
}

bool ProcessExecutor::DeathSettled(int worker) const {
  return map_.Atomic<uint32_t>(layout_.Worker(worker) + ProcessLayout::kDead).load(std::memory_order_acquire) ==
         kSettled;
}

void ProcessExecutor::Revived(int worker) {
  const std::size_t block = layout_.Worker(worker);
  std::lock_guard<std::mutex> lock(death_mu_);
  auto& dead = map_.Atomic<uint32_t>(block + ProcessLayout::kDead);
  if (dead.load(std::memory_order_acquire) != kSettled)
    throw std::logic_error("Revived: the worker's death is not settled");
  // The old process is gone (the caller killed its process group): whatever it or a fork of
  // it wrote after the settlement is undone, and the replacement starts where it ended.
  map_.Atomic<uint32_t>(block + ProcessLayout::kDone).store(revive_done_[static_cast<std::size_t>(worker)]);
  map_.Atomic<int32_t>(block + ProcessLayout::kForkPid).store(0);
  map_.Atomic<int32_t>(block + ProcessLayout::kForkEnv).store(-1);
  map_.Atomic<int64_t>(block + ProcessLayout::kBusySince).store(0);
  map_.Atomic<int32_t>(block + ProcessLayout::kBusyEnv).store(-1);
  dead.store(kAlive, std::memory_order_release);
}

}  // namespace envpool
