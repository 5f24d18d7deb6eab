#include "core/protocol.h"

#include <algorithm>
#include <cmath>
#include <sstream>
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
  bool ok = true;
  if (scalar_bounds) {
    const double low = a.low[0], high = a.high[0];
    for (std::size_t k = 0; k < count; ++k) ok &= static_cast<double>(v[k]) >= low && static_cast<double>(v[k]) <= high;
  } else {
    for (std::size_t k = 0; k < count; ++k) {
      ok &= static_cast<double>(v[k]) >= low_of(k) && static_cast<double>(v[k]) <= high_of(k);
    }
  }
  if (ok) return;
  for (std::size_t bad = 0; bad < count; ++bad) {
    if (static_cast<double>(v[bad]) >= low_of(bad) && static_cast<double>(v[bad]) <= high_of(bad)) continue;
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

void Protocol::ValidateActions(const ArraySpec& a, const void* data, const int* env_ids, int n,
                               const RowFilter& ignored) {
  const std::size_t count = static_cast<std::size_t>(n) * a.NumElements();
  switch (a.dtype) {
    case DType::kFloat16:
      return CheckFinite<Half>(a, data, env_ids, count, ignored);
    case DType::kFloat32:
      return CheckFinite<float>(a, data, env_ids, count, ignored);
    case DType::kFloat64:
      return CheckFinite<double>(a, data, env_ids, count, ignored);
    case DType::kInt64:
      return CheckIntegers<int64_t>(a, data, env_ids, count, ignored);
    case DType::kInt32:
      return CheckIntegers<int32_t>(a, data, env_ids, count, ignored);
    case DType::kInt16:
      return CheckIntegers<int16_t>(a, data, env_ids, count, ignored);
    case DType::kInt8:
      return CheckIntegers<int8_t>(a, data, env_ids, count, ignored);
    case DType::kUInt64:
      return CheckIntegers<uint64_t>(a, data, env_ids, count, ignored);
    case DType::kUInt32:
      return CheckIntegers<uint32_t>(a, data, env_ids, count, ignored);
    case DType::kUInt16:
      return CheckIntegers<uint16_t>(a, data, env_ids, count, ignored);
    case DType::kUInt8:
      return CheckIntegers<uint8_t>(a, data, env_ids, count, ignored);
    case DType::kBool:
      return;  // every bool is in {0, 1}
  }
}

}  // namespace envpool
