#include "core/protocol.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>
#include <type_traits>

namespace envpool {

namespace {

std::string RangeText(const ArraySpec& a, std::size_t k) {
  std::ostringstream s;
  const double low = a.low.size() > k ? a.low[k] : a.low[0];
  const double high = a.high.size() > k ? a.high[k] : a.high[0];
  if (a.discrete) {
    s << "Discrete(" << static_cast<int64_t>(high - low + 1);
    if (low != 0) s << ", start=" << static_cast<int64_t>(low);
    s << ")";
  } else {
    s << "[" << low << ", " << high << "]";
  }
  return s.str();
}

// "action [<name>] [element k] [<value>] for env <id> (row <row>) <what>".
[[noreturn]] void ThrowBadAction(const ArraySpec& a, std::size_t bad, const int* env_ids, const std::string& value,
                                 const std::string& what) {
  const std::size_t per_row = a.NumElements();
  const std::size_t row = bad / per_row;
  const int id = env_ids ? env_ids[row] : static_cast<int>(row);
  std::string where = "action";
  if (!a.name.empty() && a.name != "action") where += " '" + a.name + "'";
  if (per_row > 1) where += " element " + std::to_string(bad % per_row);
  if (!value.empty()) where += " " + value;
  throw std::invalid_argument(where + " for env " + std::to_string(id) + " (row " + std::to_string(row) + ") " + what);
}

// [low, high] as the values of T inside it, [*lo, *hi]: comparing T values needs no conversion
// per element (int64 to double is a scalar instruction per value) and is exact beyond 2^53.
// False where T has no value inside the bounds or a bound is NaN (then compare as doubles).
template <typename T>
bool IntegerBounds(double low, double high, T* lo, T* hi) {
  constexpr double kMin = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr double kMax = static_cast<double>(std::numeric_limits<T>::max());  // 2^63 for int64: above max
  if (std::isnan(low) || std::isnan(high) || low >= kMax || high < kMin || low > high) return false;
  *lo = low <= kMin ? std::numeric_limits<T>::lowest() : static_cast<T>(std::ceil(low));
  *hi = high >= kMax ? std::numeric_limits<T>::max() : static_cast<T>(std::floor(high));
  return *lo <= *hi;
}

// Integers (discrete actions and integer boxes): every element in [low, high] (per element
// bounds, or one pair for all). A tight loop first: the common case passes. Rows `ignored`
// says are skipped when looking for the culprit (their actions are not used).
template <typename T>
void CheckIntegers(const ArraySpec& a, const void* data, const int* env_ids, std::size_t count,
                   const Protocol::RowFilter& ignored) {
  if (a.low.empty() || a.high.empty()) return;
  const auto* v = static_cast<const T*>(data);
  const std::size_t per_row = a.NumElements();
  const bool scalar_bounds = a.low.size() == 1 && a.high.size() == 1;
  auto low_of = [&](std::size_t k) { return a.low[a.low.size() == 1 ? 0 : k % per_row]; };
  auto high_of = [&](std::size_t k) { return a.high[a.high.size() == 1 ? 0 : k % per_row]; };
  T lo{}, hi{};
  const bool as_t = scalar_bounds && IntegerBounds(a.low[0], a.high[0], &lo, &hi);
  auto inside = [&](std::size_t k) {
    if (as_t) return v[k] >= lo && v[k] <= hi;
    return static_cast<double>(v[k]) >= low_of(k) && static_cast<double>(v[k]) <= high_of(k);
  };
  bool ok = true;
  if (as_t) {
    // v in [lo, hi] as one unsigned comparison: v - lo (wrapping) <= hi - lo.
    using U = std::make_unsigned_t<T>;
    const U span = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
    // First the offsets OR-ed together, which is at least each of them: at most span, every one
    // is. Unlike the comparisons this vectorizes for 64-bit integers without SSE4.2 (the build's
    // baseline is SSE2): ~3 instructions per action instead of 8 (callgrind, CartPole).
    U any = 0;
    for (std::size_t k = 0; k < count; ++k) any |= static_cast<U>(static_cast<U>(v[k]) - static_cast<U>(lo));
    if (any <= span) return;
    for (std::size_t k = 0; k < count; ++k) ok &= static_cast<U>(static_cast<U>(v[k]) - static_cast<U>(lo)) <= span;
  } else {  // per-element bounds, or scalar ones with no integer inside them (or a NaN)
    for (std::size_t k = 0; k < count; ++k) ok &= inside(k);
  }
  if (ok) return;
  for (std::size_t bad = 0; bad < count; ++bad) {
    if (inside(bad)) continue;
    if (ignored && ignored(static_cast<int>(bad / per_row))) continue;
    const std::string value = std::is_signed_v<T> ? std::to_string(static_cast<int64_t>(v[bad]))
                                                  : std::to_string(static_cast<uint64_t>(v[bad]));
    ThrowBadAction(a, bad, env_ids, value, "is outside " + RangeText(a, bad % per_row));
  }
}

// IEEE half precision, which C++20 has no type for: infinite or NaN when the exponent bits are all set.
struct Half {
  uint16_t bits;
};
bool IsFinite(Half h) { return (h.bits & 0x7C00u) != 0x7C00u; }
bool IsFinite(float x) { return std::isfinite(x); }
bool IsFinite(double x) { return std::isfinite(x); }
std::string Text(Half h) { return (h.bits & 0x03FFu) != 0 ? "nan" : (h.bits & 0x8000u) ? "-inf" : "inf"; }
std::string Text(double x) { return std::to_string(x); }

template <typename T>
void CheckFinite(const ArraySpec& a, const void* data, const int* env_ids, std::size_t count,
                 const Protocol::RowFilter& ignored) {
  const auto* v = static_cast<const T*>(data);
  bool ok = true;
  for (std::size_t k = 0; k < count; ++k) ok &= IsFinite(v[k]);
  if (ok) return;
  const std::size_t per_row = a.NumElements();
  for (std::size_t bad = 0; bad < count; ++bad) {
    if (IsFinite(v[bad]) || (ignored && ignored(static_cast<int>(bad / per_row)))) continue;
    ThrowBadAction(a, bad, env_ids, "", "is not finite: " + Text(v[bad]));
  }
}

// A dtype and its C++ type, for WithType's table.
template <typename T, DType D>
struct Typed {
  using type = T;
  static constexpr DType dtype = D;
};
using NativeTypes =
    std::tuple<Typed<bool, DType::kBool>, Typed<int8_t, DType::kInt8>, Typed<int16_t, DType::kInt16>,
               Typed<int32_t, DType::kInt32>, Typed<int64_t, DType::kInt64>, Typed<uint8_t, DType::kUInt8>,
               Typed<uint16_t, DType::kUInt16>, Typed<uint32_t, DType::kUInt32>, Typed<uint64_t, DType::kUInt64>,
               Typed<float, DType::kFloat32>, Typed<double, DType::kFloat64>>;

// Calls f(T{}) with the C++ type of `t` (float16 has none: the caller's).
template <typename F>
void WithType(DType t, F&& f) {
  const bool called = std::apply(
      [&](auto... typed) { return ((typed.dtype == t && (f(typename decltype(typed)::type{}), true)) || ...); },
      NativeTypes{});
  if (!called) throw InputTypeError("float16 actions are converted before they reach the core");
}

}  // namespace

Protocol::Protocol(int num_envs)
    : num_envs_(num_envs),
      status_(static_cast<std::size_t>(num_envs), EnvStatus::kNotReset),
      seen_(static_cast<std::size_t>(num_envs), 0) {}

void Protocol::CheckSendable(const int* env_ids, int n, bool for_step) {
  if (n < 1) throw std::invalid_argument("env_id is empty: send at least one env");
  // All envs, none busy: nothing to check per env. Otherwise the loop finds the culprit.
  if (env_ids == nullptr && (for_step ? idle_count_ == num_envs_ : in_flight_ == 0)) return;
  if (++stamp_ == 0) {  // stamps wrapped: clear them once every 2^32 sends
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  if (env_ids != nullptr) {
    // The common case passes: one branch-free pass over the ids (ranges, repeats, statuses),
    // then the pass below only when something is wrong, to name it.
    bool bad = false;
    for (int i = 0; i < n; ++i) bad |= static_cast<unsigned>(env_ids[i]) >= static_cast<unsigned>(num_envs_);
    if (!bad) {
      const EnvStatus refused = for_step ? EnvStatus::kIdle : EnvStatus::kInFlight;
      for (int i = 0; i < n; ++i) {
        const auto id = static_cast<std::size_t>(env_ids[i]);
        const EnvStatus s = status_[id];
        bad |= seen_[id] == stamp_;
        bad |= for_step ? s != refused : s == refused;
        seen_[id] = stamp_;
      }
      if (!bad) return;
      if (++stamp_ == 0) {  // the pass below marks the ids again
        std::fill(seen_.begin(), seen_.end(), 0);
        stamp_ = 1;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    const int id = env_ids ? env_ids[i] : i;
    if (id < 0 || id >= num_envs_) {
      throw std::invalid_argument("env_id[" + std::to_string(i) + "] = " + std::to_string(id) +
                                  " is out of range [0, " + std::to_string(num_envs_) + ")");
    }
    auto& seen = seen_[static_cast<std::size_t>(id)];
    if (seen == stamp_) {
      throw std::invalid_argument("env_id " + std::to_string(id) + " appears more than once in one call");
    }
    seen = stamp_;
    const EnvStatus s = status_[static_cast<std::size_t>(id)];
    if (s == EnvStatus::kInFlight) {
      throw ProtocolError("env " + std::to_string(id) +
                          " is still stepping: it was sent and its result has not been received; call recv() first");
    }
    if (for_step && s == EnvStatus::kEpisodeOver) {
      throw ProtocolError("env " + std::to_string(id) +
                          "'s episode is over and autoreset is disabled; reset it first, e.g. "
                          "reset(options={'reset_mask': mask})");
    }
    if (for_step && s == EnvStatus::kNotReset) {
      throw ProtocolError("env " + std::to_string(id) + " has not been reset; call reset() before step()");
    }
  }
}

void Protocol::CheckIdle(int env_id, const char* what) const {
  if (env_id < 0 || env_id >= num_envs_) {
    throw std::invalid_argument("env_id " + std::to_string(env_id) + " is out of range [0, " +
                                std::to_string(num_envs_) + ")");
  }
  if (status_[static_cast<std::size_t>(env_id)] == EnvStatus::kInFlight) {
    throw ProtocolError("env " + std::to_string(env_id) + " is in flight; recv() it before " + what);
  }
}

void Protocol::MarkInFlight(const int* env_ids, int n) {
  if (env_ids == nullptr) {
    status_.assign(status_.size(), EnvStatus::kInFlight);
    idle_count_ = 0;
  } else {
    for (int i = 0; i < n; ++i) Set(static_cast<std::size_t>(env_ids[i]), EnvStatus::kInFlight);
  }
  in_flight_ += n;
}

bool Protocol::TryMarkStepInFlight(const int* env_ids, int n) {
  int i = 0;
  for (; i < n; ++i) {
    const auto id = static_cast<unsigned>(env_ids[i]);
    if (id >= static_cast<unsigned>(num_envs_) || status_[id] != EnvStatus::kIdle) break;
    status_[id] = EnvStatus::kInFlight;
  }
  if (n < 1 || i < n) {  // every id before i was idle: put them back
    for (int j = 0; j < i; ++j) status_[static_cast<std::size_t>(env_ids[j])] = EnvStatus::kIdle;
    return false;
  }
  in_flight_ += n;
  idle_count_ -= n;
  return true;
}

void Protocol::UnmarkStepInFlight(const int* env_ids, int n) {
  for (int i = 0; i < n; ++i) status_[static_cast<std::size_t>(env_ids[i])] = EnvStatus::kIdle;
  in_flight_ -= n;
  idle_count_ += n;
}

void Protocol::ValidateActions(const ArraySpec& a, const void* data, const int* env_ids, int n,
                               const RowFilter& ignored) {
  const std::size_t count = static_cast<std::size_t>(n) * a.NumElements();
  if (a.dtype == DType::kFloat16) return CheckFinite<Half>(a, data, env_ids, count, ignored);
  WithType(a.dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T>) {
      CheckFinite<T>(a, data, env_ids, count, ignored);
    } else if constexpr (!std::is_same_v<T, bool>) {  // every bool is in {0, 1}
      CheckIntegers<T>(a, data, env_ids, count, ignored);
    }
  });
}

// -- Action coercion ----------------------------------------------------------------------------

ValueKind KindOf(DType t) {
  if (t == DType::kBool) return ValueKind::kBool;
  return IsFloating(t) ? ValueKind::kReal : ValueKind::kInteger;
}

bool ActionKindFits(const ArraySpec& spec, ValueKind got) {
  if (got == ValueKind::kInteger) return true;  // any field takes integers (a bool field 0 and 1: ConvertActions)
  if (spec.dtype == DType::kBool) return got == ValueKind::kBool;
  return IsFloating(spec.dtype) && !spec.discrete && got == ValueKind::kReal;
}

void ThrowActionKind(const ArraySpec& spec, std::string_view got_name) {
  const char* want = spec.dtype == DType::kBool ? "bools"
                     : spec.discrete            ? "integers (a discrete action)"
                     : !IsFloating(spec.dtype)  ? "integers"
                                                : "real numbers";
  throw InputTypeError("action '" + spec.name + "' must hold " + want + ", got " + std::string(got_name) + " values");
}

namespace {

// A shape as Python prints a tuple: (3,) or (3, 2).
std::string ShapeText(std::span<const std::ptrdiff_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s += std::to_string(shape[i]);
    s += shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "";
  }
  return s + ")";
}

}  // namespace

void CheckActionShape(const ArraySpec& spec, std::span<const std::ptrdiff_t> shape, int n) {
  if (shape.empty()) {
    throw InputTypeError("action '" + spec.name + "' is a scalar; a batch needs one action per env (" +
                         std::to_string(n) + " rows)");
  }
  bool ok = shape.size() == spec.shape.size() + 1 && shape[0] == n;
  for (std::size_t i = 0; ok && i < spec.shape.size(); ++i) ok = shape[i + 1] == spec.shape[i];
  if (ok) return;
  std::vector<std::ptrdiff_t> want{n};
  want.insert(want.end(), spec.shape.begin(), spec.shape.end());
  throw std::invalid_argument("action '" + spec.name + "' has shape " + ShapeText(shape) + " but " + std::to_string(n) +
                              " envs need shape " + ShapeText(want));
}

namespace {

// Whether integer (or bool) `v` survives the trip to `To` and back, sign included.
template <typename To, typename From>
bool Fits(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v == From(0) || v == From(1);
  } else if constexpr (std::is_same_v<From, bool>) {
    return true;
  } else {
    const To t = static_cast<To>(v);
    if (static_cast<From>(t) != v) return false;
    bool v_negative = false, t_negative = false;
    if constexpr (std::is_signed_v<From>) v_negative = v < From(0);
    if constexpr (std::is_signed_v<To>) t_negative = t < To(0);
    return v_negative == t_negative;
  }
}

template <typename From, typename To>
void ConvertAs(const ArraySpec& spec, const void* src, void* dst, std::size_t count) {
  const auto* in = static_cast<const From*>(src);
  auto* out = static_cast<To*>(dst);
  if constexpr (!std::is_floating_point_v<From> && !std::is_floating_point_v<To>) {
    for (std::size_t k = 0; k < count; ++k) {
      if (Fits<To>(in[k])) continue;
      const std::size_t per_row = spec.NumElements();
      const std::string value = std::is_signed_v<From> ? std::to_string(static_cast<int64_t>(in[k]))
                                                       : std::to_string(static_cast<uint64_t>(in[k]));
      throw std::invalid_argument("action '" + spec.name + "' row " + std::to_string(k / per_row) +
                                  (per_row > 1 ? " element " + std::to_string(k % per_row) : std::string()) + " = " +
                                  value + " does not fit the action dtype " + DTypeName(spec.dtype));
    }
  }
  for (std::size_t k = 0; k < count; ++k) out[k] = static_cast<To>(in[k]);
}

}  // namespace

void ConvertActions(const ArraySpec& spec, DType from, const void* src, void* dst, int n) {
  const std::size_t count = static_cast<std::size_t>(n) * spec.NumElements();
  if (from == spec.dtype) {
    std::memcpy(dst, src, count * DTypeSize(from));
    return;
  }
  if (IsFloating(from) && !IsFloating(spec.dtype)) {  // CheckActionKind refuses these first
    throw InputTypeError("action '" + spec.name + "' must hold integers, got " + DTypeName(from) + " values");
  }
  WithType(from, [&](auto f) {
    WithType(spec.dtype, [&](auto t) { ConvertAs<decltype(f), decltype(t)>(spec, src, dst, count); });
  });
}

}  // namespace envpool
