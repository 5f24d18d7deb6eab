// The send/recv protocol (core/protocol.h): which envs may be sent, the env states a send and
// a taken batch move through, and action validation.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "check.h"
#include "core/protocol.h"

using envpool::ArraySpec;
using envpool::DType;
using envpool::EnvStatus;
using envpool::Protocol;
using envpool::ProtocolError;

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

}  // namespace

int main() {
  return RunTests({
      {"step before reset is refused", StepBeforeResetIsRefused},
      {"bad ids are named", BadIdsAreNamed},
      {"envs in flight cannot be sent again", EnvsInFlightCannotBeSentAgain},
      {"actions outside the space are named", ActionsOutsideTheSpaceAreNamed},
  });
}
