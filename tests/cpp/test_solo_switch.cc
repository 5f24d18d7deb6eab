// The solo switch (core/solo_switch.h): from timed cycles alone, it keeps the team where the
// team is faster, moves to the caller alone where the team's cycles are slower, and comes
// back when the team is faster again; pauses do not count.
#include <chrono>

#include "check.h"
#include "core/solo_switch.h"

using envpool::SoloSwitch;
using Clock = SoloSwitch::Clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

// Feeds `sw` cycles of `team` (the workers take part) or `solo` (the caller alone) length,
// each under the way the switch gives, for `span` of simulated time from `*now`.
// `floor`: what the switch is told the caller alone would spend stepping a batch (0: unknown).
void Run(SoloSwitch& sw, Clock::time_point* now, Clock::duration team, Clock::duration solo, Clock::duration span,
         Clock::duration floor = {}) {
  const auto end = *now + span;
  while (*now < end) {
    const auto cycle = sw.solo() ? solo : team;
    sw.Record(*now, *now + cycle, std::chrono::nanoseconds(floor).count());
    *now += cycle;
  }
}

// Fraction of cycles the caller steps alone over `span`.
double SoloShare(SoloSwitch& sw, Clock::time_point* now, Clock::duration team, Clock::duration solo,
                 Clock::duration span) {
  const auto end = *now + span;
  long solo_cycles = 0, cycles = 0;
  while (*now < end) {
    const bool alone = sw.solo();
    const auto cycle = alone ? solo : team;
    sw.Record(*now, *now + cycle);
    *now += cycle;
    solo_cycles += alone ? 1 : 0;
    ++cycles;
  }
  return static_cast<double>(solo_cycles) / static_cast<double>(cycles);
}

void AFasterTeamKeepsTheWorkersAndProbesLessAndLess() {
  SoloSwitch sw;
  Clock::time_point now{};
  CHECK(!sw.solo());
  // A quiet machine: the team's cycle 5 us, the caller's alone 8 us.
  Run(sw, &now, microseconds(5), microseconds(8), std::chrono::seconds(2));
  CHECK_EQ(sw.switches(), 0);
  // Once the main phases are long, the 5 ms solo probes are a small share of the time.
  const double share = SoloShare(sw, &now, microseconds(5), microseconds(8), std::chrono::seconds(10));
  CHECK(share < 0.01);
}

void ASlowerTeamIsLeftForTheCallerAloneAndRetriedRarely() {
  SoloSwitch sw;
  Clock::time_point now{};
  // A shared machine: preempted workers make the team's cycle 15 us, the caller's alone 9 us.
  Run(sw, &now, microseconds(15), microseconds(9), milliseconds(300));
  CHECK(sw.switches() >= 1);
  const double share = SoloShare(sw, &now, microseconds(15), microseconds(9), std::chrono::seconds(10));
  CHECK(share > 0.97);  // the team probes (20 ms each) grow rarer as solo holds
  // The competitor ends: the team's cycle 5 us again. The next team probe wins.
  const auto switched = sw.switches();
  Run(sw, &now, microseconds(5), microseconds(8), std::chrono::seconds(2));
  CHECK(sw.switches() > switched);
  CHECK(SoloShare(sw, &now, microseconds(5), microseconds(8), std::chrono::seconds(5)) < 0.05);
}

void ALuckyTeamProbeIsCorrectedQuickly() {
  SoloSwitch sw;
  Clock::time_point now{};
  Run(sw, &now, microseconds(15), microseconds(9), milliseconds(300));
  CHECK(sw.solo());
  // The team probe that comes next looks fast (it missed the preemptions), then the team is
  // slow again: the switch back to the team lasts one short main phase.
  while (sw.solo()) {
    sw.Record(now, now + microseconds(9));
    now += microseconds(9);
  }
  const auto before = sw.switches();
  while (sw.switches() == before) {  // the lucky probe
    sw.Record(now, now + microseconds(4));
    now += microseconds(4);
  }
  CHECK(!sw.solo());
  CHECK_EQ(sw.switches(), before + 1);
  // One short main phase of the slow team (10 ms), one solo probe (5 ms): alone again.
  Run(sw, &now, microseconds(15), microseconds(9), milliseconds(20));
  CHECK_EQ(sw.switches(), before + 2);
}

// Where the team's cycle is shorter than the caller alone would spend stepping the batch (the
// floor: envs x the estimate of a step), a solo probe cannot win and is skipped; once the team
// slows past the floor (a shared machine) the probes run and the caller goes alone.
void NoSoloProbeWhereTheCallerAloneCannotWin() {
  SoloSwitch sw;
  Clock::time_point now{};
  const auto end = now + std::chrono::seconds(5);
  while (now < end) {
    CHECK(!sw.solo());
    sw.Record(now, now + microseconds(5), 7000);
    now += microseconds(5);
  }
  CHECK(sw.skipped_probes() >= 3);
  CHECK_EQ(sw.switches(), 0);
  Run(sw, &now, microseconds(15), microseconds(9), std::chrono::seconds(2), microseconds(7));
  CHECK(sw.solo());
  CHECK_EQ(sw.switches(), 1);
}

void PausesAreLeftOut() {
  SoloSwitch sw;
  Clock::time_point now{};
  // A team at 5 us a cycle with a 2 s pause (a learner's update) every 50 ms: the pauses are
  // not the team's cost, so the team stays.
  for (int i = 0; i < 40; ++i) {
    Run(sw, &now, microseconds(5), microseconds(8), milliseconds(50));
    sw.Record(now, now + std::chrono::seconds(2));
    now += std::chrono::seconds(2);
  }
  CHECK_EQ(sw.switches(), 0);
}

}  // namespace

int main() {
  return RunTests({
      {"a faster team keeps the workers and probes less and less", AFasterTeamKeepsTheWorkersAndProbesLessAndLess},
      {"a slower team is left for the caller alone and retried rarely",
       ASlowerTeamIsLeftForTheCallerAloneAndRetriedRarely},
      {"a lucky team probe is corrected quickly", ALuckyTeamProbeIsCorrectedQuickly},
      {"no solo probe where the caller alone cannot win", NoSoloProbeWhereTheCallerAloneCannotWin},
      {"pauses are left out", PausesAreLeftOut},
  });
}
