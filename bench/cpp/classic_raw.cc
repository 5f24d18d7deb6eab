// envpool_classic_raw: the C++ loop limit of CartPole-v1 for bench/classic_limit.py, env steps
// per second of a plain C++ loop over the package's own CartPole class, without the pool,
// its batches or Python per step. A separate extension, not part of envpool: the bench builds it
// on demand (cmake -DENVPOOL_CLASSIC_BENCH=ON, target envpool_classic_raw).
#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/rng.h"
#include "envs/classic_control/cartpole.h"

namespace envpool {
namespace {

// Steps `num_envs` CartPole envs for `seconds` on `num_threads` threads, each owning
// num_envs / num_threads of them (made on that thread) and stepping them in turn, over and
// over: random actions drawn ahead of time, each env's row of observation, reward and flags
// written into arrays laid out as a batch (one row per env, as the pool's), and an env reset
// when it terminates or reaches 500 steps (CartPole-v1's limit). No thread waits for another.
// Returns env steps per second over the time all threads ran. Call it without the GIL.
double RawStepsPerSecond(int num_envs, int num_threads, double seconds) {
  if (num_envs < 1 || num_threads < 1 || num_threads > num_envs) {
    throw std::invalid_argument("need 1 <= num_threads <= num_envs");
  }
  if (!(seconds > 0)) throw std::invalid_argument("seconds must be > 0");
  constexpr int kActionSets = 64;  // random action rows per env, cycled
  constexpr int kMaxSteps = 500;
  using Clock = std::chrono::steady_clock;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Clock::time_point start;
  std::vector<uint64_t> steps(static_cast<std::size_t>(num_threads), 0);
  std::vector<Clock::time_point> ends(static_cast<std::size_t>(num_threads));
  std::vector<std::thread> threads;
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      const int begin = static_cast<int>(static_cast<int64_t>(num_envs) * t / num_threads);
      const int n = static_cast<int>(static_cast<int64_t>(num_envs) * (t + 1) / num_threads) - begin;
      const auto un = static_cast<std::size_t>(n);
      std::vector<std::unique_ptr<CartPole>> envs;
      std::vector<Rng> rngs(un);
      std::vector<int> elapsed(un, 0);
      std::vector<int64_t> actions(un * kActionSets);
      std::vector<float> obs(un * 4);
      std::vector<double> reward(un);
      std::unique_ptr<bool[]> terminated(new bool[un]()), truncated(new bool[un]());
      std::mt19937_64 draw(static_cast<uint64_t>(t));
      for (auto& a : actions) a = static_cast<int64_t>(draw() & 1);
      std::vector<void*> obs_row(un);  // Output keeps a pointer to its env's entry
      for (std::size_t i = 0; i < un; ++i) obs_row[i] = obs.data() + 4 * i;
      auto output = [&](std::size_t i) {
        return Output(&obs_row[i], nullptr, &reward[i], &terminated[i], &truncated[i]);
      };
      for (std::size_t i = 0; i < un; ++i) {
        envs.push_back(std::make_unique<CartPole>(CartPole::DefaultConfig()));
        rngs[i].Seed(static_cast<uint64_t>(begin) + i);
        envs[i]->Seed(static_cast<uint64_t>(begin) + i);
        Output out = output(i);
        envs[i]->Reset(rngs[i], out);
      }
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const Clock::time_point stop =
          start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
      uint64_t count = 0;
      for (unsigned k = 0;; ++k) {
        const int64_t* a = actions.data() + static_cast<std::size_t>(k % kActionSets) * un;
        for (std::size_t i = 0; i < un; ++i) {
          const void* act[1] = {a + i};
          Output out = output(i);
          reward[i] = 0.0;
          terminated[i] = truncated[i] = false;
          envs[i]->Step(Action(act), rngs[i], out);
          if (terminated[i] || ++elapsed[i] >= kMaxSteps) {
            envs[i]->Reset(rngs[i], out);
            elapsed[i] = 0;
          }
        }
        count += un;
        if (Clock::now() >= stop) break;
      }
      ends[static_cast<std::size_t>(t)] = Clock::now();
      steps[static_cast<std::size_t>(t)] = count;
    });
  }
  while (ready.load() < num_threads) std::this_thread::yield();
  start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  uint64_t total = 0;
  Clock::time_point last = start;
  for (int t = 0; t < num_threads; ++t) {
    total += steps[static_cast<std::size_t>(t)];
    last = std::max(last, ends[static_cast<std::size_t>(t)]);
  }
  const double elapsed = std::chrono::duration<double>(last - start).count();
  return elapsed > 0 ? static_cast<double>(total) / elapsed : 0.0;
}

}  // namespace
}  // namespace envpool

PYBIND11_MODULE(envpool_classic_raw, m) {
  namespace py = pybind11;
  m.def(
      "cartpole_steps_per_second",
      [](int num_envs, int num_threads, double seconds) {
        py::gil_scoped_release release;
        return envpool::RawStepsPerSecond(num_envs, num_threads, seconds);
      },
      py::arg("num_envs"), py::arg("num_threads"), py::arg("seconds"),
      "Env steps per second of a plain C++ loop over CartPole-v1 envs (see bench/classic_limit.py).");
}
