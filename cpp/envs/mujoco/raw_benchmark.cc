// See raw_benchmark.h.
#include "envs/mujoco/raw_benchmark.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "envs/mujoco/loader.h"

namespace envpool::mujoco {

double RawStepsPerSecond(const std::string& xml_path, int num_envs, int num_threads, double seconds, int frame_skip,
                         bool rne_post_constraint) {
  if (num_envs < 1 || num_threads < 1 || num_threads > num_envs) {
    throw std::invalid_argument("need 1 <= num_threads <= num_envs");
  }
  if (frame_skip < 1) throw std::invalid_argument("frame_skip must be >= 1");
  if (!(seconds > 0)) throw std::invalid_argument("seconds must be > 0");
  const MjApi& mj = Mj();
  const std::shared_ptr<const mjModel> model = LoadModel(xml_path);
  const mjModel* m = model.get();
  constexpr int kActionSets = 64;  // random ctrl vectors per env, cycled
  constexpr double kResetTime = 10.0;

  using Clock = std::chrono::steady_clock;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Clock::time_point start;
  std::vector<uint64_t> steps(static_cast<std::size_t>(num_threads), 0);
  std::vector<Clock::time_point> ends(static_cast<std::size_t>(num_threads));
  std::vector<std::string> errors(static_cast<std::size_t>(num_threads));
  std::vector<std::thread> threads;
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      const int begin = static_cast<int>(static_cast<int64_t>(num_envs) * t / num_threads);
      const int end = static_cast<int>(static_cast<int64_t>(num_envs) * (t + 1) / num_threads);
      const int n = end - begin;
      const int nu = m->nu;
      std::vector<mjData*> datas;
      std::vector<double> ctrl(static_cast<std::size_t>(n) * kActionSets * static_cast<std::size_t>(nu));
      Rng rng(static_cast<uint64_t>(t));
      for (std::size_t k = 0; k < ctrl.size(); ++k) {
        const std::size_t u = k % static_cast<std::size_t>(nu);
        ctrl[k] = m->actuator_ctrllimited[u] ? rng.Uniform(m->actuator_ctrlrange[2 * u], m->actuator_ctrlrange[2 * u + 1])
                                             : rng.Uniform(-1.0, 1.0);
      }
      for (int i = 0; i < n; ++i) {
        mjData* d = mj.makeData(m);
        if (!d) errors[static_cast<std::size_t>(t)] = "mj_makeData failed";
        datas.push_back(d);
      }
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) CpuRelax();
      uint64_t count = 0;
      if (errors[static_cast<std::size_t>(t)].empty()) {
        const Clock::time_point stop = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
        for (unsigned k = 0;; ++k) {
          const double* c = ctrl.data() + static_cast<std::size_t>(k % kActionSets) * static_cast<std::size_t>(n * nu);
          for (int i = 0; i < n; ++i, c += nu) {
            mjData* d = datas[static_cast<std::size_t>(i)];
            std::copy(c, c + nu, d->ctrl);
            for (int s = 0; s < frame_skip; ++s) mj.step(m, d);
            if (rne_post_constraint) mj.rnePostConstraint(m, d);
            if (d->time > kResetTime) mj.resetData(m, d);
          }
          count += static_cast<uint64_t>(n);
          if (Clock::now() >= stop) break;
        }
      }
      ends[static_cast<std::size_t>(t)] = Clock::now();
      steps[static_cast<std::size_t>(t)] = count;
      for (mjData* d : datas) {
        if (d) mj.deleteData(d);
      }
    });
  }
  while (ready.load() < num_threads) std::this_thread::yield();
  start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  for (const auto& e : errors) {
    if (!e.empty()) throw std::runtime_error(e);
  }
  uint64_t total = 0;
  Clock::time_point last = start;
  for (int t = 0; t < num_threads; ++t) {
    total += steps[static_cast<std::size_t>(t)];
    last = std::max(last, ends[static_cast<std::size_t>(t)]);
  }
  const double elapsed = std::chrono::duration<double>(last - start).count();
  return elapsed > 0 ? static_cast<double>(total) / elapsed : 0.0;
}

}  // namespace envpool::mujoco
