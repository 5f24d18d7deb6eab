// The NumPy arrays results are written into. Each ring position of the pool (EnvPool::
// ArmBuffers) is armed with a set of arrays, one per batch field, before its batch is
// assembled; the taken batch's set goes to the user as is, and its position is re-armed with
// a set handed out earlier that nobody references any more (refcount 1), or a new one. So
// results a user keeps are never overwritten, and a loop that drops them reuses memory
// without copies.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <deque>
#include <vector>

#include "core/buffers.h"
#include "core/pool.h"

namespace envpool::bindings {

namespace py = pybind11;

using ArraySet = std::vector<py::array>;

class ArrayRing {
 public:
  // Arms every ring position of `pool`.
  explicit ArrayRing(EnvPool& pool);

  // Takes the ready batch (EnvPool::TakeBatch) and returns its arrays; a partial batch's are
  // views of its rows. With the GIL.
  ArraySet Take(EnvPool& pool);

  // The same without the GIL (an XLA handler): the batch lands in `spare`, whose arrays
  // re-arm its position; returns where the batch lies, in `spare`, until the next call.
  const BatchBuffers& TakeInto(EnvPool& pool, ArraySet& spare);

  ArraySet NewSet() const;

 private:
  static BatchBuffers BuffersOf(ArraySet& set);
  // A set handed out before whose arrays only we still reference, else a new one.
  ArraySet FreeSet();

  static constexpr std::size_t kMaxTracked = 8;  // sets tracked for reuse; older ones go to the GC

  std::vector<py::dtype> dtypes_;
  std::vector<std::vector<py::ssize_t>> shapes_;
  std::vector<ArraySet> armed_;  // the arrays armed at each ring position
  std::deque<ArraySet> lent_;    // sets handed to the user, reusable once unreferenced
  BatchBuffers taken_;           // TakeInto's result
};

}  // namespace envpool::bindings
