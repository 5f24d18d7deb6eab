// Conversions between the core's types and Python's: specs and configs to dicts and back,
// kwargs, dtypes, pool options, process layouts; and the Python exceptions the bindings raise.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "core/pool.h"
#include "core/pool_options.h"
#include "core/process_channel.h"
#include "core/protocol.h"
#include "core/spec.h"

namespace envpool::bindings {

namespace py = pybind11;

// Using a pool after close(): envpool.errors.ClosedError (a gymnasium ClosedEnvironmentError).
class PoolClosedError : public ProtocolError {
  using ProtocolError::ProtocolError;
};

// Raises the Python exception class `name` of envpool.errors with `message`.
[[noreturn]] void ThrowPython(const char* name, const std::string& message);

py::dtype ToNumpy(DType t);
DType DTypeFromName(const std::string& name);
// NumPy's name for an array kind ('b', 'i', 'f', ...), for error messages.
const char* KindName(char kind);

py::dict ArraySpecToDict(const ArraySpec& a);
py::dict EnvSpecToDict(const EnvSpec& spec);
ArraySpec DictToArraySpec(const py::handle& d);
// The inverse of EnvSpecToDict (render_shape aside): envs described from Python.
EnvSpec DictToEnvSpec(const py::dict& d);

py::object ConfigValueToPy(const ConfigValue& v);
py::dict ConfigToDict(const Config& c);
// One Python value to a ConfigValue (the pool checks it against the default's type).
ConfigValue ToConfigValue(const std::string& key, const py::handle& obj);
// kwargs {key: [value] or [per-env values...]} -> the pool's form.
std::vector<std::pair<std::string, std::vector<ConfigValue>>> ToKwargs(const py::dict& kwargs);

// The pool options (core/pool_options.h) from Python's values, each converted by its type and a
// wrong type a TypeError naming the option; then checked (CheckPoolOptions: a ValueError).
PoolOptions ToPoolOptions(const py::handle& num_envs, const py::handle& batch_size, const py::handle& num_threads,
                          const py::handle& seed, const py::handle& max_episode_steps, const py::handle& autoreset_mode,
                          const py::handle& spin_us, const py::handle& thread_affinity_offset);
// A gymnasium AutoresetMode, or its name in any of gymnasium's spellings ("next_step", "NextStep").
AutoresetMode ToAutoreset(const py::handle& mode);
// The core's name of a mode: "next_step", "same_step", "disabled".
const char* AutoresetName(AutoresetMode mode);

py::dict LayoutToDict(const ProcessLayout& l);
ProcessLayout LayoutFromDict(const py::dict& d);

}  // namespace envpool::bindings
