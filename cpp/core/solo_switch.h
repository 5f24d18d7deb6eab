// SoloSwitch: whether the pool's workers step a batch with the waiting caller, or the caller
// steps it alone, chosen by how long the caller waits for batches each way.
//
// Why (issue 43 item 3): on a machine whose cores are shared with other busy processes, a
// worker is preempted for a whole time slice (1-8 ms on Linux) now and then, and when it holds
// a piece of the batch the caller waits for it: CartPole-v1, 256 envs, 2 threads, one busy
// competitor on 2 cores, 17-20M steps/s against 50M quiet, while the caller alone (1 thread)
// kept 28.6M of its 28.9M. Where the caller may step envs (they are quick: see
// ThreadExecutor::QuickForCaller), it then does better alone.
//
// How: the caller times one cycle in four, from the end of one wait for a batch to the end of
// the next (step() to step(), recv() to recv(): two clock reads). A cycle includes the
// caller's own work between calls, which a worker on its core also preempts; cycles over
// kMaxCycle (a pause: a learner's update, a GC) are left out. Phases alternate: the current
// way for a main phase, then the other way for a short probe; the probe's way wins if its mean
// cycle is below 0.9 of the main phase's. A main phase doubles (up to kMaxMain) each time its
// way holds, so on a quiet machine the solo probes cost ~0.1% once the phases are long. After a
// switch to the team the main phase starts short (kTeamAfterSwitch): a probe that missed the
// workers' preemptions by luck is corrected within milliseconds.
// Only the caller's thread uses it: no atomics.
#pragma once

#include <chrono>
#include <cstdint>

namespace envpool {

class SoloSwitch {
 public:
  using Clock = std::chrono::steady_clock;

  // Whether the next batch is the caller's alone.
  bool solo() const { return solo_ != probing_; }
  // A wait for a batch ended with the batch ready (`allowed`: the batch was one the caller
  // could have stepped alone; other cycles are not timed).
  void WaitEnded(bool allowed) {
    const uint64_t phase = calls_++ % kTimeEvery;  // 0: a timed cycle starts, 1: it ends
    if (!allowed || phase > 1) {
      if (!allowed) cycle_start_ = Clock::time_point{};
      return;
    }
    const auto now = Clock::now();
    if (phase == 0) {
      cycle_start_ = now;
    } else if (cycle_start_ != Clock::time_point{}) {
      Record(cycle_start_, now);
    }
  }
  // A cycle from `start` to `end` under the way solo() gave (public for tests).
  void Record(Clock::time_point start, Clock::time_point end) {
    if (end - start > kMaxCycle) return;
    if (phase_start_ == Clock::time_point{}) phase_start_ = start;
    sum_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
    ++count_;
    const auto length = probing_ ? (solo_ ? kTeamProbe : kSoloProbe) : main_;
    if (count_ < kMinSamples || end - phase_start_ < length) return;
    const double mean = static_cast<double>(sum_ns_) / count_;
    sum_ns_ = 0;
    count_ = 0;
    phase_start_ = end;
    if (!probing_) {
      main_mean_ = mean;
      probing_ = true;
      return;
    }
    probing_ = false;
    if (mean < kWinRatio * main_mean_) {
      solo_ = !solo_;
      main_ = solo_ ? kSoloAfterSwitch : kTeamAfterSwitch;
      ++switches_;
    } else {
      main_ = main_ * 2 < kMaxMain ? main_ * 2 : kMaxMain;
    }
  }
  // How many times the way changed (for tests and benches).
  int64_t switches() const { return switches_; }

  static constexpr int kTimeEvery = 4;
  static constexpr int kMinSamples = 8;
  static constexpr std::chrono::milliseconds kMaxCycle{50};
  static constexpr double kWinRatio = 0.9;
  static constexpr std::chrono::milliseconds kSoloProbe{5};
  // Longer than a solo probe: a preempted worker stalls the team for a time slice every few
  // milliseconds to tens of them, which a probe must see to judge the team.
  static constexpr std::chrono::milliseconds kTeamProbe{20};
  static constexpr std::chrono::milliseconds kTeamAfterSwitch{10};
  static constexpr std::chrono::milliseconds kSoloAfterSwitch{100};
  static constexpr std::chrono::milliseconds kMaxMain{1600};

 private:
  bool solo_ = false;     // the main phase's way
  bool probing_ = false;  // in a probe of the other way
  Clock::duration main_ = std::chrono::milliseconds(100);
  Clock::time_point phase_start_{};
  Clock::time_point cycle_start_{};  // the end of the wait that starts the timed cycle
  int64_t sum_ns_ = 0;
  int count_ = 0;
  double main_mean_ = 0;
  uint64_t calls_ = 0;
  int64_t switches_ = 0;
};

}  // namespace envpool
