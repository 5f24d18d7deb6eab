#include "core/pool.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/agents.h"

namespace envpool {

EnvPool::EnvPool(std::string name, EnvSpec spec, const ResolvedPoolOptions& options,
                 const ExecutorFactory& make_executor)
    : name_(std::move(name)),
      spec_(std::move(spec)),
      num_envs_(options.num_envs),
      batch_size_(options.batch_size),
      protocol_(num_envs_),
      options_(options) {
  if (spec_.obs.size() > kMaxArraysPerKind || spec_.info.size() > kMaxArraysPerKind ||
      spec_.action.size() > kMaxArraysPerKind) {
    throw std::invalid_argument("too many arrays in the env spec: at most " + std::to_string(kMaxArraysPerKind) +
                                " obs, action and info arrays each");
  }
  CheckAgentSpec(spec_);
  layout_ = BatchLayout::For(spec_, options_.autoreset == AutoresetMode::kSameStep);
  rules_ = std::make_unique<EpisodeRules>(layout_, num_envs_, options_.max_episode_steps, options_.autoreset);
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
  CheckSendable(env_ids, n, /*for_step=*/false);
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
  // Envs sent by id (the async loop) are checked and marked in flight in one pass, undone if
  // a check below fails; a failing id is named by CheckSendable, which throws.
  const bool marked = env_ids != nullptr && protocol_.TryMarkStepInFlight(env_ids, n);
  if (!marked) CheckSendable(env_ids, n, /*for_step=*/true);
  // Validate every value before changing anything else. Only a failing check asks which rows
  // autoreset. (Two pointers captured by value: std::function stores them inline, no
  // allocation per step.)
  const Protocol::RowFilter autoresets = [this, env_ids](int row) {
    const int id = env_ids ? env_ids[row] : row;
    return rules_->Effective(executor_->Episode(id), Op::kStep) == Op::kReset;
  };
  try {
    for (std::size_t f = 0; f < spec_.action.size(); ++f) {
      Protocol::ValidateActions(spec_.action[f], actions[f], env_ids, n, autoresets);
    }
  } catch (...) {
    if (marked) protocol_.UnmarkStepInFlight(env_ids, n);
    throw;
  }
  orders_->StoreActions(env_ids, n, actions, /*borrow=*/full_batch() && env_ids == nullptr && wait_follows,
                        /*step=*/true);
  if (env_ids == nullptr) orders_->range_op = Op::kStep;
  Dispatch(env_ids, n, wait_follows, marked);
}

void EnvPool::RethrowWithAsyncHint(const ProtocolError& e, const int* env_ids) const {
  if (env_ids != nullptr || full_batch()) throw e;
  // A call on every env of an asynchronous pool (gymnasium's step() or reset()): say which loop
  // such a pool runs, the usual cause.
  throw ProtocolError(std::string(e.what()) + ". This pool is asynchronous (batch_size=" + std::to_string(batch_size_) +
                      " < num_envs=" + std::to_string(num_envs_) +
                      "): reset() returns the first batch_size envs to finish and leaves the others in flight, so "
                      "step() and reset() of every env fail after it. Use the async loop, async_reset() once, then "
                      "recv() and send(actions, info['env_id']) (docs/api.md), or make the pool without batch_size "
                      "for full-batch step()");
}

void EnvPool::Dispatch(const int* env_ids, int n, bool wait_follows, bool marked) {
  if (full_batch() && !executor_->PartialBatches()) {
    // A full batch returns every env in flight: all of them in env-id order (one range), or
    // those sent by id - a subset too, as the reference EnvPool's sync mode - in send order.
    const bool by_id = env_ids != nullptr;
    // Changes only with nothing in flight (a range send needs every env idle), so no
    // executor reads it meanwhile.
    if (orders_->rows_by_send_order != by_id) orders_->rows_by_send_order = by_id;
    if (by_id) {
      const int first = protocol_.in_flight() - (marked ? n : 0);
      for (int i = 0; i < n; ++i) (*orders_)[env_ids[i]].row = first + i;
      batches_->ExpectRows(first + n);
    }
  }
  if (!marked) protocol_.MarkInFlight(env_ids, n);
  executor_->Dispatch(env_ids, n, wait_follows);
}

WaitResult EnvPool::WaitBatch(double timeout_s, const std::function<bool()>& interrupted) {
  CheckUsable();
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
  const WaitBudget budget(timeout_s, interrupted);
  return executor_->Wait(budget, protocol_.in_flight());
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
    protocol_.MarkReturnedIdle(ids, rows);
  }
  taken_rows_ = rows;
  taken_ids_ = ids;
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
  executor_->RenderMany(env_ids, n, frames, frame_bytes);
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
