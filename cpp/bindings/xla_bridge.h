// The _core side of envs.xla(): the C function table of xla_ffi/envpool_xla_api.h, which the
// XLA FFI handlers call on XLA's threads, without the Python GIL.
//
// A pool takes part once Python asks for its id (Register, at its first xla()). Ids are never
// reused: a call naming a pool that was closed or deleted fails with FAILED_PRECONDITION
// (never touching freed memory), so a jitted function that outlives its pool raises.
//
// Concurrency: a call enters the pool through Port::TryEnter, the same claim the Python
// methods take, so a jitted function and a Python call never use one pool at once (the later
// one gets an error saying so). Unregister (the pool's close() or destruction) waits until a
// call inside has left; a recv waiting for its batch gives up at once when that happens.
//
// Today recv copies the complete batch into XLA's result buffers (converting float64 to
// float32 and int64 to int32 when jax runs without x64). A pool that writes batches straight
// into caller-supplied buffers would let recv skip that copy without changing the table.
#pragma once

#include <cstdint>
#include <string>

#include "core/buffers.h"
#include "core/pool.h"
#include "xla_ffi/envpool_xla_api.h"

namespace envpool::xla {

// What a pool offers the table's functions (implemented by the Python module's pool). Every
// method but TryEnter is called only between a successful TryEnter and Leave.
class Port {
 public:
  virtual ~Port() = default;
  // Claims the pool for one call; false when another call (XLA or Python) is inside.
  virtual bool TryEnter() = 0;
  virtual void Leave() = 0;
  virtual EnvPool& pool() = 0;
  // After EnvPool::WaitBatch said kReady: takes that batch (EnvPool::TakeBatch, re-arming its
  // ring position with memory the port owns) and returns where it lies, valid until the next
  // call.
  virtual const BatchBuffers& TakeBatch() = 0;
  // `bytes` of memory for action field `field`'s converted rows, alive until the pool is
  // destroyed (a full-batch step's envs read them in place until its batch is taken).
  virtual char* ActionScratch(std::size_t field, std::size_t bytes) = 0;
};

// Makes `port` reachable by the table; `description` names it in errors ("CartPole-v1, 8
// envs"). Called with the GIL held. Returns the id the handlers are given.
int64_t Register(Port* port, std::string description);
// Makes `id` unreachable: later calls fail saying the pool is closed. Returns once no call is
// inside the port (a waiting recv is told to give up). Called with the GIL held; the calls it
// waits for never take the GIL.
void Unregister(int64_t id);

// The table, filled once.
const EnvpoolXlaApi* Api();

}  // namespace envpool::xla
