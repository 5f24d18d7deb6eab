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

AutoresetMode ParseAutoreset(const std::string& mode);
// The options every pool takes from Python.
PoolOptions Options(int num_envs, int batch_size, int max_episode_steps, const std::string& autoreset_mode);

py::dict LayoutToDict(const ProcessLayout& l);
ProcessLayout LayoutFromDict(const py::dict& d);

}  // namespace envpool::bindings
