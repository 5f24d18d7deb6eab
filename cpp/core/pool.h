// EnvPool: many copies of one task behind the send/recv protocol, results written in batches.
//
// Protocol (all calls from one user thread at a time; only WaitBatch blocks):
//   SendReset / SendStep  hand a set of envs to the executor (each env at most once in flight);
//   WaitBatch             waits until the next batch of `batch_size` results is complete;
//   TakeBatch             returns that batch's ring position (re-armed with fresh memory) and
//                         marks its envs idle again.
//
// The pool is glue between four parts, each in its own file:
//   protocol.h        which envs may be sent now, and action validation;
//   orders.h          what each sent env is asked to do, and its action row;
//   executor.h        who runs the orders (one implementation per executor kind, attached by
//                     the factories of pool_factories.h);
//   episode_rules.h   time limits and autoreset, applied as each row is written;
//   batch_assembler.h the ring of result batches the rows are written into.
//
// Batches: the k-th batch holds the k-th group of `batch_size` results to be completed. When
// batch_size == num_envs ("full batch") a batch holds every env in flight once: all envs in
// env-id order after a send of all envs, or the envs sent by id in the order sent (a subset
// gives a short batch, as the reference EnvPool's sync mode). Result memory is lent by the caller per ring position
// (ArmBuffers): a batch's memory is handed to the user as is and the position re-armed with fresh memory.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_assembler.h"
#include "core/buffers.h"
#include "core/episode_rules.h"
#include "core/executor.h"
#include "core/orders.h"
#include "core/pool_options.h"
#include "core/protocol.h"
#include "core/spec.h"

namespace envpool {

// Makes the executor of a pool once the pool's parts exist (see the EnvPool constructors).
using ExecutorFactory = std::function<std::unique_ptr<Executor>(ExecutorContext)>;

class EnvPool {
 public:
  using WaitResult = envpool::WaitResult;  // executor.h

  // Envs of `spec` run by the executor `make_executor` builds, which gets `options` whole (seed,
  // num_threads and spin are its business). Made by the factories of core/pool_factories.h,
  // one per executor kind, which resolve the options (core/pool_options.h).
  EnvPool(std::string name, EnvSpec spec, const ResolvedPoolOptions& options, const ExecutorFactory& make_executor);
  ~EnvPool();
  EnvPool(const EnvPool&) = delete;
  EnvPool& operator=(const EnvPool&) = delete;

  const std::string& name() const { return name_; }
  const EnvSpec& spec() const { return spec_; }
  const BatchLayout& layout() const { return layout_; }
  const ResolvedPoolOptions& options() const { return options_; }
  int num_envs() const { return num_envs_; }
  int batch_size() const { return batch_size_; }
  int max_episode_steps() const { return rules_->max_episode_steps(); }
  AutoresetMode autoreset() const { return rules_->mode(); }
  bool full_batch() const { return batch_size_ == num_envs_; }
  // Number of ring positions: batches that can be complete or filling at once.
  int ring_size() const { return batches_->ring_size(); }
  // Envs sent and not yet returned by TakeBatch.
  int in_flight() const { return protocol_.in_flight(); }
  bool closed() const { return closed_; }
  Executor& executor() { return *executor_; }

  // Lends memory for ring position `pos` (one pointer per layout field, batch_size rows each).
  // Every position must be armed before the first send; later, TakeBatch re-arms them.
  void ArmBuffers(int pos, BatchBuffers buffers) { batches_->Arm(pos, std::move(buffers)); }

  // Starts new episodes for `env_ids` (nullptr: all envs, n == num_envs). With `seeds`, env
  // env_ids[i]'s RNG is reseeded with seeds[i] first (only where `reseed[i]` is set, if
  // `reseed` is given). Where `keep[i]` is set, env env_ids[i] is not reset but returns its
  // last observation again (reward 0, flags false): this lets a full batch reset a subset of
  // envs (kDisabled only, where last observations are kept).
  void SendReset(const int* env_ids, int n, const uint64_t* seeds, const uint8_t* keep = nullptr,
                 bool wait_follows = false, const uint8_t* reseed = nullptr);

  // Steps `env_ids` (nullptr: all envs) with actions: for each action field f, `actions[f]`
  // points at n contiguous rows in that field's dtype. All arguments are validated before
  // anything changes: on error the pool is untouched. The actions of envs whose step starts
  // a new episode (next-step autoreset) are not used and not validated, as in gymnasium.
  // `wait_follows`: the caller waits for the results right away (step()), so in full-batch
  // mode it may take a share of the work, and workers may read `actions` in place: they must
  // stay valid until TakeBatch.
  void SendStep(const int* env_ids, int n, const std::vector<const void*>& actions, bool wait_follows = false);

  // Blocks until the next batch is complete, helping the executor meanwhile. `timeout_s` < 0
  // waits forever. `interrupted` is polled every few milliseconds while waiting (the Python
  // module checks for Ctrl-C there). Throws ProtocolError when nothing could complete it.
  WaitResult WaitBatch(double timeout_s, const std::function<bool()>& interrupted);

  // After WaitBatch returned kReady: the batch's ring position; its envs become idle. The
  // caller now owns the batch's memory, and the position is re-armed with `fresh`.
  int TakeBatch(BatchBuffers fresh);
  // Rows of the batch the last TakeBatch returned: batch_size, or fewer when the executor
  // ends batches early (Executor::PartialBatches) or a full batch was sent a subset of envs.
  int taken_rows() const { return taken_rows_; }

  // Errors thrown by the envs whose rows are in the batch the last TakeBatch returned:
  // (env_id, message). Call it while that batch is held (it reads the batch's env ids).
  std::vector<std::pair<int, std::string>> TakeEnvErrors() { return errors_.TakeFor(taken_ids_, taken_rows_); }

  // Draws envs `env_ids` (nullptr: all) into `frames` (n frames of render_height x
  // render_width x 3 bytes). The envs must not be in flight.
  void Render(const int* env_ids, int n, uint8_t* frames);

  // Full internal state of an idle env (see Env::GetState / SetState).
  std::vector<double> GetState(int env_id) const;
  void SetState(int env_id, const std::vector<double>& state);

  // Stops the executor; later calls throw ProtocolError. Idempotent.
  void Close();

 private:
  void CheckUsable() const;
  // protocol_.CheckSendable; a refused call on every env of an asynchronous pool says so.
  void CheckSendable(const int* env_ids, int n, bool for_step) {
    try {
      protocol_.CheckSendable(env_ids, n, for_step);
    } catch (const ProtocolError& e) {
      RethrowWithAsyncHint(e, env_ids);
    }
  }
  [[noreturn]] void RethrowWithAsyncHint(const ProtocolError& e, const int* env_ids) const;
  // Hands the orders to the executor. `marked`: the protocol already counts envs `env_ids` in
  // flight (SendStep's one-pass check), otherwise they are marked here.
  void Dispatch(const int* env_ids, int n, bool wait_follows, bool marked = false);

  std::string name_;
  EnvSpec spec_;
  BatchLayout layout_;
  int num_envs_;
  int batch_size_;
  Protocol protocol_;
  std::unique_ptr<EpisodeRules> rules_;
  std::unique_ptr<OrderBook> orders_;
  std::unique_ptr<BatchAssembler> batches_;
  EnvErrors errors_;
  bool closed_ = false;
  int taken_rows_ = 0;
  const int32_t* taken_ids_ = nullptr;  // env_id column of the batch the last TakeBatch returned
  ResolvedPoolOptions options_;         // after the members every call reads (their offsets as before)

  std::unique_ptr<Executor> executor_;  // last: it stops before the rest is destroyed
};

}  // namespace envpool
