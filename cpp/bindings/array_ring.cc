// The ring of result arrays (see array_ring.h).
#include "bindings/array_ring.h"

#include <utility>

#include "bindings/convert.h"

namespace envpool::bindings {

ArrayRing::ArrayRing(EnvPool& pool) {
  for (const auto& f : pool.layout().fields) {
    dtypes_.push_back(ToNumpy(f.dtype));
    std::vector<py::ssize_t> shape{pool.batch_size()};
    for (int d : f.shape) shape.push_back(d);
    shapes_.push_back(shape);
  }
  armed_.resize(static_cast<std::size_t>(pool.ring_size()));
  for (int pos = 0; pos < pool.ring_size(); ++pos) {
    ArraySet set = NewSet();
    pool.ArmBuffers(pos, BuffersOf(set));
    armed_[static_cast<std::size_t>(pos)] = std::move(set);
  }
}

ArraySet ArrayRing::NewSet() const {
  ArraySet set;
  set.reserve(dtypes_.size());
  for (std::size_t f = 0; f < dtypes_.size(); ++f) set.emplace_back(dtypes_[f], shapes_[f]);
  return set;
}

BatchBuffers ArrayRing::BuffersOf(ArraySet& set) {
  BatchBuffers buffers;
  for (auto& a : set) buffers.data.push_back(static_cast<char*>(a.mutable_data()));
  return buffers;
}

ArraySet ArrayRing::FreeSet() {
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

ArraySet ArrayRing::Take(EnvPool& pool) {
  ArraySet fresh = FreeSet();
  const auto pos = static_cast<std::size_t>(pool.TakeBatch(BuffersOf(fresh)));
  ArraySet out = std::move(armed_[pos]);
  armed_[pos] = std::move(fresh);
  lent_.push_back(out);                               // the whole arrays: reused once the user's references are gone
  if (lent_.size() > kMaxTracked) lent_.pop_front();  // stop tracking; the GC frees them
  if (pool.taken_rows() < pool.batch_size()) {
    // A partial batch (external episodes): the user gets views of its rows.
    py::slice rows(0, pool.taken_rows(), 1);
    for (auto& a : out) a = a[rows];
  }
  return out;
}

const BatchBuffers& ArrayRing::TakeInto(EnvPool& pool, ArraySet& spare) {
  const auto pos = static_cast<std::size_t>(pool.TakeBatch(BuffersOf(spare)));
  armed_[pos].swap(spare);
  taken_ = BuffersOf(spare);
  return taken_;
}

}  // namespace envpool::bindings
