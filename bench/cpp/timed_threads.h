// The timing harness of the bench's raw C++ loops (classic_raw.cc, mujoco_raw.cc): steps per
// second of `num_threads` threads that set up their share on their own thread, start together
// and stop after `seconds`.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace envpool::bench {

using Clock = std::chrono::steady_clock;

// Runs `body(t, start)` on thread t = 0..num_threads-1. The body sets up its share, calls
// `start()` (which returns once every thread has called it, with the time to stop at), steps
// until then and returns how many env steps it took. Returns the steps of all threads per
// second of the time from the common start to the last thread's return. An exception from a
// body (before or after its start) is rethrown here once every thread has ended.
template <class Body>
double TimedStepsPerSecond(int num_threads, double seconds, Body&& body) {
  const auto n = static_cast<std::size_t>(num_threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Clock::time_point start, stop;
  std::vector<uint64_t> steps(n, 0);
  std::vector<Clock::time_point> ends(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<char> started(n, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      const auto i = static_cast<std::size_t>(t);
      auto wait_for_start = [&] {
        started[i] = 1;
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        return stop;
      };
      try {
        steps[i] = body(t, wait_for_start);
      } catch (...) {
        errors[i] = std::current_exception();
        if (!started[i]) ready.fetch_add(1);  // the others must not wait for this one
      }
      ends[i] = Clock::now();
    });
  }
  while (ready.load() < num_threads) std::this_thread::yield();
  start = Clock::now();
  stop = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  uint64_t total = 0;
  Clock::time_point last = start;
  for (std::size_t i = 0; i < n; ++i) {
    total += steps[i];
    last = std::max(last, ends[i]);
  }
  const double elapsed = std::chrono::duration<double>(last - start).count();
  return elapsed > 0 ? static_cast<double>(total) / elapsed : 0.0;
}

}  // namespace envpool::bench
