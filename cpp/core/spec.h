// Specs: what an environment declares about itself, independent of any pool.
//
//  * ArraySpec  - one named array (an observation, an action, an info field):
//                 dtype, per-env shape and bounds. A discrete space is an
//                 integer ArraySpec with shape {} and inclusive [low, high].
//  * Config     - the env's constructor kwargs (name -> value) with defaults.
//  * EnvSpec    - the arrays an env reads and writes, given its config.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace envpool {

// New dtypes are appended: plugins built against an older list keep their values.
enum class DType {
  kBool,
  kInt8,
  kInt32,
  kInt64,
  kUInt8,
  kFloat32,
  kFloat64,
  kInt16,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16
};

// Every dtype, for lookups by name.
inline constexpr DType kAllDTypes[] = {DType::kBool,   DType::kInt8,    DType::kInt16,   DType::kInt32,
                                       DType::kInt64,  DType::kUInt8,   DType::kUInt16,  DType::kUInt32,
                                       DType::kUInt64, DType::kFloat16, DType::kFloat32, DType::kFloat64};

inline std::size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8:
      return 1;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kFloat16:
      return 2;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
      return 8;
  }
  return 0;
}

inline bool IsFloating(DType t) { return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64; }

// NumPy's name for the dtype ("float32", ...), used by the Python layer.
inline const char* DTypeName(DType t) {
  constexpr const char* kNames[] = {"bool",    "int8",  "int32",  "int64",  "uint8",  "float32",
                                    "float64", "int16", "uint16", "uint32", "uint64", "float16"};  // enum order
  const auto i = static_cast<std::size_t>(t);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "?";
}

struct ArraySpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int> shape;    // per env; {} is a scalar
  std::vector<double> low;   // one bound per element, or a single value broadcast
  std::vector<double> high;  // (empty means unbounded for floats)
  bool discrete = false;     // an integer scalar in [low, high] (gymnasium Discrete)
  bool text = false;         // a string: zero-padded UTF-8 bytes (uint8, one dimension)

  std::size_t NumElements() const {
    std::size_t n = 1;
    for (int d : shape) n *= static_cast<std::size_t>(d);
    return n;
  }
  std::size_t RowBytes() const { return NumElements() * DTypeSize(dtype); }

  static ArraySpec Box(std::string name, DType dtype, std::vector<int> shape, std::vector<double> low,
                       std::vector<double> high) {
    return ArraySpec{std::move(name), dtype, std::move(shape), std::move(low), std::move(high), false};
  }
  // A string of at most `width` bytes, zero-padded UTF-8 in the pool's rows (an array form for
  // batches); the single-env view (python/envpool/frontends/single_env.py) gives it as a str in
  // a gymnasium Text space.
  static ArraySpec Text(std::string name, int width) {
    ArraySpec a = Box(std::move(name), DType::kUInt8, {width}, {0}, {255});
    a.text = true;
    return a;
  }
  // A gymnasium Discrete(n, start): values start .. start + n - 1, stored as int64.
  static ArraySpec Discrete(std::string name, int64_t n, int64_t start = 0) {
    return ArraySpec{
        std::move(name), DType::kInt64, {}, {static_cast<double>(start)}, {static_cast<double>(start + n - 1)}, true};
  }
};

// A config value is one of a few plain types; lists cover map descriptions and weight vectors.
using ConfigValue = std::variant<bool, int64_t, double, std::string, std::vector<double>, std::vector<std::string>>;

inline const char* ConfigTypeName(const ConfigValue& v) {
  switch (v.index()) {
    case 0:
      return "bool";
    case 1:
      return "int";
    case 2:
      return "float";
    case 3:
      return "str";
    case 4:
      return "list[float]";
    default:
      return "list[str]";
  }
}

// Constructor kwargs of one env. Keys are fixed by the env's defaults; the pool checks that
// user kwargs name existing keys with compatible types before any env is built.
class Config {
 public:
  Config() = default;
  Config(std::initializer_list<std::pair<const std::string, ConfigValue>> init) : values_(init) {}

  template <typename T>
  T Get(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) throw std::out_of_range("config has no key '" + key + "'");
    if constexpr (std::is_same_v<T, double>) {
      // Integers are accepted where a float is expected (g=10 means g=10.0).
      if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
    }
    if (auto* v = std::get_if<T>(&it->second)) return *v;
    throw std::invalid_argument("config key '" + key + "' has type " + ConfigTypeName(it->second));
  }
  void Set(const std::string& key, ConfigValue value) { values_[key] = std::move(value); }
  bool Has(const std::string& key) const { return values_.count(key) != 0; }
  const std::map<std::string, ConfigValue>& values() const { return values_; }

 private:
  std::map<std::string, ConfigValue> values_;
};

// Multi-agent envs (see core/agents.h): one slot per possible agent, in a fixed order. Agents
// whose observation spaces differ (adversaries and good agents) are groups of consecutive slots.
struct AgentGroup {
  std::string name;    // e.g. "adversary"
  int first_slot = 0;  // the group's slots: first_slot .. first_slot + num_slots - 1
  int num_slots = 0;
  std::vector<int> obs_size;  // per obs array: the group's size of its last dimension (empty: all of it)
};

struct AgentSpec {
  std::vector<std::string> names;  // one per slot ("agent_0", ...): PettingZoo's possible_agents
  std::vector<AgentGroup> groups;  // cover the slots in order
  bool turn_based = false;         // one agent (or some) acts per step: needs_action says which
  int NumSlots() const { return static_cast<int>(names.size()); }
};

// The most obs, action or info arrays one env may declare: per-step code keeps one pointer per
// array on the stack (EpisodeRules::Run, the executors), and EnvPool refuses larger specs.
inline constexpr std::size_t kMaxArraysPerKind = 32;

// What an env reads and writes each step. Built from a config because some spaces depend on
// it (a map's size, whether positions are excluded from the observation, ...).
struct EnvSpec {
  std::vector<ArraySpec> obs;     // usually one array named "obs"
  std::vector<ArraySpec> action;  // usually one array named "action"
  std::vector<ArraySpec> info;    // extra per-step info arrays the env fills (may be empty)
  // Several obs arrays form a gymnasium Tuple space when true (in order), else a Dict by name.
  bool obs_is_tuple = false;
  // Size of the frames Env::Render draws (0: the env does not render).
  int render_height = 0;
  int render_width = 0;
  // The frame rate the reference env declares for those frames (gymnasium's metadata
  // ["render_fps"]: 50 for CartPole-v1), which video writers play them at; 0: none declared.
  int render_fps = 0;
  // Multi-agent envs only (names empty: a single-agent env); see core/agents.h.
  AgentSpec agents{};
  // The env's own episode limit: the step at which it truncates an episode by itself, whatever
  // the pool's max_episode_steps (MiniGrid's max_steps, Procgen's timeout). 0: none; -1: set
  // anew each episode (BabyAI levels whose instruction sizes it). Shown by `envpool info`.
  int env_step_limit = 0;
};

}  // namespace envpool
