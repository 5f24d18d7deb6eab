#include "core/thread_executor.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace envpool {

ThreadExecutor::ThreadExecutor(ExecutorContext context, const TaskSpec& task, const std::vector<Config>& configs,
                               const ResolvedPoolOptions& options)
    : Executor(context), num_threads_(options.num_threads), spin_(options.spin) {
  slots_ = std::vector<EnvSlot>(static_cast<std::size_t>(ctx_.num_envs));
  for (int i = 0; i < ctx_.num_envs; ++i) {
    auto& slot = slots_[static_cast<std::size_t>(i)];
    slot.env = task.make(configs[static_cast<std::size_t>(i)]);
    slot.rng.Seed(options.EnvSeed(i));
    slot.env->Seed(options.EnvSeed(i));
  }
  chunk_scratch_.reserve(static_cast<std::size_t>(ctx_.num_envs));
  caller_chunks_.reserve(static_cast<std::size_t>(ctx_.num_envs));
  // num_threads workers. In a full-batch step() of cheap envs the calling thread takes the
  // place of one of them (see Dispatch), so num_threads threads step envs either way.
  threads_ = std::make_unique<ThreadPool>(
      num_threads_, ctx_.num_envs, [this](const Chunk& c) { RunChunk(c); }, spin_, options.thread_affinity_offset);
  // Async loops: the waiting caller steps envs too only where a core is left for it (make's
  // async default, one worker fewer than cores); beside a worker on every core it would only
  // preempt one (measured: HalfCheetah async 16/8 with 2 workers on 2 cores, 0.87x).
  const unsigned cores = std::thread::hardware_concurrency();
  async_caller_helps_ = cores == 0 || static_cast<unsigned>(num_threads_) < cores;
}

void ThreadExecutor::SetState(int env_id, const std::vector<double>& state) {
  auto& slot = slots_[static_cast<std::size_t>(env_id)];
  slot.env->SetState(state);
  // The env is now mid-episode in the given state: no pending autoreset.
  slot.episode.episode_over = false;
}

void ThreadExecutor::Dispatch(const int* env_ids, int n, bool wait_follows) {
  const int stepping = num_threads_;
  const int64_t estimate = ns_per_env_.load(std::memory_order_relaxed);
  // The caller steps envs itself only in a full-batch step() of envs known to be quick: it
  // must stay free to notice Ctrl-C and timeouts, and it can only do so between env steps.
  caller_helps_ = ctx_.full_batch() && wait_follows && QuickForCaller(estimate);
  // Where the caller may step the batch alone, the solo switch says whether it does (the
  // workers then sleep: see solo_switch.h for why and when).
  solo_allowed_ = SoloAllowed(estimate);
  const bool solo = solo_allowed_ && solo_switch_.solo();
  if (solo != solo_) {
    solo_ = solo;
    threads_->SetWorkersOut(solo);
  }
  if (env_ids == nullptr) {
    // All envs: one contiguous part per thread, claimed in pieces of about kPieceWork (one
    // env at a time while the cost of a step is unknown: it may be seconds).
    const int piece = estimate <= 0 ? 1 : static_cast<int>(std::clamp<int64_t>(kPieceWork.count() / estimate, 1, n));
    // The caller claims every part no worker does, so a sleeper it misses here costs no work.
    // Alone (solo_) the pool wakes no one anyway; testing it first skips WakeForRange's clock.
    const bool wake = !solo_ && (!caller_helps_ || (threads_->SleepingWithPart() && WakeForRange(estimate * n)));
    threads_->SubmitRange(n, stepping <= 1 ? n : piece, caller_helps_, wake);
    return;
  }
  // A set of env ids: linked chunks of about kChunkWork each through the queue, so a
  // hand-off to another core is only paid for when the work amortizes it, and up to
  // kMaxChunksPerThread per thread keep the threads' finishing times close. While the cost
  // of a step is unknown, every env is a chunk of its own (up to that many chunks).
  // An async caller that steps queued envs (see Help) counts as a thread: with one worker the
  // send is then split too, so the caller takes a piece at a time and stops once its batch is
  // ready rather than being held by a whole send's worth of envs.
  const int threads = stepping + (AsyncCallerStepsQueued(estimate) ? 1 : 0);
  const int64_t per_chunk = estimate <= 0 ? 1 : std::max<int64_t>(1, kChunkWork.count() / estimate);
  int num_chunks = static_cast<int>(std::min<int64_t>((n + per_chunk - 1) / per_chunk, kMaxChunksPerThread * threads));
  if (threads <= 1) num_chunks = 1;
  num_chunks = std::max(1, std::min(num_chunks, n));
  chunk_scratch_.clear();
  int begin = 0;
  for (int c = 0; c < num_chunks; ++c) {
    const int end = static_cast<int>(static_cast<int64_t>(n) * (c + 1) / num_chunks);
    for (int i = begin; i < end; ++i) ctx_.orders[env_ids[i]].next = i + 1 < end ? env_ids[i + 1] : -1;
    chunk_scratch_.push_back({env_ids[begin], end - begin, true});
    begin = end;
  }
  if (caller_helps_) {
    // The caller will wait for this batch anyway: it keeps the first chunk for itself (no
    // hand-off at all for a small batch) and shares the rest.
    caller_chunks_.push_back(chunk_scratch_.front());
    threads_->Submit(chunk_scratch_.data() + 1, static_cast<int>(chunk_scratch_.size()) - 1);
  } else {
    threads_->Submit(chunk_scratch_.data(), static_cast<int>(chunk_scratch_.size()));
  }
}

bool ThreadExecutor::WakeForRange(int64_t work) {
  // A spinning worker joins the range without being woken; this decides about sleeping ones.
  const auto now = std::chrono::steady_clock::now();
  const int64_t since = std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_range_).count();
  last_range_ = now;
  if (work >= kWakeWork.count()) return true;  // the wake-up pays for itself
  // A small batch: a worker that slept through the caller's own work between steps (a policy,
  // say) costs more to wake than it saves. But one that fell asleep in a tight step() loop (a
  // pause, a GC) is woken: it spins through the next gaps again, so the wake-up is paid once.
  // The loop is tight if the previous dispatch that found a worker asleep was less than its
  // work plus a spin ago (called only then: no clock read per step while workers spin).
  return since < work + spin_.count();
}

WaitResult ThreadExecutor::Wait(const WaitBudget& budget, int in_flight) {
  const WaitResult result = WaitForBatch(budget, in_flight);
  if (result != WaitResult::kReady) return result;
  if (solo_allowed_) {
    // The caller alone would step the batch's envs one after another.
    const int64_t estimate = ns_per_env_.load(std::memory_order_relaxed);
    solo_switch_.WaitEnded(estimate > 0 ? estimate * ctx_.batch_size : 0);
  } else {
    solo_switch_.WaitEndedUntimed();
  }
  return result;
}

WaitResult ThreadExecutor::WaitForBatch(const WaitBudget& budget, int in_flight) {
  bool helped = false;
  if (auto r = HelpWhileWorkLasts(budget, [this] { return Help(); }, &helped)) return *r;
  // Asynchronous loops (another batch's worth of envs in flight behind this one): when the
  // batch is far from complete, sleep at once rather than spin, leaving the cores to the
  // workers; the envs still stepping hide the wake-up latency.
  const int64_t remaining = ctx_.batch_size - ctx_.batches.Written(ctx_.batches.TakePos());
  const bool sleep_at_once =
      !helped && in_flight >= 2 * ctx_.batch_size &&
      ns_per_env_.load(std::memory_order_relaxed) * remaining / std::max(1, num_threads_) > kSpinMax.count();
  return SpinThenSleep(budget, sleep_at_once);
}

bool ThreadExecutor::Help() {
  if (!caller_helps_) {
    // Asynchronous loops: rather than wait for the workers, the caller steps queued envs (from
    // this send or an earlier one) while its batch is incomplete, if they are quick (as in a
    // full batch) and a batch's steps add up to kCallerMinWork: below that the caller's own per-cycle work (Python's
    // recv/send) bounds the loop and stepping envs only lengthens it (A/B on 2 cores, the caller always helping:
    // CartPole async 256/128 0.92x; above it, CartPole 1024/512 1.32x, HalfCheetah 64/32 1.83x).
    // Alone (solo_), it steps them all.
    if (!(solo_ || AsyncCallerStepsQueued(ns_per_env_.load(std::memory_order_relaxed))) || ctx_.batches.Ready()) {
      return false;
    }
    return threads_->RunOne();
  }
  if (!caller_chunks_.empty()) {
    const Chunk chunk = caller_chunks_.back();
    caller_chunks_.pop_back();
    RunChunk(chunk);
    return true;
  }
  if (threads_->RunOne()) return true;
  caller_helps_ = false;
  return false;
}

void ThreadExecutor::RenderMany(const int* env_ids, int n, uint8_t* frames, std::size_t frame_bytes) {
  if (n <= 0) return;
  RenderJob& job = render_job_;
  job.env_ids = env_ids;
  job.n = n;
  job.frames = frames;
  job.frame_bytes = frame_bytes;
  job.error = nullptr;
  job.done.store(0, std::memory_order_relaxed);
  // One part per thread, or one in all when an env is listed twice (its frames are drawn one
  // after the other, as two render() calls would draw them).
  job.parts = std::min(num_threads_, n);
  if (env_ids != nullptr && job.parts > 1) {
    std::vector<int> sorted(env_ids, env_ids + n);
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) job.parts = 1;
  }
  chunk_scratch_.clear();
  for (int p = 0; p < job.parts; ++p) chunk_scratch_.push_back({-1 - p, 0, false});
  // Frames are drawn on the workers (see RenderJob), also while the caller steps envs alone:
  // the next dispatch sends them out again.
  if (solo_) {
    solo_ = false;
    threads_->SetWorkersOut(false);
  }
  threads_->Submit(chunk_scratch_.data(), job.parts);  // release: the workers see the job
  for (int d = job.done.load(std::memory_order_acquire); d < job.parts; d = job.done.load(std::memory_order_acquire)) {
    job.done.wait(d, std::memory_order_acquire);
  }
  if (job.error) std::rethrow_exception(job.error);
}

void ThreadExecutor::RunRenderChunk(int part) {
  RenderJob& job = render_job_;
  const int begin = static_cast<int>(static_cast<int64_t>(job.n) * part / job.parts);
  const int end = static_cast<int>(static_cast<int64_t>(job.n) * (part + 1) / job.parts);
  for (int i = begin; i < end; ++i) {
    const int id = job.env_ids ? job.env_ids[i] : i;
    try {
      slots_[static_cast<std::size_t>(id)].env->Render(job.frames + static_cast<std::size_t>(i) * job.frame_bytes);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mu);
      if (!job.error) job.error = std::current_exception();
    }
  }
  job.done.fetch_add(1, std::memory_order_release);
  job.done.notify_all();
}

void ThreadExecutor::RunChunk(const Chunk& chunk) {
  if (chunk.head < 0) [[unlikely]] {
    RunRenderChunk(-1 - chunk.head);
    return;
  }
  // Time one step chunk in eight per thread for the running estimate of one env step's cost
  // (resets are not timed: their cost says nothing about steps).
  thread_local unsigned chunks_run = 0;
  if (ctx_.orders.OpFor(chunk.head, chunk.linked) != Op::kStep || chunks_run++ % 8 != 0) {
    RunChunkEnvs(chunk);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  RunChunkEnvs(chunk);
  // Relaxed: a lost update only delays the estimate.
  const int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  const int64_t sample = std::max<int64_t>(1, ns / std::max(1, chunk.count));
  const int64_t old = ns_per_env_.load(std::memory_order_relaxed);
  ns_per_env_.store(old < 0 ? sample : old + (sample - old) / 4, std::memory_order_relaxed);
}

void ThreadExecutor::RunChunkEnvs(const Chunk& chunk) {
  BatchAssembler& batches = ctx_.batches;
  std::string error;  // one per chunk, not per env: filled only when an env throws
  int id = chunk.head;
  if (ctx_.full_batch()) {
    // Row = env id (or the env's place in the sends, see OrderBook::FullBatchRow) in the one
    // batch being filled: no shared counter per env.
    const std::size_t pos = batches.FullBatchPos();
    const BatchBuffers& buf = batches.Buffers(pos);
    const BatchRows rows(ctx_.layout, buf);
    const OrderBook::Rows actions(ctx_.orders);
    if (chunk.linked) {
      for (int i = 0; i < chunk.count; ++i) {
        // Read the link first: once the env's result is written it may be received and re-sent.
        const int next = ctx_.orders[id].next;
        StepEnv(id, buf, rows, ctx_.orders.FullBatchRow(id), ctx_.orders.OpFor(id, true), actions, error);
        id = next;
      }
    } else {
      // A range of ids, each env's row its id (the common step() of all envs): a loop of its
      // own, with the range's op read once, saves ~15 instructions per env step (callgrind). It
      // writes OpFor's rule out: calling a shared helper instead measured ~1% more (4e5a334).
      const Op range_op = ctx_.orders.range_op;
      for (const int end = id + chunk.count; id < end; ++id) {
        StepEnv(id, buf, rows, static_cast<std::size_t>(id), range_op == Op::kPerEnv ? ctx_.orders[id].op : range_op,
                actions, error);
      }
    }
    batches.Publish(pos, chunk.count);
    return;
  }
  if (chunk.count == 1) {
    RunOneInFinishOrder(id, ctx_.orders.OpFor(id, chunk.linked), error);
    return;
  }
  // Async: the chunk reserves its rows with one compare-and-swap, then fills them in order
  // (crossing into the next batch where one fills up); each batch's share is published once.
  auto [batch, row] = batches.Reserve(chunk.count);
  if (!batches.AwaitArmed(batch, threads_->stopping())) return;  // the pool closes: no one takes rows
  std::size_t pos = batches.PosOf(batch);
  BatchRows rows(ctx_.layout, batches.Buffers(pos));
  const OrderBook::Rows actions(ctx_.orders);
  int run = 0;
  for (int i = 0; i < chunk.count; ++i) {
    const int next = chunk.linked ? ctx_.orders[id].next : id + 1;
    StepEnv(id, batches.Buffers(pos), rows, row, ctx_.orders.OpFor(id, chunk.linked), actions, error);
    ++run;
    if (++row == static_cast<std::size_t>(ctx_.batch_size)) {
      batches.Publish(pos, run);
      run = 0;
      row = 0;
      pos = batches.NextPos(pos);
      if (i + 1 < chunk.count) {
        if (!batches.AwaitArmed(++batch, threads_->stopping())) return;
        rows = BatchRows(ctx_.layout, batches.Buffers(pos));
      }
    }
    id = next;
  }
  if (run > 0) batches.Publish(pos, run);
}

void ThreadExecutor::RunOneInFinishOrder(int env_id, Op op, std::string& error) {
  // This thread's row to step into: every field at a 64-byte boundary. It only grows (the
  // first time, or for a pool with wider rows), so stepping allocates nothing after that.
  thread_local std::vector<char> scratch;
  thread_local BatchBuffers staged;
  const BatchLayout& layout = ctx_.layout;
  std::size_t bytes = 0;
  for (const auto& field : layout.fields) bytes += (field.row_bytes + 63) / 64 * 64;
  if (scratch.size() < bytes + 64) scratch.resize(bytes + 64);
  staged.data.resize(layout.fields.size());
  char* at = scratch.data() + (64 - reinterpret_cast<std::uintptr_t>(scratch.data()) % 64) % 64;
  for (std::size_t f = 0; f < layout.fields.size(); ++f) {
    staged.data[f] = at;
    at += (layout.fields[f].row_bytes + 63) / 64 * 64;
  }
  // Fills every field of the row (EpisodeRules::Run).
  StepEnv(env_id, staged, BatchRows(layout, staged), 0, op, OrderBook::Rows(ctx_.orders), error);
  BatchAssembler& batches = ctx_.batches;
  const auto [batch, row] = batches.Reserve(1);
  if (!batches.AwaitArmed(batch, threads_->stopping())) return;  // the pool closes: no one takes rows
  const std::size_t pos = batches.PosOf(batch);
  const BatchBuffers& out = batches.Buffers(pos);
  for (std::size_t f = 0; f < layout.fields.size(); ++f) {
    std::memcpy(out.Row<char>(layout, f, row), staged.data[f], layout.fields[f].row_bytes);
  }
  batches.Publish(pos, 1);
}

void ThreadExecutor::ResetEnv(EnvSlot& slot, Output& out) {
  if (slot.resets++ % 8 != 0) {
    slot.env->Reset(slot.rng, out);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  slot.env->Reset(slot.rng, out);
  const int64_t sample = std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  // Relaxed, as ns_per_env_: a lost update only delays the estimate.
  const int64_t old = ns_per_reset_.load(std::memory_order_relaxed);
  ns_per_reset_.store(old < 0 ? sample : old + (sample - old) / 4, std::memory_order_relaxed);
}

// Inlined into the loops over a chunk's envs: with the chunk's rows resolved once (BatchRows),
// what a step reads besides the env stays in registers from env to env. callgrind, CartPole-v1
// 8192 envs, 1 thread, instructions per env step: 380 before, 369 with BatchRows alone, 384
// inlined alone, 308 both (wall clock 1 thread: 64 envs 1.04x, 256 1.08x, 1024 1.08x). Later, 1024 envs,
// the whole step() call: 338 -> 299 with the range loop, the action rows copied out once per
// chunk (OrderBook::Rows), one-field fast paths and the reset's Order read only on resets.
[[gnu::always_inline]] inline void ThreadExecutor::StepEnv(int env_id, const BatchBuffers& buf, const BatchRows& rows,
                                                           std::size_t row, Op op, const OrderBook::Rows& actions,
                                                           std::string& error) {
  EnvSlot& slot = slots_[static_cast<std::size_t>(env_id)];
  ctx_.rules.Run(
      slot.episode, env_id, op, buf, rows, row,
      [&](Output& out) {
        const Order& order = ctx_.orders[env_id];  // read here: only resets need it
        if (op == Op::kReset && order.reseed) {
          slot.rng.Seed(order.seed);
          slot.env->Seed(order.seed);
        }
        ResetEnv(slot, out);
      },
      [&](Output& out) {
        const void* act[kMaxArraysPerKind];
        if (actions.num_fields == 1) {  // the common case, as for observations (EpisodeRules::Run)
          act[0] = actions.Row(0, env_id);
        } else {
          for (std::size_t f = 0; f < actions.num_fields; ++f) act[f] = actions.Row(f, env_id);
        }
        slot.env->Step(Action(act), slot.rng, out);
      },
      &error);
  if (!error.empty()) [[unlikely]] {
    ctx_.errors.Add(env_id, std::move(error));
    error.clear();
  }
}

}  // namespace envpool
