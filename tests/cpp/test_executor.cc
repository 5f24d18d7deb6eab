// The executor's shared parts (core/executor.h): env errors go back with the batch that holds
// the failed env's row, and a wait's budget ends it on its deadline or an interruption.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "core/executor.h"

using envpool::EnvErrors;
using envpool::WaitBudget;
using envpool::WaitResult;

namespace {

// An async pool may finish an env for a later batch than the one taken: its error waits for
// the batch that holds its row; each error is taken once.
void ErrorsGoWithTheBatchHoldingTheirEnv() {
  EnvErrors errors;
  const int32_t none[] = {0};
  CHECK(errors.TakeFor(none, 1).empty());
  errors.Add(3, "env 3 failed");
  errors.Add(1, "env 1 failed");
  errors.Add(3, "env 3 failed again");
  const int32_t batch[] = {0, 3};
  const auto taken = errors.TakeFor(batch, 2);
  CHECK_EQ(taken.size(), 2u);
  CHECK_EQ(taken[0].first, 3);
  CHECK_EQ(taken[0].second, std::string("env 3 failed"));  // in the order they were added
  CHECK_EQ(taken[1].second, std::string("env 3 failed again"));
  CHECK(errors.TakeFor(batch, 2).empty());
  const int32_t later[] = {1};
  const auto rest = errors.TakeFor(later, 1);
  CHECK_EQ(rest.size(), 1u);
  CHECK_EQ(rest[0].second, std::string("env 1 failed"));
}

// Errors added from several threads at once are all kept.
void ErrorsFromManyThreadsAreAllKept() {
  EnvErrors errors;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&errors, t] {
      for (int i = 0; i < 50; ++i) errors.Add(t, "e");
    });
  }
  for (auto& t : threads) t.join();
  const int32_t ids[] = {0, 1, 2, 3};
  CHECK_EQ(errors.TakeFor(ids, 4).size(), 200u);
}

void ANegativeTimeoutNeverExpires() {
  const std::function<bool()> never;
  const WaitBudget budget(-1, never);
  const auto far = WaitBudget::Clock::now() + std::chrono::hours(24 * 365);
  CHECK(!budget.Expired(far));
  CHECK(!budget.Check(far).has_value());
  CHECK(budget.NextWake(budget.start()) == budget.start() + WaitBudget::kCheckInterval);
}

void ABudgetEndsAtItsDeadline() {
  const std::function<bool()> never;
  const WaitBudget budget(0.5, never);
  const auto deadline = budget.start() + std::chrono::milliseconds(500);
  CHECK(!budget.Expired(deadline - std::chrono::milliseconds(1)));
  CHECK(budget.Expired(deadline));
  CHECK(budget.Check(deadline) == WaitResult::kTimeout);
  // The next look is one check interval on, or the deadline when that comes first.
  const auto near = deadline - std::chrono::milliseconds(3);
  CHECK(budget.NextWake(near) == deadline);
  CHECK(budget.NextWake(budget.start()) == budget.start() + WaitBudget::kCheckInterval);
  CHECK(WaitBudget(0, never).Expired(WaitBudget::Clock::now()));  // timeout 0: a poll
}

// An interruption (the Python module's Ctrl-C check) ends a wait; the deadline comes first.
void AnInterruptionEndsTheWait() {
  bool flag = false;
  const std::function<bool()> interrupted = [&flag] { return flag; };
  const WaitBudget budget(10, interrupted);
  const auto now = budget.start();
  CHECK(!budget.Check(now).has_value());
  flag = true;
  CHECK(budget.Check(now) == WaitResult::kInterrupted);
  CHECK(budget.Check(now + std::chrono::seconds(10)) == WaitResult::kTimeout);
}

}  // namespace

int main() {
  return RunTests({
      {"errors go with the batch holding their env", ErrorsGoWithTheBatchHoldingTheirEnv},
      {"errors from many threads are all kept", ErrorsFromManyThreadsAreAllKept},
      {"a negative timeout never expires", ANegativeTimeoutNeverExpires},
      {"a budget ends at its deadline", ABudgetEndsAtItsDeadline},
      {"an interruption ends the wait", AnInterruptionEndsTheWait},
  });
}
