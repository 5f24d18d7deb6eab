/* envpool's XLA seam: the C function table that envpool._core exports for the XLA FFI handlers.
 *
 * envs.xla() steps a pool from inside jit-compiled code through XLA FFI custom calls. Their
 * handlers (cpp/xla_ffi/handlers.cc) are compiled against the XLA FFI headers of the jaxlib the
 * user has installed, at first use (envpool/xla/build.py), so that `pip install envpool-ng`
 * needs no jax. They do not link against envpool._core: they get this table, a plain C struct
 * handed over once through a PyCapsule (`_core.xla_api()`, name ENVPOOL_XLA_CAPSULE) and passed
 * to the handler library's envpool_xla_init(). Everything that knows about pools lives on the
 * _core side (cpp/bindings/xla_bridge.cc); the handlers only unpack XLA buffers and forward them.
 *
 * Versioning: a change that breaks callers bumps ENVPOOL_XLA_API_VERSION (the handler library
 * refuses a table of another version, and its cache key includes this file). Functions may be
 * appended at the end of the struct without a bump; callers check struct_size.
 *
 * Threads: the functions are called on XLA's threads without the Python GIL; a pool is entered
 * by one caller at a time (a second concurrent caller gets ENVPOOL_XLA_FAILED_PRECONDITION).
 */
#ifndef ENVPOOL_XLA_FFI_ENVPOOL_XLA_API_H_
#define ENVPOOL_XLA_FFI_ENVPOOL_XLA_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENVPOOL_XLA_API_VERSION 1
#define ENVPOOL_XLA_CAPSULE "envpool._core.xla_api"

/* Element types of the arrays passed through the table (XLA's PRED, S8, S32, S64, U8, F32, F64). */
enum EnvpoolXlaDType {
  ENVPOOL_XLA_UNSUPPORTED = 0,
  ENVPOOL_XLA_BOOL = 1,
  ENVPOOL_XLA_INT8 = 2,
  ENVPOOL_XLA_INT32 = 3,
  ENVPOOL_XLA_INT64 = 4,
  ENVPOOL_XLA_UINT8 = 5,
  ENVPOOL_XLA_FLOAT32 = 6,
  ENVPOOL_XLA_FLOAT64 = 7
};

/* Status codes; the handlers turn them into the XLA FFI error of the same name. */
enum EnvpoolXlaStatus {
  ENVPOOL_XLA_OK = 0,
  ENVPOOL_XLA_INVALID_ARGUMENT = 1,    /* bad action values, env ids, shapes or dtypes */
  ENVPOOL_XLA_FAILED_PRECONDITION = 2, /* the pool is closed, busy, or the protocol is broken */
  ENVPOOL_XLA_DEADLINE_EXCEEDED = 3,   /* recv's timeout passed (nothing is lost) */
  ENVPOOL_XLA_INTERNAL = 4             /* an env raised; the message names it */
};

/* A dense row-major array: `count` elements of `dtype` at `data`. */
typedef struct EnvpoolXlaArray {
  void* data;
  int32_t dtype; /* an EnvpoolXlaDType */
  int64_t count;
} EnvpoolXlaArray;

/* Every function returns an EnvpoolXlaStatus; on failure it writes a NUL-terminated message of
 * at most `error_size` bytes (cut if longer) into `error`. `pool` is the id `_core.Pool.xla_id()`
 * returned. `env_ids` (int32) NULL means all envs. `actions`: one array per action field of the
 * pool's spec, `num_envs`/`len(env_ids)` rows each; any numeric dtype of the right kind is
 * converted to the spec's. `results`: one array per batch field (`_core.Pool.batch_fields`, in
 * that order), `batch_size` rows each, in the field's dtype or a narrower one of the same kind
 * (float64 -> float32, int64 -> int32, as jax without x64 has them). */
typedef struct EnvpoolXlaApi {
  uint32_t version;     /* ENVPOOL_XLA_API_VERSION */
  uint32_t struct_size; /* sizeof(EnvpoolXlaApi) of the _core that filled it */
  /* Hands actions to envs and returns at once (the pool's send()). */
  int32_t (*send)(int64_t pool, const EnvpoolXlaArray* env_ids, const EnvpoolXlaArray* actions, int32_t num_actions,
                  char* error, size_t error_size);
  /* Waits for the next batch (at most timeout_s seconds; < 0: no limit) and copies it into
   * `results` (the pool's recv()). */
  int32_t (*recv)(int64_t pool, double timeout_s, EnvpoolXlaArray* results, int32_t num_results, char* error,
                  size_t error_size);
  /* send then recv in one call: the caller may step envs itself meanwhile and the pool reads
   * the actions in place (the pool's step()). */
  int32_t (*step)(int64_t pool, const EnvpoolXlaArray* env_ids, const EnvpoolXlaArray* actions, int32_t num_actions,
                  double timeout_s, EnvpoolXlaArray* results, int32_t num_results, char* error, size_t error_size);
} EnvpoolXlaApi;

#ifdef __cplusplus
}
#endif

#endif /* ENVPOOL_XLA_FFI_ENVPOOL_XLA_API_H_ */
