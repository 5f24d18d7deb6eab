// The send/recv protocol: which envs may be sent, stepped, rendered or inspected now, and
// whether an action batch fits the action spec (its values: Protocol::ValidateActions; its
// element type, shape and conversion to the spec's dtype: the action coercion below, shared by
// every bridge that hands the core actions: pybind11's arrays and XLA's buffers). Everything is
// checked before anything changes, so a refused call leaves the pool as it was.
//
// An env is, from the user thread's point of view:
//   kNotReset     never reset (or restarted): it must be reset before it can step;
//   kEpisodeOver  its episode ended with autoreset disabled: it must be reset first;
//   kIdle         it may be sent;
//   kInFlight     sent, and its result not yet taken by recv().
// Only the user thread reads or writes this table.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/spec.h"

namespace envpool {

// A call that breaks the send/recv protocol (stepping an env that is in flight, ...).
class ProtocolError : public std::logic_error {
  using std::logic_error::logic_error;
};
// An argument of the wrong type (e.g. a float array for a discrete action).
class InputTypeError : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class EnvStatus : uint8_t { kNotReset, kEpisodeOver, kIdle, kInFlight };

class Protocol {
 public:
  explicit Protocol(int num_envs);

  int num_envs() const { return num_envs_; }
  int in_flight() const { return in_flight_; }
  EnvStatus status(int env_id) const { return status_[static_cast<std::size_t>(env_id)]; }
  // How many envs are in `status` (a scan: for error messages, not per step).
  int CountStatus(EnvStatus status) const {
    return static_cast<int>(std::count(status_.begin(), status_.end(), status));
  }

  // Throws unless envs `env_ids` (nullptr: all) can be sent now: ids in range, no duplicate,
  // none in flight, and for a step each one reset and not over.
  void CheckSendable(const int* env_ids, int n, bool for_step);
  // Throws unless env `env_id` exists and is not in flight; `what` names the call ("rendering").
  void CheckIdle(int env_id, const char* what) const;

  void MarkInFlight(const int* env_ids, int n);
  // The async loop's send: checks `n` env ids for a step as CheckSendable(env_ids, n, true) does
  // and marks them in flight in the same pass over them (every one idle, so each id is read and
  // written once: a repeated id finds itself already in flight). Returns false, having changed
  // nothing, when one fails (or n < 1): CheckSendable then names it.
  bool TryMarkStepInFlight(const int* env_ids, int n);
  // Undoes a TryMarkStepInFlight that returned true (a later check of the same send failed).
  void UnmarkStepInFlight(const int* env_ids, int n);
  // A batch of `n` rows for envs `ids` was taken; `over(row)` says whether that env's
  // episode is over and must be reset before its next step (autoreset disabled).
  template <class Over>
  void MarkReturned(const int32_t* ids, int n, Over&& over) {
    in_flight_ -= n;
    for (int i = 0; i < n; ++i)
      Set(static_cast<std::size_t>(ids[i]), over(i) ? EnvStatus::kEpisodeOver : EnvStatus::kIdle);
  }
  // MarkReturned with no episode needing an explicit reset (autoreset on): each env goes from
  // in flight to idle, so the idle count moves by n at once rather than per env.
  void MarkReturnedIdle(const int32_t* ids, int n) {
    in_flight_ -= n;
    idle_count_ += n;
    for (int i = 0; i < n; ++i) status_[static_cast<std::size_t>(ids[i])] = EnvStatus::kIdle;
  }
  // Fast path: a full batch came back and no episode needs an explicit reset.
  void MarkAllReturned() {
    in_flight_ = 0;
    status_.assign(status_.size(), EnvStatus::kIdle);
    idle_count_ = num_envs_;
  }
  void SetIdle(int env_id) { Set(static_cast<std::size_t>(env_id), EnvStatus::kIdle); }

  // Says whether row `row` of an action batch is ignored (its env starts a new episode instead).
  using RowFilter = std::function<bool(int row)>;

  // Throws std::invalid_argument naming the first row whose action is outside the spec:
  // discrete or integer actions out of [low, high], floating actions that are not finite.
  // `data` holds n rows of the spec's dtype. Rows `ignored` accepts are not checked (their
  // envs autoreset and ignore the action, as gymnasium's vector envs do).
  static void ValidateActions(const ArraySpec& spec, const void* data, const int* env_ids, int n,
                              const RowFilter& ignored = {});

 private:
  void Set(std::size_t env_id, EnvStatus status) {
    idle_count_ += (status == EnvStatus::kIdle) - (status_[env_id] == EnvStatus::kIdle);
    status_[env_id] = status;
  }

  int num_envs_;
  std::vector<EnvStatus> status_;
  std::vector<uint32_t> seen_;  // duplicate detection stamps
  uint32_t stamp_ = 0;
  int in_flight_ = 0;   // envs sent and not yet returned by a taken batch
  int idle_count_ = 0;  // envs with status kIdle (lets a full batch skip per-env checks)
};

// -- Action coercion ----------------------------------------------------------------------------

// What kind of values a caller hands as actions, whatever its exact type (NumPy's dtype.kind,
// XLA's element type): the core accepts a kind per field, then converts to the field's dtype.
enum class ValueKind : uint8_t { kBool, kInteger, kReal, kOther };
ValueKind KindOf(DType t);

// Whether `got` values can be actions of field `spec`: bools or integers for a bool field (0
// and 1, checked by ConvertActions), integers for a discrete or integer field, real numbers or
// integers for a floating one.
bool ActionKindFits(const ArraySpec& spec, ValueKind got);
// The InputTypeError of a kind that does not fit; `got_name` is the caller's name of its type
// ("float32", "<U4"), computed only then.
[[noreturn]] void ThrowActionKind(const ArraySpec& spec, std::string_view got_name);
inline void CheckActionKind(const ArraySpec& spec, ValueKind got, std::string_view got_name) {
  if (!ActionKindFits(spec, got)) ThrowActionKind(spec, got_name);
}

// Throws unless `shape` is (n, *spec.shape): one action row per env. A scalar (no dimension)
// is an InputTypeError, as gymnasium's vector envs cannot iterate over one.
void CheckActionShape(const ArraySpec& spec, std::span<const std::ptrdiff_t> shape, int n);

// Copies n rows of field `spec` from `src` (C-contiguous values of type `from`) into `dst` as
// the field's dtype, as static_cast converts them, after checking each integer fits it:
// std::invalid_argument names the first row (and element) whose value the dtype cannot hold.
// float16, which C++20 has no type for, is the caller's to convert (InputTypeError here).
void ConvertActions(const ArraySpec& spec, DType from, const void* src, void* dst, int n);

}  // namespace envpool
