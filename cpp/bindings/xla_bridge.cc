#include "bindings/xla_bridge.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/exception_text.h"
#include "core/protocol.h"

namespace envpool::xla {

namespace {

// recv's timeout passed: DEADLINE_EXCEEDED.
class Timeout : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Entry {
  Port* port = nullptr;  // nullptr once unregistered; entries are kept so that ids stay unique
  std::string description;
  std::atomic<bool> closing{false};
  std::atomic<int> inside{0};
  std::vector<const void*> action_ptrs;  // reused: no allocation per call
};

std::mutex g_mu;
std::unordered_map<int64_t, std::unique_ptr<Entry>> g_entries;
int64_t g_next_id = 1;

DType ToDType(int32_t code) {
  switch (code) {
    case ENVPOOL_XLA_BOOL:
      return DType::kBool;
    case ENVPOOL_XLA_INT8:
      return DType::kInt8;
    case ENVPOOL_XLA_INT32:
      return DType::kInt32;
    case ENVPOOL_XLA_INT64:
      return DType::kInt64;
    case ENVPOOL_XLA_UINT8:
      return DType::kUInt8;
    case ENVPOOL_XLA_FLOAT32:
      return DType::kFloat32;
    case ENVPOOL_XLA_FLOAT64:
      return DType::kFloat64;
    default:
      throw InputTypeError(
          "an array has an element type envpool does not use (not bool, int8, uint8, int32, "
          "int64, float32 or float64)");
  }
}

template <class S, class D>
void CopyAs(const void* src, void* dst, std::size_t n) {
  const S* s = static_cast<const S*>(src);
  D* d = static_cast<D*>(dst);
  for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<D>(s[i]);
}

template <class S>
void CopyFrom(const void* src, DType to, void* dst, std::size_t n) {
  switch (to) {
    case DType::kBool:
      return CopyAs<S, bool>(src, dst, n);
    case DType::kInt8:
      return CopyAs<S, int8_t>(src, dst, n);
    case DType::kInt32:
      return CopyAs<S, int32_t>(src, dst, n);
    case DType::kInt64:
      return CopyAs<S, int64_t>(src, dst, n);
    case DType::kUInt8:
      return CopyAs<S, uint8_t>(src, dst, n);
    case DType::kFloat32:
      return CopyAs<S, float>(src, dst, n);
    case DType::kFloat64:
      return CopyAs<S, double>(src, dst, n);
    default:  // int16/uint16/uint32/uint64/float16 fields exist in Python-env pools only, which have no xla()
      throw InputTypeError(std::string("xla() does not convert to ") + DTypeName(to));
  }
}

// n elements of `from` at src to `to` at dst, as static_cast converts them (results: the
// batch's fields to the dtypes jax gives them; actions go through the core's ConvertActions).
void Convert(DType from, const void* src, DType to, void* dst, std::size_t n) {
  if (from == to) {
    std::memcpy(dst, src, n * DTypeSize(from));
    return;
  }
  switch (from) {
    case DType::kBool:
      return CopyFrom<bool>(src, to, dst, n);
    case DType::kInt8:
      return CopyFrom<int8_t>(src, to, dst, n);
    case DType::kInt32:
      return CopyFrom<int32_t>(src, to, dst, n);
    case DType::kInt64:
      return CopyFrom<int64_t>(src, to, dst, n);
    case DType::kUInt8:
      return CopyFrom<uint8_t>(src, to, dst, n);
    case DType::kFloat32:
      return CopyFrom<float>(src, to, dst, n);
    case DType::kFloat64:
      return CopyFrom<double>(src, to, dst, n);
    default:  // as in CopyFrom
      throw InputTypeError(std::string("xla() does not convert from ") + DTypeName(from));
  }
}

// Claims pool `id` for one call (see Port::TryEnter); the caller must Leave.
Entry& Enter(int64_t id, Port*& port) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_entries.find(id);
  if (it == g_entries.end()) {
    throw ProtocolError("no pool has id " + std::to_string(id) + " in this process (a handle from elsewhere?)");
  }
  Entry& e = *it->second;
  if (e.port == nullptr) {
    throw ProtocolError("the pool (" + e.description +
                        ") is closed; the functions its xla() returned cannot be used any more");
  }
  if (!e.port->TryEnter()) {
    throw ProtocolError("the pool (" + e.description +
                        ") is in use by another call: a Python call on it, or another "
                        "jitted function using it, runs at the same time (jax dispatches asynchronously: "
                        "jax.block_until_ready a jitted function's results before calling the pool from Python)");
  }
  e.inside.fetch_add(1, std::memory_order_acq_rel);
  port = e.port;
  return e;
}

void Leave(Entry& e, Port* port) {
  port->Leave();
  e.inside.fetch_sub(1, std::memory_order_acq_rel);
}

// Converts the action arrays to the spec's dtypes (the core's action coercion) and sends them.
void SendArrays(Entry& e, Port& port, const EnvpoolXlaArray* ids, const EnvpoolXlaArray* actions, int32_t num_actions,
                bool wait_follows) {
  EnvPool& p = port.pool();
  const std::vector<ArraySpec>& specs = p.spec().action;
  int n = p.num_envs();
  const int* env_ids = nullptr;
  if (ids != nullptr) {
    if (ToDType(ids->dtype) != DType::kInt32) throw InputTypeError("env_id must be int32");
    n = static_cast<int>(ids->count);
    env_ids = static_cast<const int*>(ids->data);
  }
  if (p.full_batch()) {
    if (n != p.num_envs()) {
      throw std::invalid_argument("a full-batch pool steps all its " + std::to_string(p.num_envs()) +
                                  " envs at once inside jit; env_id names " + std::to_string(n));
    }
    // Every env is sent at once, so with envs in flight the pool would refuse the send; say so
    // before the actions are staged (a step may still be reading the last ones in place).
    if (p.in_flight() > 0) {
      throw ProtocolError(
          "the envs are still in flight (a send without its recv, or a recv that failed): "
          "recv() their batch before sending again");
    }
  }
  if (num_actions != static_cast<int32_t>(specs.size())) {
    throw std::invalid_argument("expected " + std::to_string(specs.size()) + " action arrays, got " +
                                std::to_string(num_actions));
  }
  e.action_ptrs.clear();
  for (std::size_t f = 0; f < specs.size(); ++f) {
    const ArraySpec& spec = specs[f];
    const DType from = ToDType(actions[f].dtype);
    CheckActionKind(spec, KindOf(from), DTypeName(from));
    const std::size_t elements = static_cast<std::size_t>(n) * spec.NumElements();
    if (static_cast<std::size_t>(actions[f].count) != elements) {
      throw std::invalid_argument("action '" + spec.name + "' has " + std::to_string(actions[f].count) +
                                  " elements but " + std::to_string(n) + " envs need " + std::to_string(elements));
    }
    // Staged in memory the pool owns: a full-batch step reads its actions in place until its
    // batch is taken, which may be after this call returns (a recv that timed out).
    char* staged = port.ActionScratch(f, elements * DTypeSize(spec.dtype));
    ConvertActions(spec, from, actions[f].data, staged, n);
    e.action_ptrs.push_back(staged);
  }
  p.SendStep(env_ids, n, e.action_ptrs, wait_follows);
}

// Checks `results` against the batch fields before anything is waited for or taken.
void CheckResults(const EnvPool& p, const EnvpoolXlaArray* results, int32_t num_results) {
  const BatchLayout& layout = p.layout();
  if (num_results != static_cast<int32_t>(layout.fields.size())) {
    throw std::invalid_argument("expected " + std::to_string(layout.fields.size()) + " result arrays, got " +
                                std::to_string(num_results));
  }
  for (std::size_t f = 0; f < layout.fields.size(); ++f) {
    const FieldLayout& field = layout.fields[f];
    const DType want = field.dtype, got = ToDType(results[f].dtype);
    const bool ok = got == want || (want == DType::kFloat64 && got == DType::kFloat32) ||
                    (want == DType::kInt64 && got == DType::kInt32);
    const std::size_t elements = static_cast<std::size_t>(p.batch_size()) * (field.row_bytes / DTypeSize(want));
    if (!ok || static_cast<std::size_t>(results[f].count) != elements) {
      throw std::invalid_argument("result '" + field.name + "' must be " + std::to_string(elements) + " elements of " +
                                  DTypeName(want) + " (or its 32-bit twin), got " + std::to_string(results[f].count) +
                                  " of " + DTypeName(got));
    }
  }
}

// Waits for the next batch and copies it into `results` (checked by CheckResults).
void RecvInto(Entry& e, Port& port, double timeout_s, EnvpoolXlaArray* results) {
  EnvPool& p = port.pool();
  const auto ready = p.WaitBatch(timeout_s, [&e] { return e.closing.load(std::memory_order_relaxed); });
  if (ready == EnvPool::WaitResult::kInterrupted)
    throw ProtocolError("the pool was closed while recv() waited for its batch");
  if (ready == EnvPool::WaitResult::kTimeout) {
    char text[160];
    std::snprintf(text, sizeof(text), "no batch was complete within %g s; nothing is lost: the next recv() returns it",
                  timeout_s);
    throw Timeout(text);
  }
  const BatchBuffers& batch = port.TakeBatch();
  if (p.taken_rows() != p.batch_size()) {
    throw ProtocolError("the batch has " + std::to_string(p.taken_rows()) + " rows, not batch_size=" +
                        std::to_string(p.batch_size()) + ": inside jit batches must be whole");
  }
  const BatchLayout& layout = p.layout();
  for (std::size_t f = 0; f < layout.fields.size(); ++f) {
    Convert(layout.fields[f].dtype, batch.data[f], ToDType(results[f].dtype), results[f].data,
            static_cast<std::size_t>(results[f].count));
  }
  auto errors = p.TakeEnvErrors();
  if (!errors.empty()) {
    std::string details;
    for (const auto& [id, what] : errors)
      details += (details.empty() ? "env " : "; env ") + std::to_string(id) + ": " + what;
    throw EnvFailure("environment error in " + details +
                     " (inside jit the batch is lost with the error; the env restarts, the pool stays usable)");
  }
}

void WriteError(const std::string& text, char* error, size_t error_size) {
  if (error == nullptr || error_size == 0) return;
  const std::size_t n = std::min(text.size(), error_size - 1);
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}

// Runs `body` on pool `id` entered, mapping exceptions to status codes and messages.
template <class Body>
int32_t Guarded(int64_t id, char* error, size_t error_size, Body&& body) {
  try {
    Port* port = nullptr;
    Entry& e = Enter(id, port);
    try {
      body(e, *port);
    } catch (...) {
      Leave(e, port);
      throw;
    }
    Leave(e, port);
    return ENVPOOL_XLA_OK;
  } catch (const Timeout& ex) {
    WriteError(ex.what(), error, error_size);
    return ENVPOOL_XLA_DEADLINE_EXCEEDED;
  } catch (const std::invalid_argument& ex) {  // also InputTypeError
    WriteError(ex.what(), error, error_size);
    return ENVPOOL_XLA_INVALID_ARGUMENT;
  } catch (const ProtocolError& ex) {
    WriteError(ex.what(), error, error_size);
    return ENVPOOL_XLA_FAILED_PRECONDITION;
  } catch (const std::exception& ex) {
    WriteError(ExceptionText(ex), error, error_size);
    return ENVPOOL_XLA_INTERNAL;
  } catch (...) {
    WriteError("unknown error", error, error_size);
    return ENVPOOL_XLA_INTERNAL;
  }
}

int32_t SendFn(int64_t pool, const EnvpoolXlaArray* env_ids, const EnvpoolXlaArray* actions, int32_t num_actions,
               char* error, size_t error_size) {
  return Guarded(pool, error, error_size, [&](Entry& e, Port& port) {
    SendArrays(e, port, env_ids, actions, num_actions, /*wait_follows=*/false);
  });
}

int32_t RecvFn(int64_t pool, double timeout_s, EnvpoolXlaArray* results, int32_t num_results, char* error,
               size_t error_size) {
  return Guarded(pool, error, error_size, [&](Entry& e, Port& port) {
    CheckResults(port.pool(), results, num_results);
    RecvInto(e, port, timeout_s, results);
  });
}

int32_t StepFn(int64_t pool, const EnvpoolXlaArray* env_ids, const EnvpoolXlaArray* actions, int32_t num_actions,
               double timeout_s, EnvpoolXlaArray* results, int32_t num_results, char* error, size_t error_size) {
  return Guarded(pool, error, error_size, [&](Entry& e, Port& port) {
    CheckResults(port.pool(), results, num_results);
    SendArrays(e, port, env_ids, actions, num_actions, /*wait_follows=*/true);
    RecvInto(e, port, timeout_s, results);
  });
}

const EnvpoolXlaApi kApi = {ENVPOOL_XLA_API_VERSION, sizeof(EnvpoolXlaApi), &SendFn, &RecvFn, &StepFn};

}  // namespace

int64_t Register(Port* port, std::string description) {
  std::lock_guard<std::mutex> lock(g_mu);
  const int64_t id = g_next_id++;
  auto entry = std::make_unique<Entry>();
  entry->port = port;
  entry->description = std::move(description);
  g_entries.emplace(id, std::move(entry));
  return id;
}

void Unregister(int64_t id) {
  Entry* e = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_entries.find(id);
    if (it == g_entries.end() || it->second->port == nullptr) return;
    e = it->second.get();
    e->port = nullptr;
    e->closing.store(true, std::memory_order_relaxed);
  }
  // A call inside leaves soon: a waiting recv polls `closing` every few milliseconds.
  while (e->inside.load(std::memory_order_acquire) != 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  e->action_ptrs = {};
}

const EnvpoolXlaApi* Api() { return &kApi; }

}  // namespace envpool::xla
