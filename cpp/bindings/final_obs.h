// gymnasium's info["final_obs"] (same-step autoreset) for the Python module: an object array
// with each finished env's last observation and None elsewhere, as SyncVectorEnv returns it.
// Built here, not in Python, because a batch of tiny envs finishes many episodes per step.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/spec.h"

namespace envpool {

namespace py = pybind11;

template <typename T>
int64_t Read(const char* src) {
  T value;
  std::memcpy(&value, src, sizeof(T));
  return static_cast<int64_t>(value);
}

// The integer at `src` of a discrete field's dtype (int64 for native envs' ArraySpec::Discrete).
inline int64_t IntegerAt(DType dtype, const char* src) {
  switch (dtype) {
    case DType::kInt8:
      return Read<int8_t>(src);
    case DType::kInt16:
      return Read<int16_t>(src);
    case DType::kInt32:
      return Read<int32_t>(src);
    case DType::kUInt8:
      return Read<uint8_t>(src);
    case DType::kUInt16:
      return Read<uint16_t>(src);
    case DType::kUInt32:
      return Read<uint32_t>(src);
    case DType::kUInt64:
      return Read<uint64_t>(src);  // discrete ranges fit in int64
    default:
      return Read<int64_t>(src);
  }
}

// One field's value of row `row` of `field` (whose rows have `spec`'s dtype and shape): a
// Python int for a discrete field (as gymnasium's envs return Discrete observations), else an
// array of its own (a copy: it must not keep the batch's memory from being reused).
inline py::object FinalFieldValue(const ArraySpec& spec, const py::array& field, py::ssize_t row) {
  const std::size_t bytes = spec.RowBytes();
  const char* src = static_cast<const char*>(field.data()) + static_cast<std::size_t>(row) * bytes;
  if (spec.discrete) return py::int_(IntegerAt(spec.dtype, src));
  std::vector<py::ssize_t> shape(spec.shape.begin(), spec.shape.end());
  py::array value(field.dtype(), shape);
  std::memcpy(value.mutable_data(), src, bytes);
  return value;
}

// `fields`: the batch's final_<obs> arrays, in spec order. Several obs arrays make a tuple
// (obs_is_tuple) or a dict by name, as the pool's observation space nests them.
inline py::array FinalObsObjects(const EnvSpec& spec, const std::vector<py::array>& fields, const bool* mask,
                                 py::ssize_t rows) {
  py::array objects(py::dtype("O"), std::vector<py::ssize_t>{rows});
  auto** slots = static_cast<PyObject**>(objects.mutable_data());
  for (py::ssize_t i = 0; i < rows; ++i) {
    py::object value = py::none();
    if (mask[i]) {
      if (fields.size() == 1) {
        value = FinalFieldValue(spec.obs[0], fields[0], i);
      } else if (spec.obs_is_tuple) {
        py::tuple t(fields.size());
        for (std::size_t f = 0; f < fields.size(); ++f) t[f] = FinalFieldValue(spec.obs[f], fields[f], i);
        value = std::move(t);
      } else {
        py::dict d;
        for (std::size_t f = 0; f < fields.size(); ++f) d[py::str(spec.obs[f].name)] = FinalFieldValue(spec.obs[f], fields[f], i);
        value = std::move(d);
      }
    }
    Py_XDECREF(slots[i]);  // a new object array holds NULLs (read as None)
    slots[i] = value.release().ptr();
  }
  return objects;
}

}  // namespace envpool
