// A taken batch as the front ends get it: gymnasium's (obs, reward, terminated, truncated,
// info), with same-step autoreset's final_obs / final_info, and envpool.errors.EnvError when
// some env failed (carrying the batch, so the other envs' results are not lost).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings/array_ring.h"
#include "core/pool.h"

namespace envpool::bindings {

namespace py = pybind11;

using EnvErrors = std::vector<std::pair<int, std::string>>;  // (env id, what it raised)

// `out`: the batch's arrays (ArrayRing::Take). `with_ids`: info holds env_id and elapsed_step
// (the async loop's; gymnasium's full-batch info has neither). `final_obs_objects`: final_obs
// as gymnasium's object array (native pools) rather than one dense array per field (process
// pools, whose front end nests them with the variable-size values only it knows). An env that
// failed (`errors`) has no final_obs.
py::tuple BatchResult(const EnvPool& pool, const ArraySet& out, bool with_ids, bool final_obs_objects,
                      const EnvErrors& errors);

// Raises envpool.errors.EnvError(ids, messages, result).
[[noreturn]] void RaiseEnvError(const EnvErrors& errors, const py::tuple& result);

}  // namespace envpool::bindings
