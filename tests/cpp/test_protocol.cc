// The send/recv protocol (core/protocol.h): which envs may be sent, the env states a send and
// a taken batch move through, action validation, and action coercion (kinds, shapes, dtypes).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "core/protocol.h"

using envpool::ArraySpec;
using envpool::DType;
using envpool::EnvStatus;
using envpool::InputTypeError;
using envpool::Protocol;
using envpool::ProtocolError;
using envpool::ValueKind;

namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void StepBeforeResetIsRefused() {
  Protocol p(3);
  CHECK(Contains(CHECK_THROWS(ProtocolError, p.CheckSendable(nullptr, 3, true)), "has not been reset"));
  p.CheckSendable(nullptr, 3, false);  // a reset may go
  p.MarkInFlight(nullptr, 3);
  CHECK_EQ(p.in_flight(), 3);
  p.MarkAllReturned();
  p.CheckSendable(nullptr, 3, true);
}

void BadIdsAreNamed() {
  Protocol p(4);
  const int out_of_range[] = {0, 4};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, p.CheckSendable(out_of_range, 2, false)),
                 "env_id[1] = 4 is out of range [0, 4)"));
  const int negative[] = {-1};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, p.CheckSendable(negative, 1, false)), "out of range"));
  const int twice[] = {2, 1, 2};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, p.CheckSendable(twice, 3, false)), "env_id 2 appears more"));
  CHECK_THROWS(std::invalid_argument, p.CheckSendable(twice, 0, false));
  // A refused send changes nothing: the same ids, once each, still go.
  const int once[] = {2, 1};
  p.CheckSendable(once, 2, false);
}

void EnvsInFlightCannotBeSentAgain() {
  Protocol p(4);
  const int some[] = {1, 3};
  p.MarkInFlight(some, 2);
  CHECK(p.status(1) == EnvStatus::kInFlight && p.status(0) == EnvStatus::kNotReset);
  CHECK(Contains(CHECK_THROWS(ProtocolError, p.CheckSendable(nullptr, 4, false)), "env 1 is still stepping"));
  const int with_busy[] = {0, 1};  // by id (the async loop's sends) too, and a step of a not-reset env
  CHECK(Contains(CHECK_THROWS(ProtocolError, p.CheckSendable(with_busy, 2, false)), "env 1 is still stepping"));
  const int fresh[] = {2, 0};
  CHECK(Contains(CHECK_THROWS(ProtocolError, p.CheckSendable(fresh, 2, true)), "env 2 has not been reset"));
  CHECK(Contains(CHECK_THROWS(ProtocolError, p.CheckIdle(3, "rendering")), "recv() it before rendering"));
  const int other[] = {0, 2};
  p.CheckSendable(other, 2, false);
  // The batch of env 3 came back with its episode over (autoreset disabled); env 1's did not.
  const int32_t returned[] = {3, 1};
  p.MarkReturned(returned, 2, [](int row) { return row == 0; });
  CHECK_EQ(p.in_flight(), 0);
  CHECK(p.status(3) == EnvStatus::kEpisodeOver && p.status(1) == EnvStatus::kIdle);
  const int three[] = {3};
  CHECK(Contains(CHECK_THROWS(ProtocolError, p.CheckSendable(three, 1, true)), "episode is over"));
  p.CheckSendable(three, 1, false);  // a reset of it may go
  CHECK_EQ(p.CountStatus(EnvStatus::kNotReset), 2);
}

ArraySpec Spec(DType dtype, std::vector<int> shape, double low, double high, bool discrete) {
  ArraySpec a;
  a.name = "action";
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.low = {low};
  a.high = {high};
  a.discrete = discrete;
  return a;
}

void ActionsOutsideTheSpaceAreNamed() {
  const ArraySpec discrete = Spec(DType::kInt64, {}, 0, 1, true);
  const int64_t good[] = {0, 1, 1};
  Protocol::ValidateActions(discrete, good, nullptr, 3);
  const int64_t bad[] = {0, 2, 1};
  const int ids[] = {5, 7, 9};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, Protocol::ValidateActions(discrete, bad, ids, 3)),
                 "action 2 for env 7 (row 1) is outside Discrete(2)"));
  // An ignored row (its env autoresets) is not checked.
  Protocol::ValidateActions(discrete, bad, ids, 3, [](int row) { return row == 1; });

  const ArraySpec box = Spec(DType::kFloat32, {2}, -1, 1, false);
  const float finite[] = {5.0f, -7.0f, 0.5f, 0.25f};  // floats are clipped by the env, not refused
  Protocol::ValidateActions(box, finite, nullptr, 2);
  const float nan[] = {0.0f, 0.0f, 0.0f, std::numeric_limits<float>::quiet_NaN()};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, Protocol::ValidateActions(box, nan, nullptr, 2)), "element 1"));
}

// Integer bounds are compared as integers: exact where doubles are not (beyond 2^53), fractional
// bounds admit the integers inside them, and unbounded ends admit the dtype's extremes.
void IntegerBoundsAreExact() {
  const double two53 = 9007199254740992.0;  // 2^53: 2^53 + 1 rounds to it as a double
  const ArraySpec big = Spec(DType::kInt64, {}, 0, two53, false);
  const int64_t at[] = {0, int64_t{1} << 53};
  Protocol::ValidateActions(big, at, nullptr, 2);
  const int64_t past[] = {0, (int64_t{1} << 53) + 1};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, Protocol::ValidateActions(big, past, nullptr, 2)),
                 "action 9007199254740993 for env 1 (row 1) is outside"));
  const ArraySpec fractional = Spec(DType::kInt32, {}, 0.5, 2.5, false);
  const int32_t inside[] = {1, 2};
  Protocol::ValidateActions(fractional, inside, nullptr, 2);
  const int32_t below[] = {1, 0};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, Protocol::ValidateActions(fractional, below, nullptr, 2)),
                 "action 0 for env 1"));
  const int32_t above[] = {3, 1};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, Protocol::ValidateActions(fractional, above, nullptr, 2)),
                 "action 3 for env 0"));
  const double inf = std::numeric_limits<double>::infinity();
  const ArraySpec all = Spec(DType::kInt64, {}, -inf, inf, false);
  const int64_t extremes[] = {std::numeric_limits<int64_t>::lowest(), std::numeric_limits<int64_t>::max()};
  Protocol::ValidateActions(all, extremes, nullptr, 2);
  const ArraySpec unsigned_from_minus = Spec(DType::kUInt8, {}, -3, 200, false);
  const uint8_t bytes[] = {0, 200, 201};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, Protocol::ValidateActions(unsigned_from_minus, bytes, nullptr, 3)),
                 "action 201 for env 2"));
  const ArraySpec empty = Spec(DType::kInt32, {}, 0.25, 0.75, false);  // no integer inside
  const int32_t zero[] = {0};
  CHECK_THROWS(std::invalid_argument, Protocol::ValidateActions(empty, zero, nullptr, 1));
}

void ActionKindsAreTheCoresToDecide() {
  const ArraySpec discrete = Spec(DType::kInt64, {}, 0, 1, true);
  const ArraySpec box = Spec(DType::kFloat32, {2}, -1, 1, false);
  const ArraySpec flags = Spec(DType::kBool, {3}, 0, 1, false);
  CHECK(envpool::ActionKindFits(discrete, ValueKind::kInteger));
  CHECK(!envpool::ActionKindFits(discrete, ValueKind::kReal));
  CHECK(!envpool::ActionKindFits(discrete, ValueKind::kBool));
  CHECK(envpool::ActionKindFits(box, ValueKind::kReal) && envpool::ActionKindFits(box, ValueKind::kInteger));
  CHECK(!envpool::ActionKindFits(box, ValueKind::kBool) && !envpool::ActionKindFits(box, ValueKind::kOther));
  CHECK(envpool::ActionKindFits(flags, ValueKind::kBool) && envpool::ActionKindFits(flags, ValueKind::kInteger));
  CHECK(!envpool::ActionKindFits(flags, ValueKind::kReal));
  CHECK_EQ(CHECK_THROWS(InputTypeError, envpool::CheckActionKind(discrete, ValueKind::kReal, "float32")),
           std::string("action 'action' must hold integers (a discrete action), got float32 values"));
  CHECK(Contains(CHECK_THROWS(InputTypeError, envpool::CheckActionKind(box, ValueKind::kOther, "<U4")),
                 "must hold real numbers, got <U4 values"));
}

void ActionShapesAreRowsTimesTheSpecsShape() {
  const ArraySpec box = Spec(DType::kFloat32, {2}, -1, 1, false);
  const std::vector<std::ptrdiff_t> good{3, 2}, short_rows{2, 2}, flat{6}, scalar{};
  envpool::CheckActionShape(box, good, 3);
  CHECK_EQ(CHECK_THROWS(std::invalid_argument, envpool::CheckActionShape(box, short_rows, 3)),
           std::string("action 'action' has shape (2, 2) but 3 envs need shape (3, 2)"));
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, envpool::CheckActionShape(box, flat, 3)), "shape (6,)"));
  CHECK(Contains(CHECK_THROWS(InputTypeError, envpool::CheckActionShape(box, scalar, 3)), "is a scalar"));
}

void ConversionsRefuseIntegersTheDtypeCannotHold() {
  const ArraySpec small = Spec(DType::kInt8, {2}, -100, 100, false);
  const int64_t fits[] = {1, -2, 3, 127};
  int8_t out[4] = {};
  envpool::ConvertActions(small, DType::kInt64, fits, out, 2);
  CHECK(out[0] == 1 && out[1] == -2 && out[3] == 127);
  const int64_t wraps[] = {1, -2, 300, 4};
  CHECK_EQ(CHECK_THROWS(std::invalid_argument, envpool::ConvertActions(small, DType::kInt64, wraps, out, 2)),
           std::string("action 'action' row 1 element 0 = 300 does not fit the action dtype int8"));
  const ArraySpec discrete = Spec(DType::kInt64, {}, 0, 1, true);
  const uint64_t huge[] = {0, uint64_t{1} << 63};  // would read as a negative int64
  int64_t out64[2] = {};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, envpool::ConvertActions(discrete, DType::kUInt64, huge, out64, 2)),
                 "row 1 = 9223372036854775808"));
  const ArraySpec bytes = Spec(DType::kUInt8, {}, 0, 255, false);
  const int32_t negative[] = {5, -1};
  uint8_t out8[2] = {};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, envpool::ConvertActions(bytes, DType::kInt32, negative, out8, 2)),
                 "row 1 = -1 does not fit the action dtype uint8"));
  const ArraySpec flags = Spec(DType::kBool, {}, 0, 1, false);
  const int64_t zero_one[] = {0, 1}, two[] = {1, 2};
  bool outb[2] = {};
  envpool::ConvertActions(flags, DType::kInt64, zero_one, outb, 2);
  CHECK(!outb[0] && outb[1]);
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, envpool::ConvertActions(flags, DType::kInt64, two, outb, 2)),
                 "row 1 = 2 does not fit the action dtype bool"));
  const ArraySpec box = Spec(DType::kFloat32, {2}, -1, 1, false);
  const double wide[] = {0.5, -0.25, 1e300, 3};
  float outf[4] = {};
  envpool::ConvertActions(box, DType::kFloat64, wide, outf, 2);  // floats as static_cast makes them
  CHECK(outf[0] == 0.5f && outf[1] == -0.25f && std::isinf(outf[2]) && outf[3] == 3.0f);
  CHECK_THROWS(InputTypeError, envpool::ConvertActions(box, DType::kFloat16, wide, outf, 2));
}

// The async loop's send checks and marks in one pass (TryMarkStepInFlight): it accepts what
// CheckSendable(ids, n, true) accepts, and a refusal (or an undo after a later check failed)
// leaves every status and count as it was.
void OnePassStepSendsRefuseWhatCheckSendableRefuses() {
  Protocol p(5);
  p.MarkInFlight(nullptr, 5);
  const int32_t all[] = {0, 1, 2, 3, 4};
  p.MarkReturned(all, 5, [](int row) { return row == 4; });  // env 4: episode over
  const int in_range_but_not_reset[] = {0};
  Protocol fresh(2);
  CHECK(!fresh.TryMarkStepInFlight(in_range_but_not_reset, 1));
  CHECK(fresh.status(0) == EnvStatus::kNotReset && fresh.in_flight() == 0);
  const int repeated[] = {1, 2, 1};
  const int out_of_range[] = {3, 5};
  const int negative[] = {2, -1};
  const int over[] = {0, 4};
  for (const auto& [ids, n] : {std::pair{repeated, 3}, std::pair{out_of_range, 2}, std::pair{negative, 2},
                               std::pair{over, 2}, std::pair{repeated, 0}}) {
    CHECK(!p.TryMarkStepInFlight(ids, n));
    CHECK_EQ(p.in_flight(), 0);
    for (int id = 0; id < 4; ++id) CHECK(p.status(id) == EnvStatus::kIdle);
    CHECK(p.status(4) == EnvStatus::kEpisodeOver);
    CHECK_THROWS(std::exception, p.CheckSendable(ids, n, true));
  }
  const int some[] = {3, 0};
  CHECK(p.TryMarkStepInFlight(some, 2));
  CHECK_EQ(p.in_flight(), 2);
  CHECK(p.status(3) == EnvStatus::kInFlight && p.status(0) == EnvStatus::kInFlight);
  CHECK(!p.TryMarkStepInFlight(some, 1));  // in flight now
  p.UnmarkStepInFlight(some, 2);
  CHECK_EQ(p.in_flight(), 0);
  // A batch taken back (MarkReturnedIdle) leaves its envs idle for the next send.
  const int four[] = {0, 1, 2, 3};
  CHECK(p.TryMarkStepInFlight(four, 4));
  const int32_t back[] = {2, 0, 3, 1};
  p.MarkReturnedIdle(back, 4);
  CHECK_EQ(p.in_flight(), 0);
  for (int id = 0; id < 4; ++id) CHECK(p.status(id) == EnvStatus::kIdle);
  CHECK(p.TryMarkStepInFlight(four, 4));
}

}  // namespace

int main() {
  return RunTests({
      {"step before reset is refused", StepBeforeResetIsRefused},
      {"bad ids are named", BadIdsAreNamed},
      {"envs in flight cannot be sent again", EnvsInFlightCannotBeSentAgain},
      {"one-pass step sends refuse what CheckSendable refuses", OnePassStepSendsRefuseWhatCheckSendableRefuses},
      {"actions outside the space are named", ActionsOutsideTheSpaceAreNamed},
      {"integer bounds are exact", IntegerBoundsAreExact},
      {"action kinds are the core's to decide", ActionKindsAreTheCoresToDecide},
      {"action shapes are rows times the spec's shape", ActionShapesAreRowsTimesTheSpecsShape},
      {"conversions refuse integers the dtype cannot hold", ConversionsRefuseIntegersTheDtypeCannotHold},
  });
}
