// Conversions between the core's types and Python's (see convert.h).
#include "bindings/convert.h"

#include <cctype>
#include <climits>
#include <cstdint>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace envpool::bindings {

// Raises the Python exception class `name` of envpool.errors with `message`.
[[noreturn]] void ThrowPython(const char* name, const std::string& message) {
  py::object type = py::module_::import("envpool.errors").attr(name);
  PyErr_SetString(type.ptr(), message.c_str());
  throw py::error_already_set();
}

py::dtype ToNumpy(DType t) {
  // One dtype object per type, made at the first call: py::dtype(name) parses the name each
  // time (~1.7k instructions, an eighth of a one-env step() call; callgrind). Never destroyed:
  // a py::object must not outlive the interpreter at exit.
  static const auto& dtypes = *[] {
    auto* made = new std::vector<py::object>(std::size(kAllDTypes));
    for (DType d : kAllDTypes) (*made)[static_cast<std::size_t>(d)] = py::dtype(DTypeName(d));
    return made;
  }();
  return py::reinterpret_borrow<py::dtype>(dtypes[static_cast<std::size_t>(t)]);
}

py::dict ArraySpecToDict(const ArraySpec& a) {
  py::dict d;
  d["name"] = a.name;
  d["dtype"] = DTypeName(a.dtype);
  d["shape"] = py::tuple(py::cast(a.shape));
  d["low"] = a.low;
  d["high"] = a.high;
  d["discrete"] = a.discrete;
  d["text"] = a.text;
  return d;
}

py::dict EnvSpecToDict(const EnvSpec& spec) {
  py::dict d;
  py::list obs, action, info;
  for (const auto& a : spec.obs) obs.append(ArraySpecToDict(a));
  for (const auto& a : spec.action) action.append(ArraySpecToDict(a));
  for (const auto& a : spec.info) info.append(ArraySpecToDict(a));
  d["obs"] = obs;
  d["action"] = action;
  d["info"] = info;
  d["obs_is_tuple"] = spec.obs_is_tuple;
  d["render_shape"] = py::make_tuple(spec.render_height, spec.render_width, 3);
  d["render_fps"] = spec.render_fps;
  d["env_step_limit"] = spec.env_step_limit;
  if (!spec.agents.names.empty()) {
    py::dict agents;
    agents["names"] = spec.agents.names;
    py::list groups;
    for (const auto& g : spec.agents.groups) {
      py::dict gd;
      gd["name"] = g.name;
      gd["first_slot"] = g.first_slot;
      gd["num_slots"] = g.num_slots;
      gd["obs_size"] = g.obs_size;
      groups.append(gd);
    }
    agents["groups"] = groups;
    agents["turn_based"] = spec.agents.turn_based;
    d["agents"] = agents;
  }
  return d;
}

py::object ConfigValueToPy(const ConfigValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::dict ConfigToDict(const Config& c) {
  py::dict d;
  for (const auto& [k, v] : c.values()) d[py::str(k)] = ConfigValueToPy(v);
  return d;
}

// One Python value to a ConfigValue (the pool checks it against the default's type).
ConfigValue ToConfigValue(const std::string& key, const py::handle& obj) {
  if (py::isinstance<py::bool_>(obj) || py::isinstance(obj, py::module_::import("numpy").attr("bool_"))) {
    return obj.cast<bool>();
  }
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  if (PyLong_Check(obj.ptr()) || py::isinstance(obj, py::module_::import("numpy").attr("integer"))) {
    return obj.cast<int64_t>();
  }
  if (PyFloat_Check(obj.ptr()) || py::isinstance(obj, py::module_::import("numpy").attr("floating"))) {
    return obj.cast<double>();
  }
  if (py::isinstance<py::sequence>(obj) || py::isinstance<py::array>(obj)) {
    std::vector<std::string> strings;
    std::vector<double> numbers;
    for (auto item : obj) {
      if (py::isinstance<py::str>(item) || py::isinstance<py::bytes>(item)) {
        strings.push_back(py::str(item).cast<std::string>());
        if (py::isinstance<py::bytes>(item)) strings.back() = item.cast<std::string>();
      } else {
        try {
          numbers.push_back(item.cast<double>());
        } catch (const py::cast_error&) {
          throw std::invalid_argument("keyword argument '" + key +
                                      "' has an element that is neither a number nor a string");
        }
      }
    }
    if (!strings.empty() && !numbers.empty()) {
      throw std::invalid_argument("keyword argument '" + key + "' mixes numbers and strings");
    }
    if (!strings.empty()) return strings;
    return numbers;
  }
  throw InputTypeError("keyword argument '" + key + "' has unsupported type " +
                       py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
}

// kwargs {key: [value] or [per-env values...]} -> the pool's form.
std::vector<std::pair<std::string, std::vector<ConfigValue>>> ToKwargs(const py::dict& kwargs) {
  std::vector<std::pair<std::string, std::vector<ConfigValue>>> out;
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    std::vector<ConfigValue> values;
    for (auto v : item.second) values.push_back(ToConfigValue(key, v));
    out.emplace_back(key, std::move(values));
  }
  return out;
}

const char* KindName(char kind) {
  switch (kind) {
    case 'b':
      return "bool";
    case 'i':
    case 'u':
      return "integer";
    case 'f':
      return "floating";
    case 'c':
      return "complex";
    default:
      return "non-numeric";
  }
}

namespace {

// "type value" of what the caller passed, for a message (the value's repr cut at 40 characters).
std::string Passed(const py::handle& value) {
  std::string repr = py::repr(value).cast<std::string>();
  if (repr.size() > 40) repr = repr.substr(0, 37) + "...";
  return py::type::of(value).attr("__name__").cast<std::string>() + " " + repr;
}

// An int option: a Python or NumPy integer, not a bool (a flag where a number belongs is a mistake).
bool IsInt(const py::handle& value) {
  static const auto* numpy_integer = new py::object(py::module_::import("numpy").attr("integer"));
  return !PyBool_Check(value.ptr()) && (PyLong_Check(value.ptr()) || py::isinstance(value, *numpy_integer));
}

int IntOption(const char* name, const py::handle& value) {
  if (!IsInt(value)) throw py::type_error(std::string(name) + " must be an int, got " + Passed(value));
  const py::int_ number(py::reinterpret_borrow<py::object>(value));
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  if (overflow != 0 || v < INT32_MIN || v > INT32_MAX) {
    throw std::invalid_argument(std::string(name) + " is out of range, got " + py::str(number).cast<std::string>());
  }
  return static_cast<int>(v);
}

std::optional<int> OptionalInt(const char* name, const py::handle& value) {
  if (value.is_none()) return std::nullopt;
  return IntOption(name, value);
}

std::optional<uint64_t> SeedOption(const py::handle& value) {
  if (value.is_none()) return std::nullopt;
  if (!IsInt(value)) throw py::type_error("seed must be an int, got " + Passed(value));
  const py::int_ number(py::reinterpret_borrow<py::object>(value));
  if (number < py::int_(0))
    throw std::invalid_argument("seed must be >= 0, got " + py::str(number).cast<std::string>());
  const unsigned long long v = PyLong_AsUnsignedLongLong(number.ptr());
  if (PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    throw std::invalid_argument("seed=" + py::str(number).cast<std::string>() +
                                " does not fit in 64 bits (seeds must be < 2**64)");
  }
  return static_cast<uint64_t>(v);
}

double SpinOption(const py::handle& value) {
  if (PyBool_Check(value.ptr()) || !(PyFloat_Check(value.ptr()) || IsInt(value))) {
    throw py::type_error("spin_us must be a number of microseconds, got " + Passed(value));
  }
  return value.cast<double>();
}

}  // namespace

AutoresetMode ToAutoreset(const py::handle& mode) {
  // gymnasium's AutoresetMode is an Enum whose values are its names ("NextStep", ...).
  const bool is_enum = py::hasattr(mode, "value") && py::isinstance<py::str>(mode.attr("value"));
  if (py::isinstance<py::str>(mode) || is_enum) {
    std::string key;
    for (char c : (is_enum ? mode.attr("value") : mode).cast<std::string>()) {
      if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (key == "nextstep") return AutoresetMode::kNextStep;
    if (key == "samestep") return AutoresetMode::kSameStep;
    if (key == "disabled") return AutoresetMode::kDisabled;
  }
  throw std::invalid_argument(
      "autoreset_mode must be a gymnasium.vector.AutoresetMode or one of 'next_step', 'same_step', 'disabled'; got " +
      py::repr(mode).cast<std::string>());
}

const char* AutoresetName(AutoresetMode mode) {
  switch (mode) {
    case AutoresetMode::kNextStep:
      return "next_step";
    case AutoresetMode::kSameStep:
      return "same_step";
    case AutoresetMode::kDisabled:
      return "disabled";
  }
  return "next_step";
}

PoolOptions ToPoolOptions(const py::handle& num_envs, const py::handle& batch_size, const py::handle& num_threads,
                          const py::handle& seed, const py::handle& max_episode_steps, const py::handle& autoreset_mode,
                          const py::handle& spin_us, const py::handle& thread_affinity_offset) {
  PoolOptions options;
  options.num_envs = IntOption("num_envs", num_envs);
  options.batch_size = OptionalInt("batch_size", batch_size);
  options.num_threads = OptionalInt("num_threads", num_threads);
  options.seed = SeedOption(seed);
  options.max_episode_steps = OptionalInt("max_episode_steps", max_episode_steps);
  options.autoreset = ToAutoreset(autoreset_mode);
  options.spin_us = SpinOption(spin_us);
  options.thread_affinity_offset = IntOption("thread_affinity_offset", thread_affinity_offset);
  CheckPoolOptions(options);
  return options;
}

DType DTypeFromName(const std::string& name) {
  for (DType t : kAllDTypes) {
    if (name == DTypeName(t)) return t;
  }
  std::string message = "unsupported dtype '";
  message += name;
  message += "' (supported:";
  for (DType t : kAllDTypes) (message += ' ') += DTypeName(t);
  message += ")";
  throw std::invalid_argument(message);
}

ArraySpec DictToArraySpec(const py::handle& d) {
  ArraySpec a;
  a.name = d["name"].cast<std::string>();
  a.dtype = DTypeFromName(d["dtype"].cast<std::string>());
  a.shape = d["shape"].cast<std::vector<int>>();
  a.low = d["low"].cast<std::vector<double>>();
  a.high = d["high"].cast<std::vector<double>>();
  a.discrete = d["discrete"].cast<bool>();
  a.text = d.attr("get")("text", false).cast<bool>();  // optional: Python envs' specs may leave it out
  return a;
}

// The inverse of EnvSpecToDict (render_shape and agents aside: Python pools keep a multi-agent
// env's agents in their front end, envpool.multiagent): envs described from Python.
EnvSpec DictToEnvSpec(const py::dict& d) {
  EnvSpec spec;
  for (auto a : d["obs"]) spec.obs.push_back(DictToArraySpec(a));
  for (auto a : d["action"]) spec.action.push_back(DictToArraySpec(a));
  if (d.contains("info")) {
    for (auto a : d["info"]) spec.info.push_back(DictToArraySpec(a));
  }
  spec.obs_is_tuple = d.contains("obs_is_tuple") && d["obs_is_tuple"].cast<bool>();
  return spec;
}

py::dict LayoutToDict(const ProcessLayout& l) {
  py::dict d;
  d["num_envs"] = l.num_envs;
  d["num_workers"] = l.num_workers;
  d["worker_start"] = l.worker_start;
  d["info_capacity"] = l.info_capacity;
  d["error_capacity"] = l.error_capacity;
  d["workers"] = l.workers;
  d["commands"] = l.commands;
  d["envs"] = l.envs;
  d["env_stride"] = l.env_stride;
  d["action"] = l.action;
  d["obs_step"] = l.obs_step;
  d["obs_reset"] = l.obs_reset;
  d["info_step"] = l.info_step;
  d["info_reset"] = l.info_reset;
  d["error"] = l.error;
  d["total_bytes"] = l.total_bytes;
  py::dict env;  // fixed fields of an env block
  env["op"] = ProcessLayout::kOp;
  env["reseed"] = ProcessLayout::kReseed;
  env["time_limit"] = ProcessLayout::kTimeLimit;
  env["failed"] = ProcessLayout::kFailed;
  env["info_step_len"] = ProcessLayout::kInfoStepLen;
  env["info_reset_len"] = ProcessLayout::kInfoResetLen;
  env["error_len"] = ProcessLayout::kErrorLen;
  env["seed"] = ProcessLayout::kSeed;
  env["reward"] = ProcessLayout::kReward;
  env["terminated"] = ProcessLayout::kTerminated;
  env["truncated"] = ProcessLayout::kTruncated;
  d["env_fields"] = env;
  return d;
}

ProcessLayout LayoutFromDict(const py::dict& d) {
  ProcessLayout l;
  l.num_envs = d["num_envs"].cast<std::size_t>();
  l.num_workers = d["num_workers"].cast<std::size_t>();
  l.worker_start = d["worker_start"].cast<std::vector<int>>();
  l.info_capacity = d["info_capacity"].cast<std::size_t>();
  l.error_capacity = d["error_capacity"].cast<std::size_t>();
  l.workers = d["workers"].cast<std::size_t>();
  l.commands = d["commands"].cast<std::size_t>();
  l.envs = d["envs"].cast<std::size_t>();
  l.env_stride = d["env_stride"].cast<std::size_t>();
  l.action = d["action"].cast<std::vector<std::size_t>>();
  l.obs_step = d["obs_step"].cast<std::vector<std::size_t>>();
  l.obs_reset = d["obs_reset"].cast<std::vector<std::size_t>>();
  l.info_step = d["info_step"].cast<std::size_t>();
  l.info_reset = d["info_reset"].cast<std::size_t>();
  l.error = d["error"].cast<std::size_t>();
  l.total_bytes = d["total_bytes"].cast<std::size_t>();
  if (l.worker_start.size() != l.num_workers + 1) throw std::invalid_argument("bad process layout");
  l.ring_start = ProcessLayout::RingStarts(l.worker_start);  // derived, as in ProcessLayout::For
  return l;
}

}  // namespace envpool::bindings
