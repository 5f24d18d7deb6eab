#include "core/pool.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace envpool {

namespace {

constexpr std::size_t kMaxFields = 32;  // obs or info arrays per env

bool SameArrays(const std::vector<ArraySpec>& a, const std::vector<ArraySpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].shape != b[i].shape || a[i].low != b[i].low ||
        a[i].high != b[i].high || a[i].discrete != b[i].discrete) {
      return false;
    }
  }
  return true;
}

bool SameArrays(const EnvSpec& a, const EnvSpec& b) {
  return SameArrays(a.obs, b.obs) && SameArrays(a.action, b.action) && SameArrays(a.info, b.info) &&
         a.obs_is_tuple == b.obs_is_tuple && a.render_height == b.render_height && a.render_width == b.render_width;
}

std::string RangeText(const ArraySpec& a) {
  std::ostringstream s;
  if (a.discrete) {
    s << "Discrete(" << static_cast<int64_t>(a.high[0] - a.low[0] + 1);
    if (a.low[0] != 0) s << ", start=" << static_cast<int64_t>(a.low[0]);
    s << ")";
  } else {
    s << "[" << a.low[0] << ", " << a.high[0] << "]";
  }
  return s.str();
}

}  // namespace

EnvPool::EnvPool(const TaskSpec& task, PoolOptions options)
    : task_(task),
      num_envs_(options.num_envs),
      batch_size_(options.batch_size == 0 ? options.num_envs : options.batch_size),
      num_threads_(options.num_threads),
      max_episode_steps_(options.max_episode_steps < 0 ? task.max_episode_steps : options.max_episode_steps),
      autoreset_(options.autoreset) {
  if (num_envs_ < 1) throw std::invalid_argument("num_envs must be >= 1, got " + std::to_string(num_envs_));
  if (batch_size_ < 1 || batch_size_ > num_envs_) {
    throw std::invalid_argument("batch_size must be in [1, num_envs=" + std::to_string(num_envs_) + "], got " +
                                std::to_string(batch_size_));
  }
  if (num_threads_ < 1) throw std::invalid_argument("num_threads must be >= 1, got " + std::to_string(num_threads_));
  if (static_cast<uint64_t>(batch_size_) > kRowMask) throw std::invalid_argument("batch_size must be < 2^24");
  std::vector<Config> configs = options.configs.empty() ? MakeConfigs(task, num_envs_, {}) : options.configs;
  if (static_cast<int>(configs.size()) != num_envs_) throw std::invalid_argument("need one config per env");

  spec_ = task.spec(configs[0]);
  // Per-env kwargs may change the dynamics, never the spaces: every batch has one layout.
  for (int i = 1; i < num_envs_; ++i) {
    const Config& c = configs[static_cast<std::size_t>(i)];
    if (c.values() == configs[0].values()) continue;
    if (!SameArrays(task.spec(c), spec_)) {
      throw std::invalid_argument("the kwargs of env " + std::to_string(i) + " give it other observation/action " +
                                  "spaces than env 0's; per-env kwargs must keep the spaces the same");
    }
  }
  if (spec_.obs.size() > kMaxFields || spec_.info.size() > kMaxFields || spec_.action.size() > kMaxFields) {
    throw std::invalid_argument("too many arrays in the env spec");
  }
  layout_ = BatchLayout::For(spec_, autoreset_ == AutoresetMode::kSameStep);

  slots_ = std::vector<EnvSlot>(static_cast<std::size_t>(num_envs_));
  sent_.resize(static_cast<std::size_t>(num_envs_));
  for (int i = 0; i < num_envs_; ++i) {
    auto& slot = slots_[static_cast<std::size_t>(i)];
    slot.env = task.make(configs[static_cast<std::size_t>(i)]);
    slot.rng.Seed(options.seed + static_cast<uint64_t>(i));
  }
  for (const auto& a : spec_.action) {
    action_data_.emplace_back(static_cast<std::size_t>(num_envs_) * a.RowBytes());
    action_src_.push_back(action_data_.back().data());
  }
  if (autoreset_ == AutoresetMode::kDisabled) {
    for (std::size_t f = 0; f < layout_.num_obs; ++f) {
      last_obs_.emplace_back(static_cast<std::size_t>(num_envs_) * layout_.fields[f].row_bytes);
    }
  }

  // Unreturned results (complete or in flight) never exceed num_envs rows, so they span at
  // most ceil(num_envs / batch_size) batches: one more position lets the next batch start
  // while the user still holds nothing from the ring.
  const int ring = (num_envs_ + batch_size_ - 1) / batch_size_ + 1;
  ring_.resize(static_cast<std::size_t>(ring));
  written_ = std::make_unique<RowCounter[]>(static_cast<std::size_t>(ring));

  status_.assign(static_cast<std::size_t>(num_envs_), Status::kNeedsReset);
  seen_.assign(static_cast<std::size_t>(num_envs_), 0);
  chunk_scratch_.reserve(static_cast<std::size_t>(num_envs_));
  caller_chunks_.reserve(static_cast<std::size_t>(num_envs_));

  // num_threads workers. In a full-batch step() of cheap envs the calling thread takes the
  // place of one of them (see Dispatch), so num_threads threads step envs either way.
  threads_ = std::make_unique<ThreadPool>(
      num_threads_, num_envs_, [this](const Chunk& c) { RunChunk(c); }, options.spin);
}

EnvPool::~EnvPool() { Close(); }

void EnvPool::Close() {
  if (threads_) threads_->Stop();
  closed_ = true;
}

void EnvPool::CheckUsable() const {
  if (closed_) throw ProtocolError("the pool is closed");
}

void EnvPool::ArmBuffers(int pos, BatchBuffers buffers) {
  if (pos < 0 || pos >= ring_size() || buffers.data.size() != layout_.fields.size()) {
    throw std::invalid_argument("ArmBuffers: bad position or field count");
  }
  ring_[static_cast<std::size_t>(pos)] = std::move(buffers);
}

void EnvPool::CheckSendable(const int* env_ids, int n, bool for_step) {
  if (n < 1) throw std::invalid_argument("env_id is empty: send at least one env");
  // All envs, none busy: nothing to check per env. Otherwise the loop finds the culprit.
  if (env_ids == nullptr && (for_step ? idle_count_ == num_envs_ : in_flight_ == 0)) return;
  if (++stamp_ == 0) {  // stamps wrapped: clear them once every 2^32 sends
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  for (int i = 0; i < n; ++i) {
    const int id = env_ids ? env_ids[i] : i;
    if (id < 0 || id >= num_envs_) {
      throw std::invalid_argument("env_id[" + std::to_string(i) + "] = " + std::to_string(id) +
                                  " is out of range [0, " + std::to_string(num_envs_) + ")");
    }
    auto& seen = seen_[static_cast<std::size_t>(id)];
    if (seen == stamp_) {
      throw std::invalid_argument("env_id " + std::to_string(id) + " appears more than once in one call");
    }
    seen = stamp_;
    const Status s = status_[static_cast<std::size_t>(id)];
    if (s == Status::kInFlight) {
      throw ProtocolError("env " + std::to_string(id) +
                          " is still stepping: it was sent and its result has not been received; call recv() first");
    }
    if (for_step && s == Status::kNeedsReset) {
      if (autoreset_ == AutoresetMode::kDisabled && slots_[static_cast<std::size_t>(id)].episode_over) {
        throw ProtocolError("env " + std::to_string(id) +
                            "'s episode is over and autoreset is disabled; reset it first, e.g. "
                            "reset(options={'reset_mask': mask})");
      }
      throw ProtocolError("env " + std::to_string(id) + " has not been reset; call reset() before step()");
    }
  }
}

void EnvPool::SendReset(const int* env_ids, int n, const uint64_t* seeds, const uint8_t* keep, bool wait_follows) {
  CheckUsable();
  if (keep && autoreset_ != AutoresetMode::kDisabled) {
    throw std::invalid_argument("resetting a subset of a full batch needs autoreset_mode DISABLED");
  }
  CheckSendable(env_ids, n, /*for_step=*/false);
  range_op_ = Op::kPerEnv;
  for (int i = 0; i < n; ++i) {
    const auto id = static_cast<std::size_t>(env_ids ? env_ids[i] : i);
    sent_[id].op = keep && keep[i] ? Op::kRepeat : Op::kReset;
    sent_[id].reseed = seeds != nullptr;
    if (seeds) sent_[id].seed = seeds[i];
  }
  Dispatch(env_ids, n, wait_follows);
}

void EnvPool::ValidateActions(const ArraySpec& a, const void* data, const int* env_ids, int n) const {
  // Tight loops first (the common case passes); the slow path names the offending row.
  const std::size_t count = static_cast<std::size_t>(n) * a.NumElements();
  std::size_t bad = count;
  if (a.discrete) {
    const auto* v = static_cast<const int64_t*>(data);
    const auto low = static_cast<int64_t>(a.low[0]), high = static_cast<int64_t>(a.high[0]);
    bool ok = true;
    for (std::size_t k = 0; k < count; ++k) ok &= v[k] >= low && v[k] <= high;
    if (!ok) {
      for (bad = 0; v[bad] >= low && v[bad] <= high; ++bad) {
      }
      const std::size_t row = bad / a.NumElements();
      const int id = env_ids ? env_ids[row] : static_cast<int>(row);
      throw std::invalid_argument("action " + std::to_string(v[bad]) + " for env " + std::to_string(id) + " (row " +
                                  std::to_string(row) + ") is outside " + RangeText(a));
    }
  } else if (a.dtype == DType::kFloat32) {
    const auto* v = static_cast<const float*>(data);
    bool ok = true;
    for (std::size_t k = 0; k < count; ++k) ok &= std::isfinite(v[k]);
    if (!ok) {
      for (bad = 0; std::isfinite(v[bad]); ++bad) {
      }
      const std::size_t row = bad / a.NumElements();
      const int id = env_ids ? env_ids[row] : static_cast<int>(row);
      throw std::invalid_argument("action for env " + std::to_string(id) + " (row " + std::to_string(row) +
                                  ") is not finite: " + std::to_string(v[bad]));
    }
  }
}

void EnvPool::SendStep(const int* env_ids, int n, const std::vector<const void*>& actions, bool wait_follows) {
  CheckUsable();
  if (actions.size() != spec_.action.size()) throw std::invalid_argument("wrong number of action arrays");
  CheckSendable(env_ids, n, /*for_step=*/true);
  // Validate every value before changing anything.
  for (std::size_t f = 0; f < spec_.action.size(); ++f) ValidateActions(spec_.action[f], actions[f], env_ids, n);
  // A full batch that the caller waits for (step()): workers read the caller's arrays, alive
  // until the results are taken; copying them would only move cache lines between cores.
  const bool borrow = full_batch() && env_ids == nullptr && wait_follows;
  for (std::size_t f = 0; f < spec_.action.size(); ++f) {
    const std::size_t bytes = spec_.action[f].RowBytes();
    const char* src = static_cast<const char*>(actions[f]);
    // Written only when it changes, which happens only with nothing in flight (a borrow
    // needs every env idle; so does the first send after a borrowed batch is taken).
    const char* want = borrow ? src : action_data_[f].data();
    if (action_src_[f] != want) action_src_[f] = want;
    if (borrow) continue;
    if (env_ids == nullptr) {
      std::memcpy(action_data_[f].data(), src, bytes * static_cast<std::size_t>(n));
      continue;
    }
    for (int i = 0; i < n; ++i) {
      std::memcpy(action_data_[f].data() + static_cast<std::size_t>(env_ids[i]) * bytes,
                  src + static_cast<std::size_t>(i) * bytes, bytes);
    }
  }
  if (env_ids == nullptr) {
    // One op for the whole range: writing it into every env's slot would drag each slot's
    // cache line to this core and back to the worker that steps it.
    range_op_ = Op::kStep;
  } else {
    for (int i = 0; i < n; ++i) sent_[static_cast<std::size_t>(env_ids[i])].op = Op::kStep;
  }
  Dispatch(env_ids, n, wait_follows);
}

void EnvPool::Dispatch(const int* env_ids, int n, bool wait_follows) {
  if (env_ids == nullptr) {
    std::fill(status_.begin(), status_.end(), Status::kInFlight);
    idle_count_ = 0;
  } else {
    for (int i = 0; i < n; ++i) SetStatus(static_cast<std::size_t>(env_ids[i]), Status::kInFlight);
  }
  in_flight_ += n;
  const int stepping = num_threads_;
  const int64_t estimate = ns_per_env_.load(std::memory_order_relaxed);
  const int64_t ns_per_env = std::max<int64_t>(1, estimate);
  // The caller steps envs itself only in a full-batch step() of envs known to be quick: it
  // must stay free to notice Ctrl-C and timeouts, and it can only do so between env steps.
  caller_helps_ = full_batch() && wait_follows && estimate > 0 && estimate < kCallerMaxStep.count();
  if (env_ids == nullptr) {
    // All envs: one contiguous part per thread, claimed in pieces of about kPieceWork.
    const int piece = static_cast<int>(std::clamp<int64_t>(kPieceWork.count() / ns_per_env, 1, n));
    threads_->SubmitRange(n, stepping <= 1 ? n : piece, caller_helps_);
    return;
  }
  // A set of env ids: linked chunks of about kChunkWork each through the queue, so a
  // hand-off to another core is only paid for when the work amortizes it, and up to
  // kMaxChunksPerThread per thread keep the threads' finishing times close.
  const int64_t per_chunk = std::max<int64_t>(1, kChunkWork.count() / ns_per_env);
  int num_chunks = static_cast<int>(std::min<int64_t>((n + per_chunk - 1) / per_chunk, kMaxChunksPerThread * stepping));
  if (stepping <= 1) num_chunks = 1;
  num_chunks = std::max(1, std::min(num_chunks, n));
  chunk_scratch_.clear();
  int begin = 0;
  for (int c = 0; c < num_chunks; ++c) {
    const int end = static_cast<int>(static_cast<int64_t>(n) * (c + 1) / num_chunks);
    for (int i = begin; i < end; ++i) {
      sent_[static_cast<std::size_t>(env_ids[i])].next = i + 1 < end ? env_ids[i + 1] : -1;
    }
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

void EnvPool::RunChunk(const Chunk& chunk) {
  // Time one step chunk in eight per thread for the running estimate of one env step's cost
  // (resets are not timed: their cost says nothing about steps).
  thread_local unsigned chunks_run = 0;
  if (OpFor(chunk, chunk.head) != Op::kStep || chunks_run++ % 8 != 0) {
    RunChunkEnvs(chunk);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  RunChunkEnvs(chunk);
  // Relaxed: a lost update only delays the estimate.
  const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  const int64_t sample = ns / std::max(1, chunk.count);
  const int64_t old = ns_per_env_.load(std::memory_order_relaxed);
  ns_per_env_.store(old < 0 ? sample : old + (sample - old) / 4, std::memory_order_relaxed);
}

void EnvPool::RunChunkEnvs(const Chunk& chunk) {
  int id = chunk.head;
  if (full_batch()) {
    // Row = env id in the one batch being filled: no shared counter per env.
    const std::size_t pos = full_batch_pos_;
    for (int i = 0; i < chunk.count; ++i) {
      // Read the link first: once the env's result is written it may be received and re-sent.
      const int next = chunk.linked ? sent_[static_cast<std::size_t>(id)].next : id + 1;
      StepEnv(id, pos, static_cast<std::size_t>(id), OpFor(chunk, id));
      id = next;
    }
    PublishRows(pos, chunk.count);
    return;
  }
  // Async: the chunk reserves its rows with one compare-and-swap, then fills them in order
  // (crossing into the next batch where one fills up); each batch's share is published once.
  auto [batch, row] = ReserveRows(chunk.count);
  AwaitArmed(batch);
  std::size_t pos = static_cast<std::size_t>(batch % ring_.size());
  int run = 0;
  for (int i = 0; i < chunk.count; ++i) {
    const int next = chunk.linked ? sent_[static_cast<std::size_t>(id)].next : id + 1;
    StepEnv(id, pos, row, OpFor(chunk, id));
    ++run;
    if (++row == static_cast<std::size_t>(batch_size_)) {
      PublishRows(pos, run);
      run = 0;
      row = 0;
      pos = pos + 1 == ring_.size() ? 0 : pos + 1;
      if (i + 1 < chunk.count) AwaitArmed(++batch);
    }
    id = next;
  }
  if (run > 0) PublishRows(pos, run);
}

std::pair<uint64_t, std::size_t> EnvPool::ReserveRows(int count) {
  // next_row_ packs (batch index << 24 | row); batch_size < 2^24 (checked at construction).
  const auto b = static_cast<uint64_t>(batch_size_);
  uint64_t cur = next_row_.load(std::memory_order_relaxed);
  uint64_t nxt;
  do {
    const uint64_t row = (cur & kRowMask) + static_cast<uint64_t>(count);
    nxt = (((cur >> 24) + row / b) << 24) | (row % b);
  } while (!next_row_.compare_exchange_weak(cur, nxt, std::memory_order_relaxed));
  return {cur >> 24, static_cast<std::size_t>(cur & kRowMask)};
}

void EnvPool::AwaitArmed(uint64_t batch) const {
  // Batch `batch` reuses the position of batch `batch - ring size`, re-armed when that batch
  // was taken. Unreturned rows never exceed num_envs, so it was taken before this chunk could
  // reserve rows here: the loop exits at once unless the load is stale.
  for (unsigned i = 0; taken_batches_.load(std::memory_order_acquire) + ring_.size() <= batch; ++i) SpinWait(i);
}

void EnvPool::PublishRows(std::size_t pos, int count) {
  // seq_cst pairs with WaitBatch's store to waiter_sleeping_ (no lost wake-up).
  if (written_[pos].value.fetch_add(count) + count == batch_size_ && waiter_sleeping_.load()) {
    { std::lock_guard<std::mutex> lock(done_mu_); }
    done_cv_.notify_all();
  }
}

void EnvPool::StepEnv(int env_id, std::size_t pos, std::size_t row, Op op) {
  EnvSlot& slot = slots_[static_cast<std::size_t>(env_id)];
  const BatchBuffers& buf = ring_[pos];

  void* obs[kMaxFields];
  void* info[kMaxFields];
  for (std::size_t f = 0; f < layout_.num_obs; ++f) obs[f] = buf.Row<char>(layout_, f, row);
  for (std::size_t f = 0; f < layout_.num_info; ++f) info[f] = buf.Row<char>(layout_, layout_.first_info + f, row);
  double* reward = buf.Row<double>(layout_, layout_.reward, row);
  bool* terminated = buf.Row<bool>(layout_, layout_.terminated, row);
  bool* truncated = buf.Row<bool>(layout_, layout_.truncated, row);
  Output out(obs, info, reward, terminated, truncated);
  *reward = 0.0;
  *terminated = false;
  *truncated = false;

  try {
    if (op == Op::kRepeat) {
      // Not reset: show the last observation again; it has no new info.
      for (std::size_t f = 0; f < layout_.num_obs; ++f) {
        std::memcpy(obs[f], LastObs(f, env_id), layout_.fields[f].row_bytes);
      }
      for (std::size_t f = 0; f < layout_.num_info; ++f) {
        std::memset(info[f], 0, layout_.fields[layout_.first_info + f].row_bytes);
      }
    } else if (op == Op::kReset || (slot.episode_over && autoreset_ == AutoresetMode::kNextStep)) {
      const SendInfo& sent = sent_[static_cast<std::size_t>(env_id)];
      if (op == Op::kReset && sent.reseed) slot.rng.Seed(sent.seed);
      ResetEnv(slot, out);
      if (layout_.has_final) WriteFinal(buf, row, 0, false);
    } else {
      const void* act[kMaxFields];
      for (std::size_t f = 0; f < spec_.action.size(); ++f) act[f] = ActionRow(f, env_id);
      slot.env->Step(Action(act), slot.rng, out);
      ++slot.elapsed_step;
      *truncated = *truncated || (max_episode_steps_ > 0 && slot.elapsed_step >= max_episode_steps_);
      slot.episode_over = *terminated || *truncated;
      if (layout_.has_final) {
        WriteFinal(buf, row, slot.elapsed_step, slot.episode_over);
        if (slot.episode_over) ResetEnv(slot, out);
      }
    }
    if (!last_obs_.empty()) {
      for (std::size_t f = 0; f < layout_.num_obs; ++f) {
        std::memcpy(LastObs(f, env_id), obs[f], layout_.fields[f].row_bytes);
      }
    }
  } catch (const std::exception& e) {
    // The row still completes so the batch accounting holds. The episode is cut short: it
    // reads as truncated, and the env restarts like after any episode end (kNextStep: on its
    // next step; kDisabled: when the user resets it).
    *truncated = true;
    slot.episode_over = true;
    std::lock_guard<std::mutex> lock(error_mu_);
    env_errors_.emplace_back(env_id, e.what());
  }
  *buf.Row<int32_t>(layout_, layout_.env_id, row) = env_id;
  *buf.Row<int32_t>(layout_, layout_.elapsed_step, row) = slot.elapsed_step;
}

void EnvPool::ResetEnv(EnvSlot& slot, Output& out) {
  slot.env->Reset(slot.rng, out);
  slot.elapsed_step = 0;
  slot.episode_over = false;
}

void EnvPool::WriteFinal(const BatchBuffers& buf, std::size_t row, int32_t elapsed, bool done) {
  // Rows of envs that did not finish are zeroed so a batch never shows stale values.
  for (std::size_t f = 0; f < layout_.num_obs; ++f) {
    char* dst = buf.Row<char>(layout_, layout_.first_final_obs + f, row);
    if (done) {
      std::memcpy(dst, buf.Row<char>(layout_, f, row), layout_.fields[f].row_bytes);
    } else {
      std::memset(dst, 0, layout_.fields[f].row_bytes);
    }
  }
  *buf.Row<int32_t>(layout_, layout_.final_elapsed_step, row) = done ? elapsed : 0;
  for (std::size_t f = 0; f < layout_.num_info; ++f) {
    char* dst = buf.Row<char>(layout_, layout_.first_final_info + f, row);
    if (done) {
      std::memcpy(dst, buf.Row<char>(layout_, layout_.first_info + f, row), layout_.fields[layout_.first_info + f].row_bytes);
    } else {
      std::memset(dst, 0, layout_.fields[layout_.first_info + f].row_bytes);
    }
  }
}

EnvPool::WaitResult EnvPool::WaitBatch(double timeout_s, const std::function<bool()>& interrupted) {
  CheckUsable();
  using Clock = std::chrono::steady_clock;
  const std::size_t pos = taken_pos_;
  auto ready = [&] { return written_[pos].value.load(std::memory_order_acquire) == batch_size_; };
  // in_flight_ counts every unreturned env, finished or not: if they cannot fill a batch,
  // waiting would never end.
  if (in_flight_ < batch_size_) {
    throw ProtocolError("recv() would wait forever: " + std::to_string(in_flight_) +
                        " envs are in flight but a batch needs " + std::to_string(batch_size_) +
                        "; send() more envs first");
  }
  const auto start = Clock::now();
  const bool has_deadline = timeout_s >= 0;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                    has_deadline ? timeout_s : 0.0));
  // Help while this thread may (see Dispatch), checking the deadline and Ctrl-C between
  // chunks; then spin briefly; then sleep in short slices, checking them after each.
  auto check = [&](Clock::time_point now) -> std::optional<WaitResult> {
    if (has_deadline && now >= deadline) return WaitResult::kTimeout;
    if (interrupted && interrupted()) return WaitResult::kInterrupted;
    return std::nullopt;
  };
  if (caller_helps_) {
    auto next_check = start + kCheckInterval;
    for (;;) {
      if (!caller_chunks_.empty()) {
        const Chunk chunk = caller_chunks_.back();
        caller_chunks_.pop_back();
        RunChunk(chunk);
      } else if (!threads_->RunOne()) {
        break;
      }
      const auto now = Clock::now();
      if (now >= next_check) {
        if (auto r = check(now)) return *r;
        next_check = now + kCheckInterval;
      }
    }
  }
  // Asynchronous loops (another batch's worth of envs in flight behind this one): when the
  // batch is far from complete, sleep at once rather than spin, leaving the cores to the
  // workers; the envs still stepping hide the wake-up latency.
  const int64_t remaining = batch_size_ - written_[pos].value.load(std::memory_order_relaxed);
  const bool sleep_at_once = !caller_helps_ && in_flight_ >= 2 * batch_size_ &&
                             ns_per_env_.load(std::memory_order_relaxed) * remaining / num_threads_ > kSpinMax.count();
  for (unsigned i = 1;; ++i) {
    if (ready()) return WaitResult::kReady;
    if (!sleep_at_once) {
      SpinWait(i);
      if ((i & 255) != 0 && i < 2048) continue;
    }
    const auto now = Clock::now();
    if (has_deadline && now >= deadline) return WaitResult::kTimeout;
    if (!sleep_at_once && now - start < std::chrono::microseconds(200)) continue;
    waiter_sleeping_.store(true);
    {
      std::unique_lock<std::mutex> lock(done_mu_);
      auto until = now + kCheckInterval;
      if (has_deadline && deadline < until) until = deadline;
      done_cv_.wait_until(lock, until, ready);
    }
    waiter_sleeping_.store(false);
    if (ready()) return WaitResult::kReady;
    if (auto r = check(Clock::now())) return *r;
  }
}

int EnvPool::TakeBatch(BatchBuffers fresh) {
  const std::size_t pos = taken_pos_;
  if (written_[pos].value.load(std::memory_order_acquire) != batch_size_) {
    throw ProtocolError("TakeBatch: the batch is not complete");
  }
  if (fresh.data.size() != layout_.fields.size()) throw std::invalid_argument("TakeBatch: wrong field count");
  const BatchBuffers& buf = ring_[pos];
  const int32_t* ids = buf.Row<int32_t>(layout_, layout_.env_id, 0);
  if (autoreset_ == AutoresetMode::kDisabled) {
    // A finished episode must be reset explicitly before the env can step again.
    const bool* term = buf.Row<bool>(layout_, layout_.terminated, 0);
    const bool* trunc = buf.Row<bool>(layout_, layout_.truncated, 0);
    for (int i = 0; i < batch_size_; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      SetStatus(id, term[i] || trunc[i] || slots_[id].episode_over ? Status::kNeedsReset : Status::kIdle);
    }
  } else if (full_batch()) {
    std::fill(status_.begin(), status_.end(), Status::kIdle);
    idle_count_ = num_envs_;
  } else {
    for (int i = 0; i < batch_size_; ++i) SetStatus(static_cast<std::size_t>(ids[i]), Status::kIdle);
  }
  in_flight_ -= batch_size_;
  written_[pos].value.store(0, std::memory_order_relaxed);
  ring_[pos] = std::move(fresh);
  // release: a worker that acquires this count sees the position re-armed (see AwaitArmed).
  taken_batches_.fetch_add(1, std::memory_order_release);
  taken_pos_ = pos + 1 == ring_.size() ? 0 : pos + 1;
  // Full batch: the next batch is written at the next position. Workers read this after
  // taking a chunk from the queue, whose mutex orders it after this store.
  if (full_batch()) full_batch_pos_ = taken_pos_;
  return static_cast<int>(pos);
}

std::vector<std::pair<int, std::string>> EnvPool::TakeEnvErrors() {
  std::lock_guard<std::mutex> lock(error_mu_);
  std::vector<std::pair<int, std::string>> out;
  out.swap(env_errors_);
  return out;
}

void EnvPool::Render(const int* env_ids, int n, uint8_t* frames) {
  CheckUsable();
  if (spec_.render_height <= 0 || spec_.render_width <= 0) {
    throw std::invalid_argument(task_.id + " does not render");
  }
  const std::size_t frame_bytes =
      static_cast<std::size_t>(spec_.render_height) * static_cast<std::size_t>(spec_.render_width) * 3;
  for (int i = 0; i < n; ++i) {
    const int id = env_ids ? env_ids[i] : i;
    if (id < 0 || id >= num_envs_) {
      throw std::invalid_argument("env_id[" + std::to_string(i) + "] = " + std::to_string(id) + " is out of range [0, " +
                                  std::to_string(num_envs_) + ")");
    }
    const Status s = status_[static_cast<std::size_t>(id)];
    if (s == Status::kInFlight) {
      throw ProtocolError("env " + std::to_string(id) + " is in flight; recv() it before rendering");
    }
    if (s == Status::kNeedsReset && !slots_[static_cast<std::size_t>(id)].episode_over) {
      throw ProtocolError("env " + std::to_string(id) + " has not been reset; call reset() before render()");
    }
  }
  for (int i = 0; i < n; ++i) {
    slots_[static_cast<std::size_t>(env_ids ? env_ids[i] : i)].env->Render(frames + static_cast<std::size_t>(i) * frame_bytes);
  }
}

std::vector<double> EnvPool::GetState(int env_id) const {
  CheckUsable();
  if (env_id < 0 || env_id >= num_envs_) throw std::invalid_argument("env_id " + std::to_string(env_id) + " out of range");
  if (status_[static_cast<std::size_t>(env_id)] == Status::kInFlight) {
    throw ProtocolError("env " + std::to_string(env_id) + " is in flight; recv() it before reading its state");
  }
  return slots_[static_cast<std::size_t>(env_id)].env->GetState();
}

void EnvPool::SetState(int env_id, const std::vector<double>& state) {
  CheckUsable();
  if (env_id < 0 || env_id >= num_envs_) throw std::invalid_argument("env_id " + std::to_string(env_id) + " out of range");
  auto& status = status_[static_cast<std::size_t>(env_id)];
  if (status == Status::kInFlight) {
    throw ProtocolError("env " + std::to_string(env_id) + " is in flight; recv() it before setting its state");
  }
  auto& slot = slots_[static_cast<std::size_t>(env_id)];
  slot.env->SetState(state);
  // The env is now mid-episode in the given state: no pending autoreset.
  slot.episode_over = false;
  SetStatus(static_cast<std::size_t>(env_id), Status::kIdle);
}

std::vector<Config> MakeConfigs(const TaskSpec& task, int num_envs,
                                const std::vector<std::pair<std::string, std::vector<ConfigValue>>>& kwargs) {
  std::vector<Config> configs(static_cast<std::size_t>(std::max(num_envs, 0)), task.defaults);
  for (const auto& [key, values] : kwargs) {
    if (!task.defaults.Has(key)) {
      std::string known;
      for (const auto& [k, v] : task.defaults.values()) known += (known.empty() ? "" : ", ") + k;
      throw std::invalid_argument("unknown keyword argument '" + key + "' for " + task.id +
                                  (known.empty() ? " (it takes no env kwargs)" : " (it takes: " + known + ")"));
    }
    if (values.size() != 1 && values.size() != static_cast<std::size_t>(num_envs)) {
      throw std::invalid_argument("keyword argument '" + key + "' has " + std::to_string(values.size()) +
                                  " per-env values but num_envs is " + std::to_string(num_envs));
    }
    const ConfigValue& def = task.defaults.values().at(key);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      ConfigValue v = values[values.size() == 1 ? 0 : i];
      if (def.index() == 2 && v.index() == 1) v = static_cast<double>(std::get<int64_t>(v));  // int for float
      // An empty list reads as list[float]; it is as good an empty list[str].
      if (std::holds_alternative<std::vector<std::string>>(def) && std::holds_alternative<std::vector<double>>(v) &&
          std::get<std::vector<double>>(v).empty()) {
        v = std::vector<std::string>{};
      }
      if (v.index() != def.index()) {
        throw std::invalid_argument("keyword argument '" + key + "' must be " + ConfigTypeName(def) + ", got " +
                                    ConfigTypeName(v));
      }
      configs[i].Set(key, std::move(v));
    }
  }
  return configs;
}

}  // namespace envpool
