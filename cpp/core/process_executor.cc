#include "core/process_executor.h"

#include <algorithm>
#include <cstring>

#include "core/exception_text.h"

namespace envpool {

ProcessExecutor::ProcessExecutor(ExecutorContext context, ProcessLayout layout)
    : Executor(context),
      layout_(std::move(layout)),
      map_(SharedMapping::Create(layout_.total_bytes)),
      episodes_(static_cast<std::size_t>(ctx_.num_envs)),
      sent_op_(static_cast<std::size_t>(ctx_.num_envs), Op::kStep),
      consumed_(layout_.num_workers, 0),
      touched_(layout_.num_workers, 0),
      death_reason_(layout_.num_workers) {
  if (layout_.num_envs != static_cast<std::size_t>(ctx_.num_envs)) throw std::invalid_argument("layout/env count");
}

void ProcessExecutor::Stop() {
  if (stopped_.exchange(true)) return;
  map_.Atomic<uint32_t>(ProcessLayout::kShutdown).store(1);  // seq_cst: a worker about to sleep sees it
  for (std::size_t w = 0; w < layout_.num_workers; ++w) Wake(static_cast<int>(w));
}

void ProcessExecutor::Dispatch(const int* env_ids, int n, bool /*wait_follows*/) {
  std::fill(touched_.begin(), touched_.end(), 0);
  for (int i = 0; i < n; ++i) {
    const int id = env_ids ? env_ids[i] : i;
    const EpisodeState& st = episodes_[static_cast<std::size_t>(id)];
    const Op ordered = ctx_.orders.OpFor(id, env_ids != nullptr);
    const Op op = ctx_.rules.Effective(st, ordered);
    sent_op_[static_cast<std::size_t>(id)] = op;
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
    map_.At<uint8_t>(e + ProcessLayout::kTimeLimit) = op == Op::kStep && ctx_.rules.StepHitsTimeLimit(st);
    if (op == Op::kStep) {
      for (std::size_t f = 0; f < ctx_.spec.action.size(); ++f) {
        std::memcpy(map_.data() + e + layout_.action[f], ctx_.orders.ActionRow(f, id), ctx_.spec.action[f].RowBytes());
      }
    }
    const int w = layout_.WorkerOf(id);
    auto& tail = map_.Atomic<uint32_t>(layout_.Worker(w) + ProcessLayout::kCmdTail);
    const uint32_t pos = tail.load(std::memory_order_relaxed);
    map_.At<int32_t>(layout_.CommandSlot(w, pos)) = id;
    tail.store(pos + 1, std::memory_order_release);  // publishes the order, action and slot
    touched_[static_cast<std::size_t>(w)] = 1;
  }
  for (std::size_t w = 0; w < layout_.num_workers; ++w) {
    if (touched_[w]) Wake(static_cast<int>(w));
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
    const std::size_t block = layout_.Worker(static_cast<int>(w));
    if (map_.Atomic<uint32_t>(block + ProcessLayout::kDead).load(std::memory_order_acquire) == 1) {
      SettleDeath(static_cast<int>(w));
      any = true;
      continue;
    }
    any |= CompleteFinished(static_cast<int>(w),
                            map_.Atomic<uint32_t>(block + ProcessLayout::kDone).load(std::memory_order_acquire));
  }
  return any;
}

bool ProcessExecutor::CompleteFinished(int worker, uint32_t done) {
  uint32_t& consumed = consumed_[static_cast<std::size_t>(worker)];
  const bool any = consumed != done;
  for (; consumed != done; ++consumed) CompleteRow(map_.At<int32_t>(layout_.CommandSlot(worker, consumed)));
  return any;
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

void ProcessExecutor::CompleteRow(int env_id) {
  BatchAssembler& batches = ctx_.batches;
  std::size_t pos, row;
  if (ctx_.full_batch()) {
    pos = batches.FullBatchPos();
    row = ctx_.orders.FullBatchRow(env_id);
  } else {
    auto [batch, first] = batches.Reserve(1);
    batches.AwaitArmed(batch);
    pos = batches.PosOf(batch);
    row = first;
  }
  const std::size_t e = layout_.Env(env_id);
  const char* base = map_.data() + e;
  auto fail_if_failed = [&] {
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
      episodes_[static_cast<std::size_t>(env_id)], env_id, sent_op_[static_cast<std::size_t>(env_id)],
      batches.Buffers(pos), row,
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
    if (dead.load() != 0) return false;
    death_reason_[static_cast<std::size_t>(worker)] = reason;
    dead.store(1, std::memory_order_release);
  }
  // Wake the collector: it settles the death.
  auto& done_seq = map_.Atomic<uint32_t>(ProcessLayout::kDoneSeq);
  done_seq.fetch_add(1);
  FutexWakeAll(done_seq);
  return true;
}

void ProcessExecutor::SettleDeath(int worker) {
  const std::size_t block = layout_.Worker(worker);
  const uint32_t tail = map_.Atomic<uint32_t>(block + ProcessLayout::kCmdTail).load(std::memory_order_acquire);
  const uint32_t done = map_.Atomic<uint32_t>(block + ProcessLayout::kDone).load(std::memory_order_acquire);
  std::string reason;
  {
    std::lock_guard<std::mutex> lock(death_mu_);
    reason = death_reason_[static_cast<std::size_t>(worker)];
  }
  // Finished commands first, then the lost ones as error rows.
  CompleteFinished(worker, done);
  const std::string text = reason.substr(0, layout_.error_capacity);
  for (uint32_t pos = done; pos != tail; ++pos) {
    const int id = map_.At<int32_t>(layout_.CommandSlot(worker, pos));
    const std::size_t e = layout_.Env(id);
    std::memcpy(map_.data() + e + layout_.error, text.data(), text.size());
    map_.At<uint32_t>(e + ProcessLayout::kErrorLen) = static_cast<uint32_t>(text.size());
    map_.At<uint8_t>(e + ProcessLayout::kFailed) = 1;
    map_.At<uint32_t>(e + ProcessLayout::kInfoStepLen) = 0;
    map_.At<uint32_t>(e + ProcessLayout::kInfoResetLen) = 0;
    CompleteRow(id);
  }
  consumed_[static_cast<std::size_t>(worker)] = tail;
  map_.Atomic<uint32_t>(block + ProcessLayout::kDone).store(tail, std::memory_order_release);
  map_.Atomic<int64_t>(block + ProcessLayout::kBusySince).store(0);
  map_.Atomic<int32_t>(block + ProcessLayout::kBusyEnv).store(-1);
  map_.Atomic<uint32_t>(block + ProcessLayout::kDead).store(2, std::memory_order_release);
}

bool ProcessExecutor::DeathSettled(int worker) const {
  return map_.Atomic<uint32_t>(layout_.Worker(worker) + ProcessLayout::kDead).load(std::memory_order_acquire) == 2;
}

void ProcessExecutor::Revived(int worker) {
  std::lock_guard<std::mutex> lock(death_mu_);
  map_.Atomic<uint32_t>(layout_.Worker(worker) + ProcessLayout::kDead).store(0, std::memory_order_release);
}

}  // namespace envpool
