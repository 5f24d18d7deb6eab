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
// How: the caller times cycles, from the end of one wait for a batch to the end of the next
// (step() to step(), recv() to recv()): one in four in a main phase, every one in a probe. A
// cycle includes the caller's own work between calls, which a worker on its core also
// preempts; cycles over kMaxCycle (a pause: a learner's update, a GC) are left out. Phases
// alternate: the current way for a main phase, then the other way for a short probe; the
// probe's way wins if its mean cycle is below 0.9 of the main phase's. A main phase doubles (up
// to kMaxMain) each time its way holds. The team skips its solo probe where the caller alone
// could not win: its mean cycle is under the time the caller alone would spend stepping the
// batch (`solo_floor`: envs x the running estimate of a step), as on a quiet machine wherever
// the workers pay (HalfCheetah-v5, 256 envs in batches of 128: a 40 ms probe at half speed
// after each of the first phases cost 10% of a 0.7 s bench sample). After a switch to the
// team the main phase starts short (kTeamAfterSwitch): a probe that missed the workers'
// preemptions by luck is corrected within milliseconds.
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
  // A wait for a batch the caller could have stepped alone ended with the batch ready;
  // stepping it alone takes at least `solo_floor_ns` (0: unknown).
  void WaitEnded(int64_t solo_floor_ns) {
    const uint64_t phase = calls_++ % kTimeEvery;  // in a main phase 0: a timed cycle starts, 1: it ends
    if (!probing_ && phase > 1) return;
    const auto now = Clock::now();
    if (cycle_start_ != Clock::time_point{} && (probing_ || phase == 1)) Record(cycle_start_, now, solo_floor_ns);
    cycle_start_ = probing_ || phase == 0 ? now : Clock::time_point{};
  }
  // A wait for a batch the caller could not step alone: the cycle it ends is not timed.
  void WaitEndedUntimed() { cycle_start_ = Clock::time_point{}; }
  // A cycle from `start` to `end` under the way solo() gave (public for tests).
  void Record(Clock::time_point start, Clock::time_point end, int64_t solo_floor_ns = 0) {
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
      if (!solo_ && mean <= static_cast<double>(solo_floor_ns)) {
        LengthenMain();  // the caller alone cannot win
        ++skipped_probes_;
        return;
      }
      probing_ = true;
      return;
    }
    probing_ = false;
    if (mean < kWinRatio * main_mean_) {
      solo_ = !solo_;
      main_ = solo_ ? kSoloAfterSwitch : kTeamAfterSwitch;
      ++switches_;
    } else {
      LengthenMain();
    }
  }
  // How many times the way changed, and solo probes were skipped (for tests).
  int64_t switches() const { return switches_; }
  int64_t skipped_probes() const { return skipped_probes_; }

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
  // The main phase's way held: its next main phase is twice as long, up to kMaxMain.
  void LengthenMain() { main_ = main_ * 2 < kMaxMain ? main_ * 2 : Clock::duration(kMaxMain); }

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
  int64_t skipped_probes_ = 0;
};

}  // namespace envpool
