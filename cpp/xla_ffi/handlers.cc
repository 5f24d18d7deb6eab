// The XLA FFI handlers behind envs.xla(): send, recv and step of a pool as custom calls that
// jit-compiled code can make.
//
// Built at first use against the installed jaxlib's FFI headers (envpool/xla/build.py: no
// jax at `pip install` time) as a small shared library with no link to envpool._core or
// Python: the pool side is reached through the C table of envpool_xla_api.h, handed over once
// by envpool_xla_init(). These handlers only turn XLA's buffers into EnvpoolXlaArray views
// and the table's status into an ffi::Error; all checks and the pool protocol live in _core.
//
// Calls (see envpool/xla.py, which builds them with jax.ffi.ffi_call):
//   envpool_ng_send(handle, env_ids, *actions) -> handle            attrs: pool, all_envs
//   envpool_ng_recv(handle) -> (handle, *batch fields)               attrs: pool, timeout
//   envpool_ng_step(handle, env_ids, *actions) -> (handle, *fields)  attrs: pool, all_envs, timeout
//   envpool_ng_agent_env_ids(row_ids) -> env_ids                     attrs: agents
// The last serves the agents-as-rows front end, whose batches name their envs once per agent
// row (recv()'s info["env_id"]): it gives the calls one id per env, or fails naming the rows
// when one env's rows name different envs (inside jit the values are only known when it runs).
// `handle` is an int32[1] holding the pool's id, aliased input 0 -> output 0: threading it
// through the calls is what orders them (with has_side_effect, so none is dropped or merged).
//
// Only the CPU platform is handled: XLA hands these handlers host buffers. A CUDA handler
// would be registered for platform "CUDA" under the same names, take the stream
// (ffi::PlatformStream<cudaStream_t>), copy env_ids and actions to host staging buffers,
// call the same table, and copy the results back to the device buffers (cudaMemcpyAsync);
// Forward() below is the part it would share.
#include <cstdint>
#include <cstring>
#include <string>

#include "envpool_xla_api.h"
#include "xla/ffi/api/ffi.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace ffi = xla::ffi;

namespace {

const EnvpoolXlaApi* g_api = nullptr;

// More action or result fields than any env has (the core allows 32 of each, plus 5 fixed
// result fields and the same-step autoreset's final_* copies).
constexpr std::size_t kMaxArrays = 128;
constexpr std::size_t kErrorSize = 4096;

int32_t DTypeOf(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED:
      return ENVPOOL_XLA_BOOL;
    case ffi::DataType::S8:
      return ENVPOOL_XLA_INT8;
    case ffi::DataType::S32:
      return ENVPOOL_XLA_INT32;
    case ffi::DataType::S64:
      return ENVPOOL_XLA_INT64;
    case ffi::DataType::U8:
      return ENVPOOL_XLA_UINT8;
    case ffi::DataType::F32:
      return ENVPOOL_XLA_FLOAT32;
    case ffi::DataType::F64:
      return ENVPOOL_XLA_FLOAT64;
    default:
      return ENVPOOL_XLA_UNSUPPORTED;
  }
}

EnvpoolXlaArray View(const ffi::AnyBuffer& b) {
  return EnvpoolXlaArray{b.untyped_data(), DTypeOf(b.element_type()), static_cast<int64_t>(b.element_count())};
}

ffi::Error ToError(int32_t status, const char* message) {
  std::string text = std::string("envpool: ") + message;
  switch (status) {
    case ENVPOOL_XLA_OK:
      return ffi::Error::Success();
    case ENVPOOL_XLA_INVALID_ARGUMENT:
      return ffi::Error(ffi::ErrorCode::kInvalidArgument, text);
    case ENVPOOL_XLA_FAILED_PRECONDITION:
      return ffi::Error(ffi::ErrorCode::kFailedPrecondition, text);
    case ENVPOOL_XLA_DEADLINE_EXCEEDED:
      return ffi::Error(ffi::ErrorCode::kDeadlineExceeded, text);
    default:
      return ffi::Error(ffi::ErrorCode::kInternal, text);
  }
}

// Checks the handle against the pool these calls were made for and passes it on.
ffi::Error PassHandle(const ffi::AnyBuffer& handle, ffi::Result<ffi::AnyBuffer>& out, int64_t pool) {
  if (g_api == nullptr) {
    return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                      "envpool: the XLA handlers were not initialized (envpool.xla initializes them)");
  }
  if (handle.element_type() != ffi::DataType::S32 || handle.element_count() != 1) {
    return ffi::Error::InvalidArgument("envpool: the handle is not an envpool handle (an int32[1] from envs.xla())");
  }
  const int32_t id = *static_cast<const int32_t*>(handle.untyped_data());
  if (id != pool) {
    return ffi::Error::InvalidArgument("envpool: this handle belongs to pool #" + std::to_string(id) +
                                       " but the function to pool #" + std::to_string(pool) +
                                       ": pass each pool's functions the handle its own xla() returned");
  }
  if (out->untyped_data() != handle.untyped_data()) std::memcpy(out->untyped_data(), handle.untyped_data(), 4);
  return ffi::Error::Success();
}

// Collects env_ids (the first argument) and the action arrays from the remaining arguments.
ffi::Error Inputs(const ffi::RemainingArgs& args, EnvpoolXlaArray& env_ids, EnvpoolXlaArray* actions,
                  int32_t& num_actions) {
  if (args.size() < 1 || args.size() > kMaxArrays + 1)
    return ffi::Error::InvalidArgument("envpool: bad argument count");
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto buffer = args.get<ffi::AnyBuffer>(i);
    if (!buffer.has_value()) return buffer.error();
    (i == 0 ? env_ids : actions[i - 1]) = View(*buffer);
  }
  num_actions = static_cast<int32_t>(args.size() - 1);
  return ffi::Error::Success();
}

ffi::Error Outputs(const ffi::RemainingRets& rets, EnvpoolXlaArray* results, int32_t& num_results) {
  if (rets.size() > kMaxArrays) return ffi::Error::InvalidArgument("envpool: bad result count");
  for (std::size_t i = 0; i < rets.size(); ++i) {
    auto buffer = rets.get<ffi::AnyBuffer>(i);
    if (!buffer.has_value()) return buffer.error();
    results[i] = View(**buffer);
  }
  num_results = static_cast<int32_t>(rets.size());
  return ffi::Error::Success();
}

// XLA runs on its CPU threads with denormals flushed to zero (FTZ and DAZ set, as
// tsl::port::ScopedFlushDenormal does around every computation), and a step call's XLA thread
// steps envs itself and converts float64 results to float32. Under FTZ that arithmetic differs
// from the same step through the Python API wherever a value is subnormal (an MPE observation
// of 1.4e-45 came back 0), so the table calls run with IEEE denormals, restored afterwards.
class IeeeDenormals {
 public:
  IeeeDenormals() {
#if defined(__x86_64__) || defined(_M_X64)
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ & ~(kFlushToZero | kDenormalsAreZero));
#elif defined(__aarch64__)
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
    const uint64_t ieee = saved_ & ~kFlushToZero;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(ieee));
#endif
  }
  ~IeeeDenormals() {
#if defined(__x86_64__) || defined(_M_X64)
    _mm_setcsr(saved_);
#elif defined(__aarch64__)
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  IeeeDenormals(const IeeeDenormals&) = delete;
  IeeeDenormals& operator=(const IeeeDenormals&) = delete;

 private:
#if defined(__x86_64__) || defined(_M_X64)
  static constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040;  // MXCSR bits 15 and 6
  unsigned saved_ = 0;
#elif defined(__aarch64__)
  static constexpr uint64_t kFlushToZero = uint64_t{1} << 24;  // FPCR.FZ
  uint64_t saved_ = 0;
#endif
};

// What a handler of any platform does once its buffers are on the host: the table call.
enum class Call { kSend, kRecv, kStep };

ffi::Error Forward(Call call, int64_t pool, bool all_envs, double timeout, const EnvpoolXlaArray& env_ids,
                   const EnvpoolXlaArray* actions, int32_t num_actions, EnvpoolXlaArray* results, int32_t num_results) {
  char error[kErrorSize];
  error[0] = '\0';
  const EnvpoolXlaArray* ids = all_envs ? nullptr : &env_ids;
  int32_t status = ENVPOOL_XLA_OK;
  const IeeeDenormals ieee;
  switch (call) {
    case Call::kSend:
      status = g_api->send(pool, ids, actions, num_actions, error, sizeof(error));
      break;
    case Call::kRecv:
      status = g_api->recv(pool, timeout, results, num_results, error, sizeof(error));
      break;
    case Call::kStep:
      status = g_api->step(pool, ids, actions, num_actions, timeout, results, num_results, error, sizeof(error));
      break;
  }
  return ToError(status, error);
}

ffi::Error SendCpu(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out, int64_t pool,
                   bool all_envs) {
  if (ffi::Error e = PassHandle(handle, handle_out, pool); e.failure()) return e;
  EnvpoolXlaArray env_ids{}, actions[kMaxArrays];
  int32_t num_actions = 0;
  if (ffi::Error e = Inputs(args, env_ids, actions, num_actions); e.failure()) return e;
  return Forward(Call::kSend, pool, all_envs, -1.0, env_ids, actions, num_actions, nullptr, 0);
}

ffi::Error RecvCpu(ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets, int64_t pool,
                   double timeout) {
  if (ffi::Error e = PassHandle(handle, handle_out, pool); e.failure()) return e;
  EnvpoolXlaArray results[kMaxArrays];
  int32_t num_results = 0;
  if (ffi::Error e = Outputs(rets, results, num_results); e.failure()) return e;
  return Forward(Call::kRecv, pool, true, timeout, EnvpoolXlaArray{}, nullptr, 0, results, num_results);
}

ffi::Error StepCpu(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out,
                   ffi::RemainingRets rets, int64_t pool, bool all_envs, double timeout) {
  if (ffi::Error e = PassHandle(handle, handle_out, pool); e.failure()) return e;
  EnvpoolXlaArray env_ids{}, actions[kMaxArrays], results[kMaxArrays];
  int32_t num_actions = 0, num_results = 0;
  if (ffi::Error e = Inputs(args, env_ids, actions, num_actions); e.failure()) return e;
  if (ffi::Error e = Outputs(rets, results, num_results); e.failure()) return e;
  return Forward(Call::kStep, pool, all_envs, timeout, env_ids, actions, num_actions, results, num_results);
}

ffi::Error AgentEnvIdsCpu(ffi::Buffer<ffi::DataType::S32> rows, ffi::ResultBuffer<ffi::DataType::S32> envs,
                          int64_t agents) {
  const int64_t n = static_cast<int64_t>(envs->element_count());
  if (agents < 1 || static_cast<int64_t>(rows.element_count()) != n * agents) {
    return ffi::Error::InvalidArgument("envpool: bad agent env_id sizes");
  }
  const int32_t* in = rows.typed_data();
  int32_t* out = envs->typed_data();
  for (int64_t e = 0; e < n; ++e) {
    const int32_t id = in[e * agents];
    for (int64_t k = 1; k < agents; ++k) {
      if (in[e * agents + k] != id) {
        return ffi::Error::InvalidArgument(
            "envpool: env_id has one id per agent row (as recv()'s info['env_id']), so rows " +
            std::to_string(e * agents) + "-" + std::to_string(e * agents + agents - 1) + " (the " +
            std::to_string(agents) + " agents of one env) must name one env, but name envs " + std::to_string(id) +
            " and " + std::to_string(in[e * agents + k]));
      }
    }
    out[e] = id;
  }
  return ffi::Error::Success();
}

}  // namespace

// Hands the handlers _core's table; 0 on success, else the version the table had.
extern "C" int64_t envpool_xla_init(const void* table) {
  const auto* api = static_cast<const EnvpoolXlaApi*>(table);
  if (api == nullptr || api->version != ENVPOOL_XLA_API_VERSION || api->struct_size < sizeof(EnvpoolXlaApi)) {
    return api == nullptr ? -1 : static_cast<int64_t>(api->version);
  }
  g_api = api;
  return 0;
}

extern "C" int64_t envpool_xla_api_version() { return ENVPOOL_XLA_API_VERSION; }

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    envpool_ng_send_cpu, SendCpu,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().RemainingArgs().Ret<ffi::AnyBuffer>().Attr<int64_t>("pool").Attr<bool>(
        "all_envs"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    envpool_ng_recv_cpu, RecvCpu,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().RemainingRets().Attr<int64_t>("pool").Attr<double>(
        "timeout"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(envpool_ng_step_cpu, StepCpu,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .RemainingArgs()
                                  .Ret<ffi::AnyBuffer>()
                                  .RemainingRets()
                                  .Attr<int64_t>("pool")
                                  .Attr<bool>("all_envs")
                                  .Attr<double>("timeout"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    envpool_ng_agent_env_ids_cpu, AgentEnvIdsCpu,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::DataType::S32>>().Ret<ffi::Buffer<ffi::DataType::S32>>().Attr<int64_t>(
        "agents"));
