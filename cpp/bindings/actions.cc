// Env ids and actions from Python, checked and converted (see actions.h).
#include "bindings/actions.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
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
    // info["env_id"] as recv() returned it (the async loop's case): read in place, no copy.
    // The core reads the ids only during the call that gets them (the GIL is held throughout).
    return py::reinterpret_borrow<py::array_t<int, py::array::c_style>>(arr);
  }
  // Values beyond int range cannot be ids: refused here, as passed (uint64 read as such, not
  // wrapped to negative int64).
  const auto convert = [](const auto& wide) {
    py::array_t<int, py::array::c_style> ids(wide.size());
    int* dst = ids.mutable_data();
    for (py::ssize_t i = 0; i < wide.size(); ++i) {
      const auto v = wide.data()[i];
      if (std::cmp_greater(v, INT32_MAX) || std::cmp_less(v, INT32_MIN)) {
        throw std::invalid_argument("env_id[" + std::to_string(i) + "] = " + std::to_string(v) +
                                    " is out of range (env ids are 0 to num_envs - 1)");
      }
      dst[i] = static_cast<int>(v);
    }
    return ids;
  };
  if (kind == 'u') return convert(py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr));
  return convert(py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr));
}

namespace {

ValueKind KindOfNumpy(char kind) {
  switch (kind) {
    case 'b':
      return ValueKind::kBool;
    case 'i':
    case 'u':
      return ValueKind::kInteger;
    case 'f':
      return ValueKind::kReal;
    default:
      return ValueKind::kOther;
  }
}

// The core's type of a NumPy dtype: the same kind, size and (native) byte order; none for
// float16 (the core has no C++ type for it), other byte orders or widths.
std::optional<DType> CoreDType(const py::dtype& dt) {
  for (DType t : kAllDTypes) {
    if (t != DType::kFloat16 && dt.equal(ToNumpy(t))) return t;
  }
  return std::nullopt;
}

}  // namespace

// One action field as a C-contiguous array of the spec's dtype. The core decides (kind, shape,
// integers that the dtype cannot hold: core/protocol.h); NumPy converts only what the core has
// no C++ type for (float16, other byte orders or widths).
py::array ActionArray(const py::handle& obj, const ArraySpec& spec, int n) {
  static_assert(std::is_same_v<py::ssize_t, std::ptrdiff_t>);
  py::array arr = py::array::ensure(obj);
  if (!arr) throw InputTypeError("action '" + spec.name + "' is not array-like");
  const char kind = arr.dtype().kind();
  if (!ActionKindFits(spec, KindOfNumpy(kind))) ThrowActionKind(spec, py::str(arr.dtype()).cast<std::string>());
  CheckActionShape(spec, std::span<const std::ptrdiff_t>(arr.shape(), static_cast<std::size_t>(arr.ndim())), n);
  py::dtype want = ToNumpy(spec.dtype);
  const bool contiguous = (arr.flags() & py::array::c_style) != 0;
  if (contiguous && (arr.dtype().is(want) || arr.dtype().equal(want))) return arr;
  py::module_ np = py::module_::import("numpy");
  if (spec.dtype == DType::kFloat16) return np.attr("ascontiguousarray")(arr, want);
  std::optional<DType> from = CoreDType(arr.dtype());
  if (!from) {  // float16, another width or byte order: first to the core's widest type of its kind
    from = kind == 'u' ? DType::kUInt64 : kind == 'f' ? DType::kFloat64 : kind == 'b' ? DType::kBool : DType::kInt64;
    arr = np.attr("ascontiguousarray")(arr, ToNumpy(*from));
  } else if (!contiguous) {
    arr = np.attr("ascontiguousarray")(arr);
  }
  py::array out(want, std::vector<py::ssize_t>(arr.shape(), arr.shape() + arr.ndim()));
  ConvertActions(spec, *from, arr.data(), out.mutable_data(), n);
  return out;
}

void ActionArrays(const py::object& actions, const std::vector<ArraySpec>& specs, int n, std::vector<py::array>& out) {
  out.clear();
  if (specs.size() == 1) {
    out.push_back(ActionArray(actions, specs[0], n));
    return;
  }
  if (!py::isinstance<py::dict>(actions)) throw InputTypeError("actions must be a dict of arrays for this env");
  py::dict d = actions;
  for (const auto& spec : specs) {
    if (!d.contains(spec.name)) throw std::invalid_argument("actions lack the key '" + spec.name + "'");
    out.push_back(ActionArray(d[py::str(spec.name)], spec, n));
  }
}

}  // namespace envpool::bindings
