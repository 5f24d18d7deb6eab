// envpool_mujoco_raw: the raw physics limit of a MuJoCo task for bench/envs/mujoco.py, env
// steps per second of a plain C++ loop of mj_step, without the pool, observations, rewards or
// Python per step. A separate extension, not part of envpool: the bench builds it on demand
// (cmake -DENVPOOL_MUJOCO_BENCH=ON, target envpool_mujoco_raw) with the same loader as envpool,
// so both step the same libmujoco.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/mujoco/loader.h"
#include "timed_threads.h"

namespace envpool::mujoco {
namespace {

// Loads `xml_path` through LoadModel (resolved as gymnasium does: a bare name is one of its
// asset files), makes one mjData per env and steps them for `seconds` on `num_threads` threads,
// each owning num_envs / num_threads of the datas (made on that thread): per env step, a
// random ctrl within actuator_ctrlrange (drawn ahead of time), `frame_skip` mj_step calls and,
// with `rne_post_constraint`, one mj_rnePostConstraint (as gymnasium's do_simulation); an env
// whose sim time passes 10 s is reset to qpos0 (mj_resetData). Returns env steps per second
// over the time all threads ran. Call it without holding the GIL.
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

  // Each thread's datas, freed after the timed run (freeing them is not part of it).
  std::vector<std::vector<mjData*>> datas(static_cast<std::size_t>(num_threads));
  struct FreeDatas {
    const MjApi& mj;
    std::vector<std::vector<mjData*>>& datas;
    ~FreeDatas() {
      for (auto& mine : datas) {
        for (mjData* d : mine) mj.deleteData(d);
      }
    }
  } free_datas{mj, datas};
  return bench::TimedStepsPerSecond(num_threads, seconds, [&](int t, auto&& wait_for_start) {
    const int begin = static_cast<int>(static_cast<int64_t>(num_envs) * t / num_threads);
    const int end = static_cast<int>(static_cast<int64_t>(num_envs) * (t + 1) / num_threads);
    const int n = end - begin;
    const int nu = m->nu;
    std::vector<mjData*>& mine = datas[static_cast<std::size_t>(t)];
    std::vector<double> ctrl(static_cast<std::size_t>(n) * kActionSets * static_cast<std::size_t>(nu));
    std::mt19937_64 rng(static_cast<uint64_t>(t));
    for (std::size_t k = 0; k < ctrl.size(); ++k) {
      const std::size_t u = k % static_cast<std::size_t>(nu);
      const bool limited = m->actuator_ctrllimited[u];
      ctrl[k] = std::uniform_real_distribution<double>(limited ? m->actuator_ctrlrange[2 * u] : -1.0,
                                                       limited ? m->actuator_ctrlrange[2 * u + 1] : 1.0)(rng);
    }
    for (int i = 0; i < n; ++i) {
      mjData* d = mj.makeData(m);
      if (!d) throw std::runtime_error("mj_makeData failed");
      mine.push_back(d);
    }
    const bench::Clock::time_point stop = wait_for_start();
    uint64_t count = 0;
    for (unsigned k = 0;; ++k) {
      const double* c = ctrl.data() + static_cast<std::size_t>(k % kActionSets) * static_cast<std::size_t>(n * nu);
      for (int i = 0; i < n; ++i, c += nu) {
        mjData* d = mine[static_cast<std::size_t>(i)];
        std::copy(c, c + nu, d->ctrl);
        for (int s = 0; s < frame_skip; ++s) mj.step(m, d);
        if (rne_post_constraint) mj.rnePostConstraint(m, d);
        if (d->time > kResetTime) mj.resetData(m, d);
      }
      count += static_cast<uint64_t>(n);
      if (bench::Clock::now() >= stop) break;
    }
    return count;
  });
}

}  // namespace
}  // namespace envpool::mujoco

PYBIND11_MODULE(envpool_mujoco_raw, m) {
  namespace py = pybind11;
  m.def(
      "steps_per_second",
      [](const std::string& xml_path, int num_envs, int num_threads, double seconds, int frame_skip,
         bool rne_post_constraint) {
        py::gil_scoped_release release;  // (loading libmujoco takes the GIL itself when it must)
        return envpool::mujoco::RawStepsPerSecond(xml_path, num_envs, num_threads, seconds, frame_skip,
                                                  rne_post_constraint);
      },
      py::arg("xml_path"), py::arg("num_envs"), py::arg("num_threads"), py::arg("seconds"), py::arg("frame_skip"),
      py::arg("rne_post_constraint") = false, "Env steps/s of a plain C++ mj_step loop (no pool, no Python per step).");
}
