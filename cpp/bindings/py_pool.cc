// The pools as Python sees them (see py_pool.h).
#include "bindings/py_pool.h"

#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>

#include "bindings/actions.h"
#include "bindings/convert.h"
#include "bindings/results.h"
#include "core/pool_factories.h"
#include "core/registry.h"

namespace envpool::bindings {

namespace {

// The native pool of `task` with one config per env from `kwargs`.
std::unique_ptr<EnvPool> NativePool(const TaskSpec& task, const py::dict& kwargs, const PoolOptions& options) {
  return MakeNativePool(task, options, MakeConfigs(task, options.num_envs, ToKwargs(kwargs))).pool;
}

std::chrono::nanoseconds WaitOf(double wait_ms) {
  if (!(wait_ms >= 0)) throw std::invalid_argument("wait_ms must be >= 0");
  return std::chrono::nanoseconds(static_cast<int64_t>(wait_ms * 1e6));
}

}  // namespace

// -- PyPool ------------------------------------------------------------------------------------

PyPool::PyPool(const std::string& task_id, const py::dict& kwargs, const PoolOptions& options)
    : PyPool(NativePool(FindTask(task_id), kwargs, options), nullptr) {
  final_obs_objects_ = true;
  task_id_ = task_id;
  goals_ = FindGoalFunctions(task_id);
  if (goals_) env_configs_ = MakeConfigs(FindTask(task_id), pool_->num_envs(), ToKwargs(kwargs));
}

PyPool::PyPool(std::unique_ptr<EnvPool> pool, const char* no_xla_reason)
    : no_xla_reason_(no_xla_reason), pool_(std::move(pool)) {
  ring_ = std::make_unique<ArrayRing>(*pool_);
  for (const auto& a : pool_->spec().action) action_specs_.push_back(a);
}

PyPool::~PyPool() {
  if (xla_id_ != 0) xla::Unregister(xla_id_);  // waits for a jitted call inside to leave
  // Join the workers before the arrays they write into are released.
  if (pool_) pool_->Close();
}

PyPool::Guard::Guard(PyPool* p) : pool(p) {
  int owner = kFree;
  if (!pool->owner_.compare_exchange_strong(owner, kPython)) {
    throw ProtocolError(owner == kXla ? "the pool is being used by a jitted function (envs.xla()); jax dispatches "
                                        "asynchronously: jax.block_until_ready its results before calling the pool "
                                        "from Python"
                                      : "the pool is being used by another thread; calls on one pool must not overlap");
  }
}

PyPool::Guard::~Guard() { pool->owner_.store(kFree); }

EnvPool& PyPool::pool() {
  if (!pool_ || pool_->closed()) throw PoolClosedError("the pool is closed");
  return *pool_;
}

void PyPool::SendReset(const py::object& env_id, const py::object& seeds, const py::object& keep, bool wait_follows) {
  Guard guard(this);
  EnvPool& p = pool();
  py::array_t<int, py::array::c_style> ids = EnvIds(env_id);
  const int n = env_id.is_none() ? p.num_envs() : static_cast<int>(ids.size());
  std::vector<uint8_t> keep_values;
  if (!keep.is_none()) {
    for (auto k : keep) keep_values.push_back(k.cast<bool>() ? 1 : 0);
    if (static_cast<int>(keep_values.size()) != n) throw std::invalid_argument("keep mask has the wrong length");
  }
  // A None seed leaves that env's RNG as it is (gymnasium's reset(seed=[s, None, ...])).
  std::vector<uint64_t> seed_values;
  std::vector<uint8_t> reseed;
  if (!seeds.is_none()) {
    for (auto s : seeds) {
      seed_values.push_back(s.is_none() ? 0 : s.cast<uint64_t>());
      reseed.push_back(s.is_none() ? 0 : 1);
    }
    if (static_cast<int>(seed_values.size()) != n) {
      throw std::invalid_argument("got " + std::to_string(seed_values.size()) + " seeds for " + std::to_string(n) +
                                  " envs");
    }
  }
  p.SendReset(env_id.is_none() ? nullptr : ids.data(), n, seeds.is_none() ? nullptr : seed_values.data(),
              keep.is_none() ? nullptr : keep_values.data(), wait_follows, seeds.is_none() ? nullptr : reseed.data());
}

void PyPool::Send(const py::object& actions, const py::object& env_id) {
  Guard guard(this);
  SendImpl(actions, env_id, /*wait_follows=*/false);
}

py::tuple PyPool::Recv(double timeout, bool with_ids) {
  Guard guard(this);
  return RecvImpl(timeout, with_ids);
}

py::tuple PyPool::Step(const py::object& actions, const py::object& env_id, double timeout, bool with_ids) {
  Guard guard(this);
  SendImpl(actions, env_id, /*wait_follows=*/true);
  return RecvImpl(timeout, with_ids);
}

void PyPool::SendImpl(const py::object& actions, const py::object& env_id, bool wait_follows) {
  EnvPool& p = pool();
  // Only when given: an empty array_t for None is a NumPy array made per call (~1k instructions).
  std::optional<py::array_t<int, py::array::c_style>> ids;
  if (!env_id.is_none()) ids = EnvIds(env_id);
  const int n = ids ? static_cast<int>(ids->size()) : p.num_envs();
  ActionArrays(actions, action_specs_, n, action_arrays_);
  action_ptrs_.clear();
  for (const auto& a : action_arrays_) action_ptrs_.push_back(a.data());
  p.SendStep(ids ? ids->data() : nullptr, n, action_ptrs_, wait_follows);
  // A full-batch step's envs may read the actions in place until its results are taken.
  if (wait_follows) sent_actions_.swap(action_arrays_);
  action_arrays_.clear();
}

py::tuple PyPool::RecvImpl(double timeout, bool with_ids) {
  EnvPool& p = pool();
  EnvPool::WaitResult result;
  {
    py::gil_scoped_release release;
    result = p.WaitBatch(timeout, [] {
      py::gil_scoped_acquire acquire;
      return PyErr_CheckSignals() != 0;
    });
  }
  if (result == EnvPool::WaitResult::kInterrupted) throw py::error_already_set();
  if (result == EnvPool::WaitResult::kTimeout) {
    ThrowPython("PoolTimeoutError", "no batch was complete within " + py::str(py::float_(timeout)).cast<std::string>() +
                                        " s; nothing is lost: the next recv() returns it");
  }
  ArraySet out = ring_->Take(p);
  sent_actions_.clear();
  // Taken before the final_* entries: an env that failed has no last observation.
  const EnvErrors errors = p.TakeEnvErrors();
  py::tuple batch = BatchResult(p, out, with_ids, final_obs_objects_, errors);
  if (!errors.empty()) RaiseEnvError(errors, batch);
  return batch;
}

py::array_t<uint8_t> PyPool::Render(const py::object& env_id) {
  Guard guard(this);
  EnvPool& p = pool();
  py::array_t<int, py::array::c_style> ids = EnvIds(env_id);
  const int n = env_id.is_none() ? p.num_envs() : static_cast<int>(ids.size());
  const EnvSpec& spec = p.spec();
  py::array_t<uint8_t> frames({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(spec.render_height),
                               static_cast<py::ssize_t>(spec.render_width), py::ssize_t{3}});
  uint8_t* rgb = frames.mutable_data();
  {
    // Every call that can wait (for an env's own code, a worker, a step in flight) lets other
    // Python threads and signal handlers run meanwhile; the guard keeps them out of the pool.
    py::gil_scoped_release release;
    p.Render(env_id.is_none() ? nullptr : ids.data(), n, rgb);
  }
  return frames;
}

py::array_t<double> PyPool::GetState(int env_id) {
  Guard guard(this);
  EnvPool& p = pool();
  std::vector<double> state;
  {
    py::gil_scoped_release release;
    state = p.GetState(env_id);
  }
  return py::array_t<double>(py::cast(state));
}

void PyPool::SetState(int env_id, const std::vector<double>& state) {
  Guard guard(this);
  EnvPool& p = pool();
  py::gil_scoped_release release;
  p.SetState(env_id, state);
}

void PyPool::Close() {
  // A jitted call inside (envs.xla()) is waited for; a Python call in another thread is refused.
  if (owner_.load() == kPython) throw ProtocolError("close() called while another thread is using the pool");
  py::gil_scoped_release release;              // joining the workers waits for any step in flight
  if (xla_id_ != 0) xla::Unregister(xla_id_);  // waits for a jitted call inside to leave
  // Held while the workers stop, so that no other thread's call starts on a half-closed pool.
  int owner = kFree;
  if (!owner_.compare_exchange_strong(owner, kPython)) {
    throw ProtocolError("close() called while another thread is using the pool");
  }
  if (pool_) pool_->Close();
  owner_.store(kFree);
}

py::list PyPool::BatchFields() const {
  py::list out;
  for (const auto& f : pool_->layout().fields) {
    py::dict d;
    d["name"] = f.name;
    d["dtype"] = DTypeName(f.dtype);
    d["shape"] = py::tuple(py::cast(f.shape));
    out.append(d);
  }
  return out;
}

py::array PyPool::GoalCompute(const std::string& which, const py::array& achieved, const py::array& desired,
                              const py::object& env_id) const {
  if (!goals_) {
    throw std::invalid_argument(
        (task_id_.empty() ? std::string("this pool's envs are not a native task") : task_id_ + " is not") +
        " a goal-conditioned task: compute_" + which +
        " belongs to the tasks with Dict(observation, achieved_goal, desired_goal) observations (gymnasium-robotics')");
  }
  const GoalFunctions::Batch* fn = which == "reward"       ? &goals_->reward
                                   : which == "terminated" ? &goals_->terminated
                                   : which == "truncated"  ? &goals_->truncated
                                                           : nullptr;
  if (!fn) throw std::invalid_argument("goal function '" + which + "' is none of reward, terminated, truncated");
  const int num_envs = static_cast<int>(env_configs_.size());
  std::size_t env = 0;
  // Whether envs i and 0 compute alike: the kwargs the functions read are equal.
  auto same_goal_kwargs = [&](int i) {
    if (goals_->config_keys.empty()) return env_configs_[i].values() == env_configs_[0].values();
    for (const auto& key : goals_->config_keys) {
      if (env_configs_[i].values().at(key) != env_configs_[0].values().at(key)) return false;
    }
    return true;
  };
  if (env_id.is_none()) {
    for (int i = 1; i < num_envs; ++i) {
      if (!same_goal_kwargs(i)) {
        throw std::invalid_argument("compute_" + which + ": the envs of this pool have different kwargs (env 0 and " +
                                    std::to_string(i) + "); name the env whose kwargs apply with env_id=");
      }
    }
  } else {
    const int64_t i = env_id.cast<int64_t>();
    if (i < 0 || i >= num_envs) {
      throw py::index_error("compute_" + which + ": env_id " + std::to_string(i) + " is out of range for " +
                            std::to_string(num_envs) + " envs");
    }
    env = static_cast<std::size_t>(i);
  }
  using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
  const Doubles a = Doubles::ensure(achieved), d = Doubles::ensure(desired);
  if (!a || !d) throw std::invalid_argument("compute_" + which + ": achieved_goal and desired_goal must be numeric");
  const py::ssize_t size = goals_->goal_size;
  auto shape_text = [](const Doubles& x) {
    std::string s = "(";
    for (py::ssize_t k = 0; k < x.ndim(); ++k) s += (k ? ", " : "") + std::to_string(x.shape(k));
    return s + (x.ndim() == 1 ? ",)" : ")");
  };
  bool same = a.ndim() == d.ndim();
  for (py::ssize_t k = 0; same && k < a.ndim(); ++k) same = a.shape(k) == d.shape(k);
  if (!same || a.ndim() < 1 || a.shape(a.ndim() - 1) != size) {
    throw std::invalid_argument("compute_" + which + " of " + task_id_ + " takes achieved_goal and desired_goal of " +
                                "one shape (..., " + std::to_string(size) + "), got " + shape_text(a) + " and " +
                                shape_text(d));
  }
  const std::vector<py::ssize_t> lead(a.shape(), a.shape() + a.ndim() - 1);
  const auto rows = static_cast<std::size_t>(a.size() / size);
  py::array_t<double> values(lead);
  {
    py::gil_scoped_release release;
    (*fn)(env_configs_[env], a.data(), d.data(), rows, values.mutable_data());
  }
  if (which == "reward") return values;
  return values.attr("astype")("bool");
}

int64_t PyPool::XlaId() {
  Guard guard(this);
  EnvPool& p = pool();
  if (no_xla_reason_ != nullptr) {
    throw std::invalid_argument(std::string("xla() steps native and plugin pools (envpool.make); this pool's batches "
                                            "come from ") +
                                no_xla_reason_);
  }
  if (xla_id_ == 0) {
    xla_spare_ = ring_->NewSet();
    for (const auto& a : action_specs_) {
      const std::size_t row = a.NumElements() * DTypeSize(a.discrete ? DType::kInt64 : a.dtype);
      xla_actions_.emplace_back(static_cast<std::size_t>(p.num_envs()) * row);
    }
    xla_id_ = xla::Register(this, p.name() + ", " + std::to_string(p.num_envs()) + " envs");
  }
  return xla_id_;
}

bool PyPool::TryEnter() {
  int owner = kFree;
  return owner_.compare_exchange_strong(owner, kXla);
}

void PyPool::Leave() { owner_.store(kFree); }

const BatchBuffers& PyPool::TakeBatch() { return ring_->TakeInto(*pool_, xla_spare_); }

char* PyPool::ActionScratch(std::size_t field, std::size_t bytes) {
  std::vector<char>& staged = xla_actions_.at(field);
  if (bytes > staged.size()) throw std::invalid_argument("more action rows than the pool has envs");
  return staged.data();
}

// -- PyProcessPool -----------------------------------------------------------------------------

PyProcessPool::PyProcessPool(const std::string& name, const py::dict& spec, const PoolOptions& options,
                             const std::vector<int>& worker_start, std::size_t info_capacity,
                             std::size_t error_capacity)
    : PyProcessPool(MakeProcessPool(
          name, DictToEnvSpec(spec), options,
          ProcessLayout::For(DictToEnvSpec(spec), options.num_envs, worker_start, info_capacity, error_capacity))) {}

PyProcessPool::PyProcessPool(MadePool<ProcessExecutor> made)
    : PyPool(std::move(made.pool), "Python envs with Python info dicts"), executor_(made.executor) {}

ProcessExecutor& PyProcessPool::processes() {
  pool();  // raises once closed
  return *executor_;
}

// -- PyExternalPool ----------------------------------------------------------------------------

PyExternalPool::PyExternalPool(const std::string& name, const py::dict& spec, const PoolOptions& options,
                               double wait_ms)
    : PyExternalPool(MakeExternalPool(name, DictToEnvSpec(spec), options, WaitOf(wait_ms))) {}

PyExternalPool::PyExternalPool(MadePool<ExternalExecutor> made)
    : PyPool(std::move(made.pool), "external episodes and may be partial"), executor_(made.executor) {}

ExternalExecutor& PyExternalPool::external() {
  pool();  // raises once closed
  return *executor_;
}

void PyExternalPool::Complete(int slot, const py::list& obs, const py::list& info, double reward, bool terminated,
                              bool truncated) {
  ExternalExecutor& ext = external();
  const EnvSpec& spec = core().spec();
  const void* obs_ptrs[kMaxArraysPerKind];
  const void* info_ptrs[kMaxArraysPerKind];
  // Plain Py_buffers on the stack: py::buffer::request() builds a buffer_info (shape and
  // strides vectors) per buffer, a heap allocation per array per row on the server's hot path.
  struct Views {
    Py_buffer view[2 * kMaxArraysPerKind];
    std::size_t n = 0;
    ~Views() {
      for (std::size_t i = 0; i < n; ++i) PyBuffer_Release(&view[i]);
    }
  } views;
  auto collect = [&](const py::list& bufs, const std::vector<ArraySpec>& specs, const void** ptrs, const char* what) {
    if (bufs.size() != specs.size()) {
      throw std::invalid_argument(std::string("expected ") + std::to_string(specs.size()) + " " + what +
                                  " buffers, got " + std::to_string(bufs.size()));
    }
    for (std::size_t f = 0; f < specs.size(); ++f) {
      Py_buffer& view = views.view[views.n];
      if (PyObject_GetBuffer(bufs[f].ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw py::error_already_set();
      ++views.n;
      const auto bytes = static_cast<std::size_t>(view.len);
      if (bytes != specs[f].RowBytes()) {
        throw std::invalid_argument(std::string(what) + " '" + specs[f].name + "' needs " +
                                    std::to_string(specs[f].RowBytes()) + " bytes, got " + std::to_string(bytes));
      }
      ptrs[f] = view.buf;
    }
  };
  collect(obs, spec.obs, obs_ptrs, "obs");
  collect(info, spec.info, info_ptrs, "info");
  ext.Complete(slot, obs_ptrs, info_ptrs, reward, terminated, truncated);
}

py::tuple PyExternalPool::TakeAnswers() {
  ExternalExecutor& ext = external();
  ext.TakeAnswers(answer_slots_, answer_stepped_, answer_actions_);
  const auto n = static_cast<py::ssize_t>(answer_slots_.size());
  py::array_t<int32_t> slots(n);
  py::array_t<bool> stepped(n);
  if (n > 0) {
    std::memcpy(slots.mutable_data(), answer_slots_.data(), answer_slots_.size() * sizeof(int32_t));
    std::memcpy(stepped.mutable_data(), answer_stepped_.data(), answer_stepped_.size());
  }
  py::list actions;
  const auto& specs = core().spec().action;
  for (std::size_t f = 0; f < specs.size(); ++f) {
    std::vector<py::ssize_t> shape{n};
    for (int d : specs[f].shape) shape.push_back(d);
    py::array a(ToNumpy(specs[f].dtype), shape);
    if (n > 0) std::memcpy(a.mutable_data(), answer_actions_[f].data(), answer_actions_[f].size());
    actions.append(a);
  }
  return py::make_tuple(slots, stepped, actions);
}

}  // namespace envpool::bindings
