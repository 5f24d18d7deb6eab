// envpool._core: the C++ pool as a Python extension.
//
// Besides argument conversion, this file owns result memory. Each batch is written straight
// into NumPy arrays lent to the pool (EnvPool::ArmBuffers, then TakeBatch). recv() returns
// those arrays to the user and re-arms the ring position with another set: a set handed out
// earlier whose arrays nobody else references any more (refcount 1), or a new one. Results a user keeps are
// therefore never overwritten, and a loop that drops them reuses memory without copies.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "bindings/xla_bridge.h"
#include "core/external_executor.h"
#include "core/plugin_loader.h"
#include "core/pool.h"
#include "core/process_channel.h"
#include "core/process_executor.h"
#include "core/registry.h"
#include "core/version.h"
#include "envs/builtin_tasks.h"
#include "bindings/final_obs.h"

namespace py = pybind11;
using namespace envpool;

namespace envpool {
void BindRng(py::module_& m);  // rng_binding.cc
}  // namespace envpool

namespace {

// Using a pool after close(): envpool.errors.ClosedError (a gymnasium ClosedEnvironmentError).
class PoolClosedError : public ProtocolError {
  using ProtocolError::ProtocolError;
};

// Raises the Python exception class `name` of envpool.errors with `message`.
[[noreturn]] void ThrowPython(const char* name, const std::string& message) {
  py::object type = py::module_::import("envpool.errors").attr(name);
  PyErr_SetString(type.ptr(), message.c_str());
  throw py::error_already_set();
}

py::dtype ToNumpy(DType t) { return py::dtype(DTypeName(t)); }

py::dict ArraySpecToDict(const ArraySpec& a) {
  py::dict d;
  d["name"] = a.name;
  d["dtype"] = DTypeName(a.dtype);
  d["shape"] = py::tuple(py::cast(a.shape));
  d["low"] = a.low;
  d["high"] = a.high;
  d["discrete"] = a.discrete;
  return d;
}

py::dict EnvSpecToDict(const EnvSpec& spec) {
  py::dict d;
  py::list obs, action, info;
  for (const auto& a : spec.obs) obs.append(ArraySpecToDict(a));
  for (const auto& a : spec.action) action.append(ArraySpecToDict(a));
  for (const auto& a : spec.info) info.append(ArraySpecToDict(a));
  d["obs"] = obs;
  d["action"] = action;
  d["info"] = info;
  d["obs_is_tuple"] = spec.obs_is_tuple;
  d["render_shape"] = py::make_tuple(spec.render_height, spec.render_width, 3);
  return d;
}

py::object ConfigValueToPy(const ConfigValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::dict ConfigToDict(const Config& c) {
  py::dict d;
  for (const auto& [k, v] : c.values()) d[py::str(k)] = ConfigValueToPy(v);
  return d;
}

// One Python value to a ConfigValue (the pool checks it against the default's type).
ConfigValue ToConfigValue(const std::string& key, const py::handle& obj) {
  if (py::isinstance<py::bool_>(obj) || py::isinstance(obj, py::module_::import("numpy").attr("bool_"))) {
    return obj.cast<bool>();
  }
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  if (PyLong_Check(obj.ptr()) || py::isinstance(obj, py::module_::import("numpy").attr("integer"))) {
    return obj.cast<int64_t>();
  }
  if (PyFloat_Check(obj.ptr()) || py::isinstance(obj, py::module_::import("numpy").attr("floating"))) {
    return obj.cast<double>();
  }
  if (py::isinstance<py::sequence>(obj) || py::isinstance<py::array>(obj)) {
    std::vector<std::string> strings;
    std::vector<double> numbers;
    for (auto item : obj) {
      if (py::isinstance<py::str>(item) || py::isinstance<py::bytes>(item)) {
        strings.push_back(py::str(item).cast<std::string>());
        if (py::isinstance<py::bytes>(item)) strings.back() = item.cast<std::string>();
      } else {
        try {
          numbers.push_back(item.cast<double>());
        } catch (const py::cast_error&) {
          throw std::invalid_argument("keyword argument '" + key + "' has an element that is neither a number nor a string");
        }
      }
    }
    if (!strings.empty() && !numbers.empty()) {
      throw std::invalid_argument("keyword argument '" + key + "' mixes numbers and strings");
    }
    if (!strings.empty()) return strings;
    return numbers;
  }
  throw InputTypeError("keyword argument '" + key + "' has unsupported type " +
                       py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
}

// kwargs {key: [value] or [per-env values...]} -> the pool's form.
std::vector<std::pair<std::string, std::vector<ConfigValue>>> ToKwargs(const py::dict& kwargs) {
  std::vector<std::pair<std::string, std::vector<ConfigValue>>> out;
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    std::vector<ConfigValue> values;
    for (auto v : item.second) values.push_back(ToConfigValue(key, v));
    out.emplace_back(key, std::move(values));
  }
  return out;
}

const char* KindName(char kind) {
  switch (kind) {
    case 'b':
      return "bool";
    case 'i':
    case 'u':
      return "integer";
    case 'f':
      return "floating";
    case 'c':
      return "complex";
    default:
      return "non-numeric";
  }
}

AutoresetMode ParseAutoreset(const std::string& mode) {
  if (mode == "next_step") return AutoresetMode::kNextStep;
  if (mode == "same_step") return AutoresetMode::kSameStep;
  if (mode == "disabled") return AutoresetMode::kDisabled;
  throw std::invalid_argument("autoreset_mode must be next_step, same_step or disabled, got '" + mode + "'");
}

// The options every pool takes from Python.
PoolOptions Options(int num_envs, int batch_size, int max_episode_steps, const std::string& autoreset_mode) {
  PoolOptions options;
  options.num_envs = num_envs;
  options.batch_size = batch_size;
  options.max_episode_steps = max_episode_steps;
  options.autoreset = ParseAutoreset(autoreset_mode);
  return options;
}

DType DTypeFromName(const std::string& name) {
  for (DType t : kAllDTypes) {
    if (name == DTypeName(t)) return t;
  }
  std::string message = "unsupported dtype '";
  message += name;
  message += "' (supported:";
  for (DType t : kAllDTypes) (message += ' ') += DTypeName(t);
  message += ")";
  throw std::invalid_argument(message);
}

ArraySpec DictToArraySpec(const py::handle& d) {
  ArraySpec a;
  a.name = d["name"].cast<std::string>();
  a.dtype = DTypeFromName(d["dtype"].cast<std::string>());
  a.shape = d["shape"].cast<std::vector<int>>();
  a.low = d["low"].cast<std::vector<double>>();
  a.high = d["high"].cast<std::vector<double>>();
  a.discrete = d["discrete"].cast<bool>();
  return a;
}

// The inverse of EnvSpecToDict (render_shape aside): envs described from Python.
EnvSpec DictToEnvSpec(const py::dict& d) {
  EnvSpec spec;
  for (auto a : d["obs"]) spec.obs.push_back(DictToArraySpec(a));
  for (auto a : d["action"]) spec.action.push_back(DictToArraySpec(a));
  if (d.contains("info")) {
    for (auto a : d["info"]) spec.info.push_back(DictToArraySpec(a));
  }
  spec.obs_is_tuple = d.contains("obs_is_tuple") && d["obs_is_tuple"].cast<bool>();
  return spec;
}

py::dict LayoutToDict(const ProcessLayout& l) {
  py::dict d;
  d["num_envs"] = l.num_envs;
  d["num_workers"] = l.num_workers;
  d["worker_start"] = l.worker_start;
  d["info_capacity"] = l.info_capacity;
  d["error_capacity"] = l.error_capacity;
  d["workers"] = l.workers;
  d["commands"] = l.commands;
  d["envs"] = l.envs;
  d["env_stride"] = l.env_stride;
  d["action"] = l.action;
  d["obs_step"] = l.obs_step;
  d["obs_reset"] = l.obs_reset;
  d["info_step"] = l.info_step;
  d["info_reset"] = l.info_reset;
  d["error"] = l.error;
  d["total_bytes"] = l.total_bytes;
  py::dict env;  // fixed fields of an env block
  env["op"] = ProcessLayout::kOp;
  env["reseed"] = ProcessLayout::kReseed;
  env["time_limit"] = ProcessLayout::kTimeLimit;
  env["failed"] = ProcessLayout::kFailed;
  env["info_step_len"] = ProcessLayout::kInfoStepLen;
  env["info_reset_len"] = ProcessLayout::kInfoResetLen;
  env["error_len"] = ProcessLayout::kErrorLen;
  env["seed"] = ProcessLayout::kSeed;
  env["reward"] = ProcessLayout::kReward;
  env["terminated"] = ProcessLayout::kTerminated;
  env["truncated"] = ProcessLayout::kTruncated;
  d["env_fields"] = env;
  return d;
}

ProcessLayout LayoutFromDict(const py::dict& d) {
  ProcessLayout l;
  l.num_envs = d["num_envs"].cast<std::size_t>();
  l.num_workers = d["num_workers"].cast<std::size_t>();
  l.worker_start = d["worker_start"].cast<std::vector<int>>();
  l.info_capacity = d["info_capacity"].cast<std::size_t>();
  l.error_capacity = d["error_capacity"].cast<std::size_t>();
  l.workers = d["workers"].cast<std::size_t>();
  l.commands = d["commands"].cast<std::size_t>();
  l.envs = d["envs"].cast<std::size_t>();
  l.env_stride = d["env_stride"].cast<std::size_t>();
  l.action = d["action"].cast<std::vector<std::size_t>>();
  l.obs_step = d["obs_step"].cast<std::vector<std::size_t>>();
  l.obs_reset = d["obs_reset"].cast<std::vector<std::size_t>>();
  l.info_step = d["info_step"].cast<std::size_t>();
  l.info_reset = d["info_reset"].cast<std::size_t>();
  l.error = d["error"].cast<std::size_t>();
  l.total_bytes = d["total_bytes"].cast<std::size_t>();
  if (l.worker_start.size() != l.num_workers + 1) throw std::invalid_argument("bad process layout");
  return l;
}

class PyPool : public xla::Port {
 public:
  explicit PyPool(std::unique_ptr<EnvPool> pool) : pool_(std::move(pool)) {
    const auto& layout = pool_->layout();
    for (const auto& f : layout.fields) {
      dtypes_.push_back(ToNumpy(f.dtype));
      std::vector<py::ssize_t> shape{pool_->batch_size()};
      for (int d : f.shape) shape.push_back(d);
      shapes_.push_back(shape);
    }
    ring_sets_.resize(static_cast<std::size_t>(pool_->ring_size()));
    for (int pos = 0; pos < pool_->ring_size(); ++pos) Arm(pos, NewSet());
    for (const auto& a : pool_->spec().action) action_specs_.push_back(a);
  }

  // A pool of a registered native task.
  static std::unique_ptr<PyPool> Native(const std::string& task_id, int num_envs, int batch_size, int num_threads,
                                        uint64_t seed, int max_episode_steps, const py::dict& kwargs,
                                        const std::string& autoreset_mode, double spin_us) {
    const TaskSpec& task = FindTask(task_id);
    PoolOptions options = Options(num_envs, batch_size, max_episode_steps, autoreset_mode);
    options.num_threads = num_threads;
    options.seed = seed;
    if (num_envs < 1) throw std::invalid_argument("num_envs must be >= 1, got " + std::to_string(num_envs));
    options.configs = MakeConfigs(task, num_envs, ToKwargs(kwargs));
    options.spin = std::chrono::nanoseconds(static_cast<int64_t>(spin_us * 1000));
    auto pool = std::make_unique<PyPool>(std::make_unique<EnvPool>(task, std::move(options)));
    pool->final_obs_objects_ = true;
    return pool;
  }

  // A pool whose envs live in worker processes (envpool.make_python): the workers attach
  // to the shared memory given by shm_fd and process_layout.
  static std::unique_ptr<PyPool> Processes(const std::string& name, const py::dict& spec, int num_envs, int batch_size,
                                           int max_episode_steps, const std::string& autoreset_mode,
                                           const std::vector<int>& worker_start, std::size_t info_capacity,
                                           std::size_t error_capacity) {
    PoolOptions options = Options(num_envs, batch_size, max_episode_steps, autoreset_mode);
    EnvSpec env_spec = DictToEnvSpec(spec);
    ProcessLayout layout = ProcessLayout::For(env_spec, num_envs, worker_start, info_capacity, error_capacity);
    auto pool = std::make_unique<EnvPool>(name, env_spec, std::move(options), [&](ExecutorContext ctx) {
      return std::make_unique<ProcessExecutor>(ctx, layout);
    });
    return std::make_unique<PyPool>(std::move(pool));
  }

  // A pool of external episodes (envpool.serve, envpool.ExternalEnv): `max_episodes` slots
  // whose rows the serving thread completes (ext_complete); recv() cuts a batch `wait_ms`
  // after its first row arrived.
  static std::unique_ptr<PyPool> External(const std::string& name, const py::dict& spec, int max_episodes,
                                          int batch_size, double wait_ms) {
    if (!(wait_ms >= 0)) throw std::invalid_argument("wait_ms must be >= 0");
    PoolOptions options = Options(max_episodes, batch_size, 0, "next_step");
    EnvSpec env_spec = DictToEnvSpec(spec);
    const auto wait = std::chrono::nanoseconds(static_cast<int64_t>(wait_ms * 1e6));
    auto pool = std::make_unique<EnvPool>(name, env_spec, std::move(options), [&](ExecutorContext ctx) {
      return std::make_unique<ExternalExecutor>(ctx, wait);
    });
    return std::make_unique<PyPool>(std::move(pool));
  }

  ExternalExecutor& external() {
    auto* p = dynamic_cast<ExternalExecutor*>(&pool().executor());
    if (!p) throw std::invalid_argument("this pool serves no external episodes");
    return *p;
  }

  // The serving thread completes slot `slot`'s row: one buffer per obs field and per info
  // field, each exactly one row of it.
  void ExternalComplete(int slot, const py::list& obs, const py::list& info, double reward, bool terminated,
                        bool truncated) {
    ExternalExecutor& ext = external();
    const EnvSpec& spec = pool_->spec();
    const void* obs_ptrs[EpisodeRules::kMaxFields];
    const void* info_ptrs[EpisodeRules::kMaxFields];
    // Plain Py_buffers on the stack: py::buffer::request() builds a buffer_info (shape and
    // strides vectors) per buffer, a heap allocation per array per row on the server's hot path.
    struct Views {
      Py_buffer view[2 * EpisodeRules::kMaxFields];
      std::size_t n = 0;
      ~Views() {
        for (std::size_t i = 0; i < n; ++i) PyBuffer_Release(&view[i]);
      }
    } views;
    auto collect = [&](const py::list& bufs, const std::vector<ArraySpec>& specs, const void** ptrs, const char* what) {
      if (bufs.size() != specs.size()) {
        throw std::invalid_argument(std::string("expected ") + std::to_string(specs.size()) + " " + what + " buffers, got " +
                                    std::to_string(bufs.size()));
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

  // (slots int32, stepped bool, [actions of each field, one row per slot]) dispatched since
  // the last call; freed slots have zero action rows.
  py::tuple ExternalTakeAnswers() {
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
    const auto& specs = pool_->spec().action;
    for (std::size_t f = 0; f < specs.size(); ++f) {
      std::vector<py::ssize_t> shape{n};
      for (int d : specs[f].shape) shape.push_back(d);
      py::array a(ToNumpy(specs[f].dtype), shape);
      if (n > 0) std::memcpy(a.mutable_data(), answer_actions_[f].data(), answer_actions_[f].size());
      actions.append(a);
    }
    return py::make_tuple(slots, stepped, actions);
  }

  ProcessExecutor& processes() {
    auto* p = dynamic_cast<ProcessExecutor*>(&pool().executor());
    if (!p) throw std::invalid_argument("this pool has no worker processes");
    return *p;
  }

  ~PyPool() override {
    if (xla_id_ != 0) xla::Unregister(xla_id_);  // waits for a jitted call inside to leave
    // Join the workers before the arrays they write into are released.
    if (pool_) pool_->Close();
  }

  EnvPool& pool() override {
    if (!pool_ || pool_->closed()) throw PoolClosedError("the pool is closed");
    return *pool_;
  }

  void SendReset(const py::object& env_id, const py::object& seeds, const py::object& keep, bool wait_follows) {
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

  void Send(const py::object& actions, const py::object& env_id) {
    Guard guard(this);
    SendImpl(actions, env_id, /*wait_follows=*/false);
  }

  // The converted action arrays of the last send, alive until its results are taken (the
  // pool may read them in place during step()).

  // `with_ids`: info holds env_id and elapsed_step (the async loop's; gymnasium's full-batch
  // info has neither).
  py::tuple Recv(double timeout, bool with_ids) {
    Guard guard(this);
    return RecvImpl(timeout, with_ids);
  }

  // send + recv in one call: the full-batch hot path.
  py::tuple Step(const py::object& actions, const py::object& env_id, double timeout, bool with_ids) {
    Guard guard(this);
    SendImpl(actions, env_id, /*wait_follows=*/true);
    return RecvImpl(timeout, with_ids);
  }

  py::array_t<uint8_t> Render(const py::object& env_id) {
    Guard guard(this);
    EnvPool& p = pool();
    py::array_t<int, py::array::c_style> ids = EnvIds(env_id);
    const int n = env_id.is_none() ? p.num_envs() : static_cast<int>(ids.size());
    const EnvSpec& spec = p.spec();
    py::array_t<uint8_t> frames({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(spec.render_height),
                                 static_cast<py::ssize_t>(spec.render_width), py::ssize_t{3}});
    p.Render(env_id.is_none() ? nullptr : ids.data(), n, frames.mutable_data());
    return frames;
  }

  py::array_t<double> GetState(int env_id) {
    Guard guard(this);
    return py::array_t<double>(py::cast(pool().GetState(env_id)));
  }
  void SetState(int env_id, const std::vector<double>& state) {
    Guard guard(this);
    pool().SetState(env_id, state);
  }

  void Close() {
    if (owner_.load() == kPython) throw ProtocolError("close() called while another thread is using the pool");
    if (xla_id_ != 0) xla::Unregister(xla_id_);  // waits for a jitted call inside to leave
    if (pool_) pool_->Close();
  }
  bool closed() const { return !pool_ || pool_->closed(); }

  // -- envs.xla(): the pool as the XLA handlers reach it (bindings/xla_bridge.h) -------------
  // The id the handlers name this pool by (registered at the first call).
  int64_t XlaId() {
    Guard guard(this);
    EnvPool& p = pool();
    if (p.executor().PartialBatches() || dynamic_cast<ProcessExecutor*>(&p.executor()) != nullptr) {
      throw std::invalid_argument("xla() steps native and plugin pools (envpool.make); this pool's batches come from " +
                                  std::string(p.executor().PartialBatches() ? "external episodes and may be partial"
                                                                            : "Python envs with Python info dicts"));
    }
    if (xla_id_ == 0) {
      xla_spare_ = NewSet();
      for (const auto& a : action_specs_) {
        const std::size_t row = a.NumElements() * DTypeSize(a.discrete ? DType::kInt64 : a.dtype);
        xla_actions_.emplace_back(static_cast<std::size_t>(p.num_envs()) * row);
      }
      xla_id_ = xla::Register(this, p.name() + ", " + std::to_string(p.num_envs()) + " envs");
    }
    return xla_id_;
  }
  bool TryEnter() override {
    int owner = kFree;
    return owner_.compare_exchange_strong(owner, kXla);
  }
  void Leave() override { owner_.store(kFree); }
  const BatchBuffers& TakeBatch() override {
    // The batch lands in the spare set, whose arrays re-arm its ring position: no GIL needed.
    const int pos = pool_->TakeBatch(BuffersOf(xla_spare_));
    ring_sets_[static_cast<std::size_t>(pos)].swap(xla_spare_);
    xla_taken_ = BuffersOf(xla_spare_);
    return xla_taken_;
  }
  char* ActionScratch(std::size_t field, std::size_t bytes) override {
    std::vector<char>& staged = xla_actions_.at(field);
    if (bytes > staged.size()) throw std::invalid_argument("more action rows than the pool has envs");
    return staged.data();
  }
  // The batch's fields in the layout's order: what recv fills, [{name, dtype, shape}].
  py::list BatchFields() const {
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
  int in_flight() const { return pool_ ? pool_->in_flight() : 0; }
  const EnvPool& core() const { return *pool_; }

 private:
  // Rejects a second Python thread entering while the first waits without the GIL, and a
  // Python call while a jitted function's call (envs.xla()) is inside.
  struct Guard {
    explicit Guard(PyPool* p) : pool(p) {
      int owner = kFree;
      if (!pool->owner_.compare_exchange_strong(owner, kPython)) {
        throw ProtocolError(owner == kXla ? "the pool is being used by a jitted function (envs.xla()); jax dispatches "
                                            "asynchronously: jax.block_until_ready its results before calling the pool "
                                            "from Python"
                                          : "the pool is being used by another thread; calls on one pool must not overlap");
      }
    }
    ~Guard() { pool->owner_.store(kFree); }
    PyPool* pool;
  };

  using ArraySet = std::vector<py::array>;

  ArraySet NewSet() {
    ArraySet set;
    set.reserve(dtypes_.size());
    for (std::size_t f = 0; f < dtypes_.size(); ++f) set.emplace_back(dtypes_[f], shapes_[f]);
    return set;
  }

  static BatchBuffers BuffersOf(ArraySet& set) {
    BatchBuffers buffers;
    for (auto& a : set) buffers.data.push_back(static_cast<char*>(a.mutable_data()));
    return buffers;
  }

  void Arm(int pos, ArraySet set) {
    pool_->ArmBuffers(pos, BuffersOf(set));
    ring_sets_[static_cast<std::size_t>(pos)] = std::move(set);
  }

  // A set handed out before whose arrays only we still reference, else a new one.
  ArraySet FreeSet() {
    for (auto it = lent_.begin(); it != lent_.end(); ++it) {
      bool free = true;
      for (const auto& a : *it) free = free && Py_REFCNT(a.ptr()) == 1;
      if (free) {
        ArraySet set = std::move(*it);
        lent_.erase(it);
        return set;
      }
    }
    return NewSet();
  }

  py::array_t<int, py::array::c_style> EnvIds(const py::object& env_id) {
    if (env_id.is_none()) return py::array_t<int, py::array::c_style>();
    py::array arr = py::array::ensure(env_id);
    if (!arr) throw InputTypeError("env_id must be an array of integers");
    if (arr.ndim() == 0) arr = arr.attr("reshape")(1);
    const char kind = arr.dtype().kind();
    if (kind != 'i' && kind != 'u') {
      throw InputTypeError(std::string("env_id must hold integers, got ") + KindName(kind) + " values");
    }
    if (arr.ndim() != 1) throw std::invalid_argument("env_id must be 1-D, got " + std::to_string(arr.ndim()) + " dims");
    if ((arr.flags() & py::array::c_style) && arr.dtype().equal(int_dtype_)) {
      // info["env_id"] as recv() returned it (the async loop's case): one copy, no int64 pass.
      py::array_t<int, py::array::c_style> ids(arr.size());
      std::memcpy(ids.mutable_data(), arr.data(), static_cast<std::size_t>(arr.size()) * sizeof(int));
      return ids;
    }
    auto as64 = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    py::array_t<int, py::array::c_style> ids(as64.size());
    const int64_t* src = as64.data();
    int* dst = ids.mutable_data();
    for (py::ssize_t i = 0; i < as64.size(); ++i) {
      // Values beyond int range cannot be valid ids: clamp so the pool reports them as out of range.
      dst[i] = src[i] > INT32_MAX ? INT32_MAX : (src[i] < INT32_MIN ? INT32_MIN : static_cast<int>(src[i]));
    }
    return ids;
  }

  // Converts one action field to a C-contiguous array of the spec dtype, checking kind and shape.
  py::array ActionArray(const py::handle& obj, const ArraySpec& spec, int n) {
    py::array arr = py::array::ensure(obj);
    if (!arr) throw InputTypeError("action '" + spec.name + "' is not array-like");
    const char kind = arr.dtype().kind();
    const bool integers = kind == 'i' || kind == 'u';
    if (spec.dtype == DType::kBool) {
      if (kind != 'b' && !integers) {
        throw InputTypeError("action '" + spec.name + "' must hold bools, got " + KindName(kind) +
                             " values of dtype " + py::str(arr.dtype()).cast<std::string>());
      }
    } else if (spec.discrete || !IsFloating(spec.dtype)) {
      if (!integers) {
        throw InputTypeError("action '" + spec.name + "' must hold integers (a discrete action), got " +
                             KindName(kind) + " values of dtype " + py::str(arr.dtype()).cast<std::string>());
      }
    } else if (kind != 'f' && !integers) {
      throw InputTypeError("action '" + spec.name + "' must hold real numbers, got " + KindName(kind) +
                           " values of dtype " + py::str(arr.dtype()).cast<std::string>());
    }
    if (arr.ndim() == 0) {
      // As gymnasium's vector envs, which cannot iterate over a scalar.
      throw InputTypeError("action '" + spec.name + "' is a scalar; a batch needs one action per env (" +
                           std::to_string(n) + " rows)");
    }
    std::vector<py::ssize_t> want{n};
    for (int d : spec.shape) want.push_back(d);
    bool ok = arr.ndim() == static_cast<py::ssize_t>(want.size());
    for (py::ssize_t i = 0; ok && i < arr.ndim(); ++i) ok = arr.shape(i) == want[static_cast<std::size_t>(i)];
    if (!ok) {
      std::string got = "(", expected = "(";
      for (py::ssize_t i = 0; i < arr.ndim(); ++i) got += std::to_string(arr.shape(i)) + (arr.ndim() == 1 ? "," : i + 1 < arr.ndim() ? ", " : "");
      for (std::size_t i = 0; i < want.size(); ++i) expected += std::to_string(want[i]) + (want.size() == 1 ? "," : i + 1 < want.size() ? ", " : "");
      throw std::invalid_argument("action '" + spec.name + "' has shape " + got + ") but " + std::to_string(n) +
                                  " envs need shape " + expected + ")");
    }
    py::dtype want_dtype = ToNumpy(spec.dtype);
    if (!arr.dtype().is(want_dtype) || !(arr.flags() & py::array::c_style)) {
      if (!arr.dtype().equal(want_dtype) || !(arr.flags() & py::array::c_style)) {
        py::module_ np = py::module_::import("numpy");
        py::array converted = np.attr("ascontiguousarray")(arr, want_dtype);
        // Integers that the spec's dtype cannot hold would wrap around unseen: refuse them.
        if (integers && !IsFloating(spec.dtype) && !arr.dtype().equal(want_dtype) &&
            !np.attr("array_equal")(converted, arr).cast<bool>()) {
          py::object bad = np.attr("flatnonzero")(np.attr("not_equal")(converted, arr))[py::int_(0)];
          const auto k = bad.cast<std::size_t>();
          const std::size_t per_row = spec.NumElements();
          throw std::invalid_argument("action '" + spec.name + "' row " + std::to_string(k / per_row) +
                                      (per_row > 1 ? " element " + std::to_string(k % per_row) : std::string()) + " = " +
                                      py::str(arr.attr("ravel")()[bad]).cast<std::string>() +
                                      " does not fit the action dtype " + DTypeName(spec.dtype));
        }
        arr = converted;
      }
    }
    return arr;
  }

  void SendImpl(const py::object& actions, const py::object& env_id, bool wait_follows) {
    EnvPool& p = pool();
    py::array_t<int, py::array::c_style> ids = EnvIds(env_id);
    const int n = env_id.is_none() ? p.num_envs() : static_cast<int>(ids.size());
    std::vector<py::array> keep;
    std::vector<const void*> ptrs;
    if (action_specs_.size() == 1) {
      keep.push_back(ActionArray(actions, action_specs_[0], n));
    } else {
      if (!py::isinstance<py::dict>(actions)) throw InputTypeError("actions must be a dict of arrays for this env");
      py::dict d = actions;
      for (const auto& spec : action_specs_) {
        if (!d.contains(spec.name)) throw std::invalid_argument("actions lack the key '" + spec.name + "'");
        keep.push_back(ActionArray(d[py::str(spec.name)], spec, n));
      }
    }
    for (const auto& a : keep) ptrs.push_back(a.data());
    p.SendStep(env_id.is_none() ? nullptr : ids.data(), n, ptrs, wait_follows);
    if (wait_follows) sent_actions_ = std::move(keep);
  }

  py::tuple RecvImpl(double timeout, bool with_ids) {
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
    ArraySet fresh = FreeSet();
    const int pos = p.TakeBatch(BuffersOf(fresh));
    sent_actions_.clear();
    ArraySet out = std::move(ring_sets_[static_cast<std::size_t>(pos)]);
    ring_sets_[static_cast<std::size_t>(pos)] = std::move(fresh);
    if (p.taken_rows() < p.batch_size()) {
      // A partial batch (external episodes): the user gets views of its rows; the whole
      // arrays are reused once the views are gone, as for full batches.
      lent_.push_back(out);
      if (lent_.size() > kMaxTracked) lent_.pop_front();
      py::slice rows(0, p.taken_rows(), 1);
      for (auto& a : out) a = a[rows];
    }

    const BatchLayout& layout = p.layout();
    py::object obs;
    if (layout.num_obs == 1) {
      obs = out[0];
    } else if (p.spec().obs_is_tuple) {
      py::tuple t(layout.num_obs);
      for (std::size_t f = 0; f < layout.num_obs; ++f) t[f] = out[f];
      obs = t;
    } else {
      py::dict d;
      for (std::size_t f = 0; f < layout.num_obs; ++f) d[py::str(layout.fields[f].name)] = out[f];
      obs = d;
    }
    py::dict info;
    if (with_ids) {
      info["env_id"] = out[layout.env_id];
      info["elapsed_step"] = out[layout.elapsed_step];
    }
    for (std::size_t f = layout.first_info; f < layout.first_info + layout.num_info; ++f) {
      info[py::str(layout.fields[f].name)] = out[f];
    }
    // Taken before the final_* entries: an env that failed has no last observation.
    auto errors = p.TakeEnvErrors();
    if (layout.has_final) AddFinalInfo(info, out, with_ids, errors);
    py::tuple result_tuple =
        py::make_tuple(obs, out[layout.reward], out[layout.terminated], out[layout.truncated], info);
    if (p.taken_rows() == p.batch_size()) {
      lent_.push_back(std::move(out));
      if (lent_.size() > kMaxTracked) lent_.pop_front();  // stop tracking; the GC frees them
    }

    if (!errors.empty()) {
      // envpool.EnvError carries the batch, so the other envs' results are not lost.
      py::list ids, messages;
      for (const auto& [id, what] : errors) {
        ids.append(id);
        messages.append(what);
      }
      py::object error = py::module_::import("envpool.errors").attr("EnvError")(ids, messages, result_tuple);
      PyErr_SetObject(py::type::handle_of(error).ptr(), error.ptr());
      throw py::error_already_set();
    }
    return result_tuple;
  }

  // Same-step autoreset, as gymnasium's SyncVectorEnv: when some env finished, info gets
  // final_obs / final_info (the finished episodes' last obs and info) with _final_obs /
  // _final_info masks; an env that failed (`errors`) has none. Native pools' final_obs is
  // gymnasium's object array (final_obs.h); process pools' stays dense, one array per field,
  // for envpool.process.results to nest with the variable-size values it alone knows.
  void AddFinalInfo(py::dict& info, const ArraySet& out, bool with_ids,
                    const std::vector<std::pair<int, std::string>>& errors) {
    const BatchLayout& layout = pool_->layout();
    const auto rows = static_cast<py::ssize_t>(out[layout.terminated].size());
    py::array_t<bool> mask(rows);
    const bool* term = static_cast<const bool*>(out[layout.terminated].data());
    const bool* trunc = static_cast<const bool*>(out[layout.truncated].data());
    const int32_t* ids = static_cast<const int32_t*>(out[layout.env_id].data());
    bool any = false;
    for (py::ssize_t i = 0; i < rows; ++i) {
      bool ended = term[i] || trunc[i];
      for (const auto& error : errors) ended = ended && error.first != ids[i];
      mask.mutable_data()[i] = ended;
      any = any || ended;
    }
    if (!any) return;
    std::vector<py::array> finals(out.begin() + static_cast<std::ptrdiff_t>(layout.first_final_obs),
                                  out.begin() + static_cast<std::ptrdiff_t>(layout.first_final_obs + layout.num_obs));
    if (final_obs_objects_) {
      info["final_obs"] = FinalObsObjects(pool_->spec(), finals, mask.data(), rows);
    } else if (layout.num_obs == 1) {
      info["final_obs"] = finals[0];
    } else {
      py::dict d;
      for (std::size_t f = 0; f < layout.num_obs; ++f) d[py::str(layout.fields[f].name)] = finals[f];
      info["final_obs"] = d;
    }
    info["_final_obs"] = mask;
    py::dict final_info;
    if (with_ids) {
      final_info["env_id"] = out[layout.env_id];
      final_info["_env_id"] = mask;
      final_info["elapsed_step"] = out[layout.final_elapsed_step];
      final_info["_elapsed_step"] = mask;
    }
    for (std::size_t f = 0; f < layout.num_info; ++f) {
      const std::string name = layout.fields[layout.first_info + f].name;
      final_info[py::str(name)] = out[layout.first_final_info + f];
      final_info[py::str("_" + name)] = mask;
    }
    info["final_info"] = final_info;
    info["_final_info"] = mask;
  }

  static constexpr std::size_t kMaxTracked = 8;

  std::vector<py::dtype> dtypes_;
  py::dtype int_dtype_ = py::dtype::of<int>();
  std::vector<std::vector<py::ssize_t>> shapes_;
  std::vector<ArraySpec> action_specs_;
  std::vector<ArraySet> ring_sets_;  // the arrays armed at each ring position
  std::deque<ArraySet> lent_;        // sets handed to the user, reusable once unreferenced
  std::vector<py::array> sent_actions_;  // actions a full-batch step() lends the workers
  std::vector<int32_t> answer_slots_;    // external pools: answers taken by the serving thread
  std::vector<uint8_t> answer_stepped_;
  std::vector<std::vector<char>> answer_actions_;
  // Who is inside the pool: nobody, a Python call (Guard) or an XLA handler (TryEnter).
  static constexpr int kFree = 0, kPython = 1, kXla = 2;
  std::atomic<int> owner_{kFree};
  // envs.xla(): the registry id (0: none yet), the set a taken batch lands in, the buffers of
  // that batch, and the staged actions (all kept past pool_, which reads them until it stops).
  int64_t xla_id_ = 0;
  ArraySet xla_spare_;
  BatchBuffers xla_taken_;
  std::vector<std::vector<char>> xla_actions_;
  bool final_obs_objects_ = false;  // final_obs as gymnasium's object array (native pools)
  std::unique_ptr<EnvPool> pool_;  // last: destroyed (workers joined) before the arrays
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "envpool's C++ core: the task registry and the thread-pool env pool.";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputTypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const PoolClosedError& e) {
      PyErr_SetString(py::module_::import("envpool.errors").attr("ClosedError").ptr(), e.what());
    } catch (const ProtocolError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const PluginError& e) {
      PyErr_SetString(PyExc_ImportError, e.what());
    }
  });

  RegisterBuiltinTasks();

  m.attr("version") = ENVPOOL_VERSION;
  m.attr("abi_version") = ENVPOOL_ABI_VERSION;
  BindRng(m);
  auto plugin_dict = [](const LoadedPlugin& p) {
    py::dict d;
    d["name"] = p.name;
    d["path"] = p.path;
    d["task_ids"] = p.task_ids;
    return d;
  };
  m.def("load_plugin", [plugin_dict](const std::string& path) {
    LoadedPlugin p;
    {
      py::gil_scoped_release release;  // a plugin's static initializers may take a while
      p = LoadPlugin(path);
    }
    return plugin_dict(p);
  }, py::arg("path"),
        "Loads an env plugin (a shared library built with core/plugin.h) and registers its tasks; "
        "ImportError if it is refused. Returns {name, path, task_ids}.");
  m.def("plugins", [plugin_dict] {
    py::list out;
    for (const auto& p : LoadedPlugins()) out.append(plugin_dict(p));
    return out;
  }, "The plugins loaded so far: [{name, path, task_ids}].");

  m.def("tasks", [] {
    py::list out;
    for (const TaskSpec* t : AllTasks()) {
      py::dict d;
      d["id"] = t->id;
      d["max_episode_steps"] = t->max_episode_steps;
      d["reward_threshold"] = std::isnan(t->reward_threshold) ? py::object(py::none()) : py::object(py::float_(t->reward_threshold));
      d["defaults"] = ConfigToDict(t->defaults);
      d["origin"] = t->origin;
      out.append(d);
    }
    return out;
  }, "All registered tasks: id, max_episode_steps, reward_threshold and default kwargs.");

  m.def("env_spec", [](const std::string& task_id, const py::dict& kwargs) {
    const TaskSpec& task = FindTask(task_id);
    auto configs = MakeConfigs(task, 1, ToKwargs(kwargs));
    py::dict d = EnvSpecToDict(task.spec(configs[0]));
    d["config"] = ConfigToDict(configs[0]);
    return d;
  }, py::arg("task_id"), py::arg("kwargs"),
        "Arrays of one env of `task_id` built with `kwargs` ({key: [value]}), and the full config.");

  py::class_<PyPool>(m, "Pool")
      .def(py::init(&PyPool::Native),
           py::arg("task_id"), py::arg("num_envs"), py::arg("batch_size"), py::arg("num_threads"), py::arg("seed"),
           py::arg("max_episode_steps"), py::arg("kwargs"), py::arg("autoreset_mode") = "next_step",
           py::arg("spin_us") = 50.0)
      .def("send_reset", &PyPool::SendReset, py::arg("env_id") = py::none(), py::arg("seeds") = py::none(),
           py::arg("keep") = py::none(), py::arg("wait_follows") = false)
      .def("send", &PyPool::Send, py::arg("actions"), py::arg("env_id") = py::none())
      .def("recv", &PyPool::Recv, py::arg("timeout") = -1.0, py::arg("with_ids") = true)
      .def("step", &PyPool::Step, py::arg("actions"), py::arg("env_id") = py::none(), py::arg("timeout") = -1.0,
           py::arg("with_ids") = true)
      .def("render", &PyPool::Render, py::arg("env_id") = py::none())
      .def("get_state", &PyPool::GetState, py::arg("env_id"))
      .def("set_state", &PyPool::SetState, py::arg("env_id"), py::arg("state"))
      .def("close", &PyPool::Close)
      .def_property_readonly("closed", &PyPool::closed)
      .def_property_readonly("in_flight", &PyPool::in_flight)
      .def_property_readonly("num_envs", [](const PyPool& p) { return p.core().num_envs(); })
      .def_property_readonly("batch_size", [](const PyPool& p) { return p.core().batch_size(); })
      .def_property_readonly("num_threads", [](PyPool& p) { return p.pool().executor().parallelism(); })
      .def_property_readonly("max_episode_steps", [](const PyPool& p) { return p.core().max_episode_steps(); })
      .def_property_readonly("spec", [](const PyPool& p) { return EnvSpecToDict(p.core().spec()); })
      .def("xla_id", &PyPool::XlaId, "This pool's id for the XLA handlers (envs.xla()), registered at the first call.")
      .def_property_readonly("batch_fields", &PyPool::BatchFields)
      // Pools of worker processes (envpool.make_python).
      .def_static("for_processes", &PyPool::Processes, py::arg("name"), py::arg("spec"), py::arg("num_envs"),
                  py::arg("batch_size"), py::arg("max_episode_steps"), py::arg("autoreset_mode"),
                  py::arg("worker_start"), py::arg("info_capacity"), py::arg("error_capacity"))
      // Pools of external episodes (envpool.serve, envpool.ExternalEnv).
      .def_static("for_external", &PyPool::External, py::arg("name"), py::arg("spec"), py::arg("max_episodes"),
                  py::arg("batch_size"), py::arg("wait_ms"))
      .def("ext_acquire", [](PyPool& p) { return p.external().Acquire(); },
           "A free slot for a new episode, or -1 when none is free.")
      .def("ext_release", [](PyPool& p, int slot) { p.external().Release(slot); }, py::arg("slot"))
      .def("ext_complete", &PyPool::ExternalComplete, py::arg("slot"), py::arg("obs"), py::arg("info"),
           py::arg("reward"), py::arg("terminated"), py::arg("truncated"))
      .def("ext_take_answers", &PyPool::ExternalTakeAnswers)
      .def_property_readonly("ext_event_fd", [](PyPool& p) { return p.external().event_fd(); })
      .def("ext_state", [](PyPool& p, int slot) { return static_cast<int>(p.external().State(slot)); }, py::arg("slot"))
      .def_property_readonly("shm_fd", [](PyPool& p) { return p.processes().mapping().fd(); })
      .def_property_readonly("process_layout", [](PyPool& p) { return LayoutToDict(p.processes().layout()); })
      .def("worker_died", [](PyPool& p, int worker, const std::string& reason) {
        return p.processes().WorkerDied(worker, reason);
      }, py::arg("worker"), py::arg("reason"),
           "Reports a dead worker: its unfinished envs complete as error rows at the next recv(). False if already reported.")
      .def("death_settled", [](PyPool& p, int worker) { return p.processes().DeathSettled(worker); })
      .def("revived", [](PyPool& p, int worker) { p.processes().Revived(worker); })
      .def("wake_worker", [](PyPool& p, int worker) { p.processes().Wake(worker); },
           "Wakes a sleeping worker without a command (a control message waits for it).")
      .def("shm_buffer", [](PyPool& p) {
        const auto& map = p.processes().mapping();
        return py::memoryview::from_memory(map.data(), static_cast<py::ssize_t>(map.size()));
      })
      .def("worker_activity", [](PyPool& p, int worker) {
        // (env id it runs, steady-clock ns when it started; -1 and 0 when idle)
        const auto& map = p.processes().mapping();
        const std::size_t block = p.processes().layout().Worker(worker);
        return py::make_tuple(map.Atomic<int32_t>(block + ProcessLayout::kBusyEnv).load(),
                              map.Atomic<int64_t>(block + ProcessLayout::kBusySince).load());
      });

  m.def("xla_api", [] { return py::capsule(xla::Api(), ENVPOOL_XLA_CAPSULE); },
        "The C function table the XLA FFI handlers call (xla_ffi/envpool_xla_api.h), in a PyCapsule.");

  m.def("steady_clock_ns", [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }, "The clock worker activity is stamped with.");

  m.def("end_process_group_when_process_exits", &EndProcessGroupWhenProcessExits, py::arg("pid"),
        "Starts a thread that kills this process (its process group, when it leads one) once process `pid` exits.");

  py::class_<WorkerChannel>(m, "WorkerChannel", "A worker process's end of a process pool's shared memory.")
      .def(py::init([](const std::string& path, const py::dict& layout, int worker) {
             return std::make_unique<WorkerChannel>(path, LayoutFromDict(layout), worker);
           }),
           py::arg("path"), py::arg("layout"), py::arg("worker"))
      .def("wait", [](WorkerChannel& c, double timeout_s, double spin_us) {
        py::gil_scoped_release release;
        return c.Wait(std::chrono::nanoseconds(static_cast<int64_t>(timeout_s * 1e9)),
                      std::chrono::nanoseconds(static_cast<int64_t>(spin_us * 1e3)));
      }, py::arg("timeout_s"), py::arg("spin_us") = 50.0)
      .def("next", &WorkerChannel::Next)
      .def("done", &WorkerChannel::Done, "Marks the command taken by next() done; False in a fork of the worker.")
      .def("report_fork", &WorkerChannel::ReportFork, py::arg("env_id"),
           "Called in a fork of the worker that reached the worker's loop: the pool writes the worker off.")
      .def("buffer", [](WorkerChannel& c) {
        return py::memoryview::from_memory(c.mapping().data(), static_cast<py::ssize_t>(c.mapping().size()));
      }, "The shared memory as a writable memoryview (for NumPy views).");
}
