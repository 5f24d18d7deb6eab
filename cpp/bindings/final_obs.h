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

// Makes one field's per-row values. A row of a discrete field becomes a Python int (as
// gymnasium's envs return Discrete observations); any other row an array of its own (a copy: a
// kept final observation must not keep the batch's memory from being reused). Arrays are made
// with NumPy's C API directly: pybind11's py::array constructor allocates shape and stride
// vectors per call, and a batch of tiny envs finishes dozens of episodes per step.
class FinalFieldMaker {
 public:
  FinalFieldMaker(const ArraySpec& spec, const py::array& field)
      : spec_(spec), field_(field), bytes_(spec.RowBytes()), descr_(field.dtype()) {
    for (int d : spec.shape) dims_.push_back(static_cast<Py_intptr_t>(d));
  }

  py::object Row(py::ssize_t row) const {
    const char* src = static_cast<const char*>(field_.data()) + static_cast<std::size_t>(row) * bytes_;
    if (spec_.discrete) return py::int_(IntegerAt(spec_.dtype, src));
    auto& api = py::detail::npy_api::get();
    PyObject* value =
        api.PyArray_NewFromDescr_(api.PyArray_Type_, descr_.inc_ref().ptr(),  // steals the descr
                                  static_cast<int>(dims_.size()), dims_.data(), nullptr, nullptr, 0, nullptr);
    if (value == nullptr) throw py::error_already_set();
    std::memcpy(py::detail::array_proxy(value)->data, src, bytes_);
    return py::reinterpret_steal<py::object>(value);
  }

 private:
  const ArraySpec& spec_;
  const py::array& field_;
  std::size_t bytes_;
  py::dtype descr_;
  std::vector<Py_intptr_t> dims_;
};

// `fields`: the batch's final_<obs> arrays, in spec order. Several obs arrays make a tuple
// (obs_is_tuple) or a dict by name, as the pool's observation space nests them.
inline py::array FinalObsObjects(const EnvSpec& spec, const std::vector<py::array>& fields, const bool* mask,
                                 py::ssize_t rows) {
  std::vector<FinalFieldMaker> makers;
  makers.reserve(fields.size());
  for (std::size_t f = 0; f < fields.size(); ++f) makers.emplace_back(spec.obs[f], fields[f]);
  py::array objects(py::dtype("O"), std::vector<py::ssize_t>{rows});
  auto** slots = static_cast<PyObject**>(objects.mutable_data());
  for (py::ssize_t i = 0; i < rows; ++i) {
    py::object value = py::none();
    if (mask[i]) {
      if (makers.size() == 1) {
        value = makers[0].Row(i);
      } else if (spec.obs_is_tuple) {
        py::tuple t(makers.size());
        for (std::size_t f = 0; f < makers.size(); ++f) t[f] = makers[f].Row(i);
        value = std::move(t);
      } else {
        py::dict d;
        for (std::size_t f = 0; f < makers.size(); ++f) d[py::str(spec.obs[f].name)] = makers[f].Row(i);
        value = std::move(d);
      }
    }
    Py_XDECREF(slots[i]);  // a new object array holds NULLs (read as None)
    slots[i] = value.release().ptr();
  }
  return objects;
}

}  // namespace envpool
