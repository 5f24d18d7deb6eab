// Env ids and actions from Python, checked and converted (see actions.h).
#include "bindings/actions.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bindings/convert.h"

namespace envpool::bindings {

py::array_t<int, py::array::c_style> EnvIds(const py::object& env_id) {
  // Never destroyed: a py::object must not outlive the interpreter at exit.
  static const py::dtype& int_dtype = *new py::dtype(py::dtype::of<int>());
  if (env_id.is_none()) return py::array_t<int, py::array::c_style>();
  py::array arr = py::array::ensure(env_id);
  if (!arr) throw InputTypeError("env_id must be an array of integers");
  if (arr.ndim() == 0) arr = arr.attr("reshape")(1);
  const char kind = arr.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    throw InputTypeError(std::string("env_id must hold integers, got ") + KindName(kind) + " values");
  }
  if (arr.ndim() != 1) throw std::invalid_argument("env_id must be 1-D, got " + std::to_string(arr.ndim()) + " dims");
  if ((arr.flags() & py::array::c_style) && arr.dtype().equal(int_dtype)) {
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
      throw InputTypeError("action '" + spec.name + "' must hold bools, got " + KindName(kind) + " values of dtype " +
                           py::str(arr.dtype()).cast<std::string>());
    }
  } else if (spec.discrete || !IsFloating(spec.dtype)) {
    if (!integers) {
      throw InputTypeError("action '" + spec.name + "' must hold integers (a discrete action), got " + KindName(kind) +
                           " values of dtype " + py::str(arr.dtype()).cast<std::string>());
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
    for (py::ssize_t i = 0; i < arr.ndim(); ++i)
      got += std::to_string(arr.shape(i)) + (arr.ndim() == 1 ? "," : i + 1 < arr.ndim() ? ", " : "");
    for (std::size_t i = 0; i < want.size(); ++i)
      expected += std::to_string(want[i]) + (want.size() == 1 ? "," : i + 1 < want.size() ? ", " : "");
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

std::vector<py::array> ActionArrays(const py::object& actions, const std::vector<ArraySpec>& specs, int n) {
  std::vector<py::array> out;
  if (specs.size() == 1) {
    out.push_back(ActionArray(actions, specs[0], n));
    return out;
  }
  if (!py::isinstance<py::dict>(actions)) throw InputTypeError("actions must be a dict of arrays for this env");
  py::dict d = actions;
  for (const auto& spec : specs) {
    if (!d.contains(spec.name)) throw std::invalid_argument("actions lack the key '" + spec.name + "'");
    out.push_back(ActionArray(d[py::str(spec.name)], spec, n));
  }
  return out;
}

}  // namespace envpool::bindings
