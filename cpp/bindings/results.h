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

// The dm_env front end's per-row fields of a batch (envpool/frontends/dm.py, `_time_step`):
// (step_type, discount) with step_type int32 FIRST (0) where `elapsed_step` is 0, else LAST (2)
// where `terminated` or `truncated`, else MID (1); discount float64 0 where `terminated`, else
// 1, then numpy.minimum(discount, env_discount) where the env has its own (`env_discount`, any
// float array; None: none). One pass instead of six numpy calls; the same values and dtypes as
// the numpy expressions it replaces. None where the inputs are not what a pool gives (1-D
// elapsed_step int32/int64, terminated/truncated bool, all of one length): the caller then
// computes them with numpy.
py::object DmStepFields(const py::array& elapsed_step, const py::array& terminated, const py::array& truncated,
                        const py::object& env_discount);

// Raises envpool.errors.EnvError(ids, messages, result).
[[noreturn]] void RaiseEnvError(const EnvErrors& errors, const py::tuple& result);

}  // namespace envpool::bindings
