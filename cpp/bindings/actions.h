// Env ids and actions as Python passes them, checked and converted to what the core reads:
// C-contiguous arrays of the spec's dtype and shape. What the core checks itself (env ids in
// range, action values in bounds, the async protocol) stays in core/protocol.h; here is what
// only NumPy knows (array kinds, shapes, dtype conversions that would lose values).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "core/spec.h"

namespace envpool::bindings {

namespace py = pybind11;

// `env_id` (None, an int or a 1-D integer array) as int32 ids; values beyond int32 are refused
// (ValueError naming the value). None gives an empty array.
py::array_t<int, py::array::c_style> EnvIds(const py::object& env_id);

// One action field as a C-contiguous array of the spec's dtype with `n` rows; TypeError or
// ValueError naming the field otherwise.
py::array ActionArray(const py::handle& obj, const ArraySpec& spec, int n);

// Every action field of a send to `n` envs (one array, or a dict with one array per field),
// into `out` (cleared first: a caller's reused vector, so a send allocates no vector).
void ActionArrays(const py::object& actions, const std::vector<ArraySpec>& specs, int n, std::vector<py::array>& out);

}  // namespace envpool::bindings
