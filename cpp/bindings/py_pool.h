// The pools as Python sees them (envpool._core.Pool, ProcessPool, ExternalPool): the core's
// EnvPool behind a guard against overlapping calls, with its results in NumPy arrays
// (array_ring.h), actions converted from Python (actions.h) and batches shaped as the front
// ends want them (results.h). One subclass per executor kind adds that executor's own calls.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings/array_ring.h"
#include "bindings/xla_bridge.h"
#include "core/external_executor.h"
#include "core/goals.h"
#include "core/pool.h"
#include "core/pool_factories.h"
#include "core/process_executor.h"

namespace envpool::bindings {

namespace py = pybind11;

class PyPool : public xla::Port {
 public:
  // A pool of a registered native task (envpool.make): `kwargs` the env kwargs ({key: [value]}),
  // `options` the pool's (resolved by MakeNativePool).
  PyPool(const std::string& task_id, const py::dict& kwargs, const PoolOptions& options);
  ~PyPool() override;

  void SendReset(const py::object& env_id, const py::object& seeds, const py::object& keep, bool wait_follows);
  void Send(const py::object& actions, const py::object& env_id);
  py::tuple Recv(double timeout, bool with_ids);
  // send + recv in one call: the full-batch hot path.
  py::tuple Step(const py::object& actions, const py::object& env_id, double timeout, bool with_ids);
  py::array_t<uint8_t> Render(const py::object& env_id);
  py::array_t<double> GetState(int env_id);
  void SetState(int env_id, const std::vector<double>& state);
  void Close();
  bool closed() const { return !pool_ || pool_->closed(); }
  int in_flight() const { return pool_ ? pool_->in_flight() : 0; }
  const EnvPool& core() const { return *pool_; }
  // The batch's fields in the layout's order: what recv fills, [{name, dtype, shape}].
  py::list BatchFields() const;
  // A goal-conditioned task's compute_reward / compute_terminated / compute_truncated (`which`:
  // "reward", "terminated", "truncated"; core/goals.h) over goal rows: `achieved` and `desired`
  // float64 (..., goal_size) of one shape; the result has their leading shape (float64 rewards,
  // bool flags), computed with the kwargs of env `env_id` (None: those every env shares).
  py::array GoalCompute(const std::string& which, const py::array& achieved, const py::array& desired,
                        const py::object& env_id) const;

  // envs.xla(): the id the handlers name this pool by (registered at the first call).
  int64_t XlaId();
  // xla::Port: the pool as the XLA handlers reach it (bindings/xla_bridge.h).
  EnvPool& pool() override;
  bool TryEnter() override;
  void Leave() override;
  const BatchBuffers& TakeBatch() override;
  char* ActionScratch(std::size_t field, std::size_t bytes) override;

 protected:
  explicit PyPool(std::unique_ptr<EnvPool> pool, const char* no_xla_reason);

  // Rejects a second Python thread entering while the first waits without the GIL, and a
  // Python call while a jitted function's call (envs.xla()) is inside.
  struct Guard {
    explicit Guard(PyPool* p);
    ~Guard();
    PyPool* pool;
  };

 private:
  void SendImpl(const py::object& actions, const py::object& env_id, bool wait_follows);
  py::tuple RecvImpl(double timeout, bool with_ids);

  std::vector<ArraySpec> action_specs_;
  // Native pools of a goal-conditioned task: its goal functions and each env's kwargs.
  std::string task_id_;
  const GoalFunctions* goals_ = nullptr;
  std::vector<Config> env_configs_;
  std::vector<py::array> sent_actions_;  // actions a full-batch step() lends the workers
  // A send's action arrays and their data pointers: reused, so that a send allocates no vector.
  std::vector<py::array> action_arrays_;
  std::vector<const void*> action_ptrs_;
  // Who is inside the pool: nobody, a Python call (Guard) or an XLA handler (TryEnter).
  static constexpr int kFree = 0, kPython = 1, kXla = 2;
  std::atomic<int> owner_{kFree};
  bool final_obs_objects_ = false;       // final_obs as gymnasium's object array (native pools)
  const char* no_xla_reason_ = nullptr;  // why xla() refuses this pool (nullptr: it does not)
  // envs.xla(): the registry id (0: none yet), the set a taken batch lands in and the staged
  // actions (all kept past pool_, which reads them until it stops).
  int64_t xla_id_ = 0;
  ArraySet xla_spare_;
  std::vector<std::vector<char>> xla_actions_;
  std::unique_ptr<ArrayRing> ring_;
  std::unique_ptr<EnvPool> pool_;  // last: destroyed (workers joined) before the arrays
};

// A pool whose envs live in worker processes (envpool.make_python): the workers attach to the
// shared memory given by shm_fd and process_layout; the Python side supervises them.
class PyProcessPool : public PyPool {
 public:
  PyProcessPool(const std::string& name, const py::dict& spec, const PoolOptions& options,
                const std::vector<int>& worker_start, std::size_t info_capacity, std::size_t error_capacity);
  ProcessExecutor& processes();

 private:
  explicit PyProcessPool(MadePool<ProcessExecutor> made);
  ProcessExecutor* executor_;
};

// A pool of external episodes (envpool.serve, envpool.ExternalEnv): options.num_envs slots whose
// rows the serving thread completes (Complete); recv() cuts a batch `wait_ms` after its first
// row arrived.
class PyExternalPool : public PyPool {
 public:
  PyExternalPool(const std::string& name, const py::dict& spec, const PoolOptions& options, double wait_ms);
  ExternalExecutor& external();
  // Completes slot `slot`'s row: one buffer per obs field and per info field, each one row.
  void Complete(int slot, const py::list& obs, const py::list& info, double reward, bool terminated, bool truncated);
  // (slots int32, stepped bool, [actions of each field, one row per slot]) dispatched since
  // the last call; freed slots have zero action rows.
  py::tuple TakeAnswers();

 private:
  explicit PyExternalPool(MadePool<ExternalExecutor> made);
  ExternalExecutor* executor_;
  std::vector<int32_t> answer_slots_;  // TakeAnswers' buffers, reused
  std::vector<uint8_t> answer_stepped_;
  std::vector<std::vector<char>> answer_actions_;
};

}  // namespace envpool::bindings
