// envpool_classic_raw: the C++ loop limit of CartPole-v1 for bench/core/classic_limit.py, env steps
// per second of a plain C++ loop over the package's own CartPole class, without the pool,
// its batches or Python per step. A separate extension, not part of envpool: the bench builds it
// on demand (cmake -DENVPOOL_CLASSIC_BENCH=ON, target envpool_classic_raw).
#include <pybind11/pybind11.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/rng.h"
#include "envs/classic_control/cartpole.h"
#include "timed_threads.h"

namespace envpool {
namespace {

using classic_control::CartPole;

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
  return bench::TimedStepsPerSecond(num_threads, seconds, [&](int t, auto&& wait_for_start) {
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
    const bench::Clock::time_point stop = wait_for_start();
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
      if (bench::Clock::now() >= stop) break;
    }
    return count;
  });
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
      "Env steps per second of a plain C++ loop over CartPole-v1 envs (see bench/core/classic_limit.py).");
}
