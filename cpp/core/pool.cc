#include "core/pool.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "core/thread_executor.h"

namespace envpool {

namespace {

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

int CheckedNumEnvs(const PoolOptions& options) {
  if (options.num_envs < 1)
    throw std::invalid_argument("num_envs must be >= 1, got " + std::to_string(options.num_envs));
  return options.num_envs;
}

}  // namespace

EnvPool::EnvPool(const TaskSpec& task, PoolOptions options)
    : name_(task.id),
      num_envs_(CheckedNumEnvs(options)),
      batch_size_(options.batch_size == 0 ? options.num_envs : options.batch_size),
      protocol_(num_envs_) {
  if (options.num_threads < 1) {
    throw std::invalid_argument("num_threads must be >= 1, got " + std::to_string(options.num_threads));
  }
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
  if (options.max_episode_steps < 0) options.max_episode_steps = task.max_episode_steps;
  Init(options, [&](ExecutorContext ctx) {
    return std::make_unique<ThreadExecutor>(ctx, task, configs, options.seed, options.num_threads, options.spin);
  });
}

EnvPool::EnvPool(std::string name, EnvSpec spec, PoolOptions options, const ExecutorFactory& make_executor)
    : name_(std::move(name)),
      spec_(std::move(spec)),
      num_envs_(CheckedNumEnvs(options)),
      batch_size_(options.batch_size == 0 ? options.num_envs : options.batch_size),
      protocol_(num_envs_) {
  if (options.max_episode_steps < 0) options.max_episode_steps = 0;
  Init(options, make_executor);
}

void EnvPool::Init(const PoolOptions& options, const ExecutorFactory& make_executor) {
  if (batch_size_ < 1 || batch_size_ > num_envs_) {
    throw std::invalid_argument("batch_size must be in [1, num_envs=" + std::to_string(num_envs_) + "], got " +
                                std::to_string(batch_size_));
  }
  if (spec_.obs.size() > EpisodeRules::kMaxFields || spec_.info.size() > EpisodeRules::kMaxFields ||
      spec_.action.size() > EpisodeRules::kMaxFields) {
    throw std::invalid_argument("too many arrays in the env spec");
  }
  layout_ = BatchLayout::For(spec_, options.autoreset == AutoresetMode::kSameStep);
  rules_ = std::make_unique<EpisodeRules>(layout_, num_envs_, options.max_episode_steps, options.autoreset);
  orders_ = std::make_unique<OrderBook>(spec_, num_envs_);
  // Unreturned results (complete or in flight) never exceed num_envs rows, so they span at
  // most ceil(num_envs / batch_size) batches: one more position lets the next batch start
  // while the user still holds nothing from the ring.
  batches_ = std::make_unique<BatchAssembler>(layout_, batch_size_, (num_envs_ + batch_size_ - 1) / batch_size_ + 1);
  executor_ =
      make_executor(ExecutorContext{spec_, layout_, num_envs_, batch_size_, *batches_, *rules_, *orders_, errors_});
}

EnvPool::~EnvPool() { Close(); }

void EnvPool::Close() {
  if (executor_) executor_->Stop();
  closed_ = true;
}

void EnvPool::CheckUsable() const {
  if (closed_) throw ProtocolError("the pool is closed");
}

void EnvPool::SendReset(const int* env_ids, int n, const uint64_t* seeds, const uint8_t* keep, bool wait_follows,
                        const uint8_t* reseed) {
  CheckUsable();
  if (keep && autoreset() != AutoresetMode::kDisabled) {
    throw std::invalid_argument("resetting a subset of a full batch needs autoreset_mode DISABLED");
  }
  protocol_.CheckSendable(env_ids, n, /*for_step=*/false);
  orders_->range_op = Op::kPerEnv;
  for (int i = 0; i < n; ++i) {
    Order& order = (*orders_)[env_ids ? env_ids[i] : i];
    order.op = keep && keep[i] ? Op::kRepeat : Op::kReset;
    order.reseed = seeds != nullptr && (reseed == nullptr || reseed[i] != 0);
    if (seeds) order.seed = seeds[i];
  }
  Dispatch(env_ids, n, wait_follows);
}

void EnvPool::SendStep(const int* env_ids, int n, const std::vector<const void*>& actions, bool wait_follows) {
  CheckUsable();
  if (actions.size() != spec_.action.size()) throw std::invalid_argument("wrong number of action arrays");
  protocol_.CheckSendable(env_ids, n, /*for_step=*/true);
  // Validate every value before changing anything. Only a failing check asks which rows autoreset.
  // (Two pointers captured by value: std::function stores them inline, no allocation per step.)
  const Protocol::RowFilter autoresets = [this, env_ids](int row) {
    const int id = env_ids ? env_ids[row] : row;
    return rules_->Effective(executor_->Episode(id), Op::kStep) == Op::kReset;
  };
  for (std::size_t f = 0; f < spec_.action.size(); ++f) {
    Protocol::ValidateActions(spec_.action[f], actions[f], env_ids, n, autoresets);
  }
  orders_->StoreActions(env_ids, n, actions, /*borrow=*/full_batch() && env_ids == nullptr && wait_follows);
  if (env_ids == nullptr) {
    orders_->range_op = Op::kStep;
  } else {
    for (int i = 0; i < n; ++i) (*orders_)[env_ids[i]].op = Op::kStep;
  }
  Dispatch(env_ids, n, wait_follows);
}

void EnvPool::Dispatch(const int* env_ids, int n, bool wait_follows) {
  if (full_batch() && !executor_->PartialBatches()) {
    // A full batch returns every env in flight: all of them in env-id order (one range), or
    // those sent by id - a subset too, as the reference EnvPool's sync mode - in send order.
    const bool by_id = env_ids != nullptr;
    // Changes only with nothing in flight (a range send needs every env idle), so no
    // executor reads it meanwhile.
    if (orders_->rows_by_send_order != by_id) orders_->rows_by_send_order = by_id;
    if (by_id) {
      const int first = protocol_.in_flight();
      for (int i = 0; i < n; ++i) (*orders_)[env_ids[i]].row = first + i;
      batches_->ExpectRows(first + n);
    }
  }
  protocol_.MarkInFlight(env_ids, n);
  executor_->Dispatch(env_ids, n, wait_follows);
}

EnvPool::WaitResult EnvPool::WaitBatch(double timeout_s, const std::function<bool()>& interrupted) {
  CheckUsable();
  using Clock = std::chrono::steady_clock;
  // in_flight counts every unreturned env, finished or not: if they cannot fill a batch,
  // waiting would never end. A full batch holds whatever is in flight (see Dispatch).
  const int needed = executor_->PartialBatches() || full_batch() ? 1 : batch_size_;
  if (protocol_.in_flight() < needed) {
    const int not_reset = protocol_.CountStatus(EnvStatus::kNotReset);
    std::string hint = "; send() more envs first";
    if (not_reset == num_envs_) {
      hint = "; no env has been reset yet: call async_reset() (or reset()) first";
    } else if (not_reset > 0) {
      hint += " (" + std::to_string(not_reset) + " envs have not been reset: async_reset(env_id) starts them)";
    }
    throw ProtocolError("recv() would wait forever: " + std::to_string(protocol_.in_flight()) +
                        " envs are in flight but a batch needs " + std::to_string(needed) + hint);
  }
  const auto start = Clock::now();
  const bool has_deadline = timeout_s >= 0;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(has_deadline ? timeout_s : 0.0));
  auto check = [&](Clock::time_point now) -> std::optional<WaitResult> {
    if (has_deadline && now >= deadline) return WaitResult::kTimeout;
    if (interrupted && interrupted()) return WaitResult::kInterrupted;
    return std::nullopt;
  };
  auto next_wake = [&](Clock::time_point now) {
    auto until = now + kCheckInterval;
    return has_deadline && deadline < until ? deadline : until;
  };
  // Help while the executor lets this thread, checking the deadline and Ctrl-C between
  // pieces of work; then spin briefly; then wait in short slices, checking them after each.
  bool helped = false;
  {
    auto next_check = start + kCheckInterval;
    while (executor_->Help()) {
      helped = true;
      const auto now = Clock::now();
      if (now >= next_check) {
        if (auto r = check(now)) return *r;
        next_check = now + kCheckInterval;
      }
    }
  }
  if (executor_->CallerCompletesRows()) {
    for (;;) {
      if (batches_->Ready()) return WaitResult::kReady;
      if (executor_->WaitUntil(next_wake(Clock::now()))) return WaitResult::kReady;
      if (auto r = check(Clock::now())) return *r;
    }
  }
  // Asynchronous loops (another batch's worth of envs in flight behind this one): when the
  // batch is far from complete, sleep at once rather than spin, leaving the cores to the
  // workers; the envs still stepping hide the wake-up latency.
  const int64_t remaining = batch_size_ - batches_->Written(batches_->TakePos());
  const bool sleep_at_once =
      !helped && protocol_.in_flight() >= 2 * batch_size_ &&
      executor_->NsPerEnv() * remaining / std::max(1, executor_->parallelism()) > kSpinMax.count();
  for (unsigned i = 1;; ++i) {
    if (batches_->Ready()) return WaitResult::kReady;
    if (!sleep_at_once) {
      SpinWait(i);
      if ((i & 255) != 0 && i < 2048) continue;
    }
    const auto now = Clock::now();
    if (has_deadline && now >= deadline) return WaitResult::kTimeout;
    if (!sleep_at_once && now - start < std::chrono::microseconds(200)) continue;
    if (executor_->WaitUntil(next_wake(now))) return WaitResult::kReady;
    if (auto r = check(Clock::now())) return *r;
  }
}

int EnvPool::TakeBatch(BatchBuffers fresh) {
  const std::size_t pos = batches_->TakePos();
  if (!batches_->Ready()) throw ProtocolError("TakeBatch: the batch is not complete");
  const BatchBuffers& buf = batches_->Buffers(pos);
  const int32_t* ids = buf.Row<int32_t>(layout_, layout_.env_id, 0);
  const int rows = batches_->Rows();  // batch_size unless the executor cut the batch short
  if (autoreset() == AutoresetMode::kDisabled) {
    // A finished episode must be reset explicitly before the env can step again.
    const bool* term = buf.Row<bool>(layout_, layout_.terminated, 0);
    const bool* trunc = buf.Row<bool>(layout_, layout_.truncated, 0);
    protocol_.MarkReturned(
        ids, rows, [&](int row) { return term[row] || trunc[row] || executor_->Episode(ids[row]).episode_over; });
  } else if (full_batch() && rows == batch_size_) {
    protocol_.MarkAllReturned();
  } else {
    protocol_.MarkReturned(ids, rows, [](int) { return false; });
  }
  taken_rows_ = rows;
  return batches_->Take(std::move(fresh));
}

void EnvPool::Render(const int* env_ids, int n, uint8_t* frames) {
  CheckUsable();
  if (spec_.render_height <= 0 || spec_.render_width <= 0) throw std::invalid_argument(name_ + " does not render");
  const std::size_t frame_bytes =
      static_cast<std::size_t>(spec_.render_height) * static_cast<std::size_t>(spec_.render_width) * 3;
  for (int i = 0; i < n; ++i) {
    const int id = env_ids ? env_ids[i] : i;
    if (id < 0 || id >= num_envs_) {
      throw std::invalid_argument("env_id[" + std::to_string(i) + "] = " + std::to_string(id) +
                                  " is out of range [0, " + std::to_string(num_envs_) + ")");
    }
    protocol_.CheckIdle(id, "rendering it");
    if (protocol_.status(id) == EnvStatus::kNotReset) {
      throw ProtocolError("env " + std::to_string(id) + " has not been reset; call reset() before render()");
    }
  }
  for (int i = 0; i < n; ++i)
    executor_->Render(env_ids ? env_ids[i] : i, frames + static_cast<std::size_t>(i) * frame_bytes);
}

std::vector<double> EnvPool::GetState(int env_id) const {
  CheckUsable();
  protocol_.CheckIdle(env_id, "reading its state");
  return executor_->GetState(env_id);
}

void EnvPool::SetState(int env_id, const std::vector<double>& state) {
  CheckUsable();
  protocol_.CheckIdle(env_id, "setting its state");
  executor_->SetState(env_id, state);
  protocol_.SetIdle(env_id);
}

}  // namespace envpool
