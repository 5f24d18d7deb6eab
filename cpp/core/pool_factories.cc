#include "core/pool_factories.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace envpool {

namespace {

bool SameArrays(const std::vector<ArraySpec>& a, const std::vector<ArraySpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].shape != b[i].shape || a[i].low != b[i].low ||
        a[i].high != b[i].high || a[i].discrete != b[i].discrete || a[i].text != b[i].text) {
      return false;
    }
  }
  return true;
}

bool SameArrays(const EnvSpec& a, const EnvSpec& b) {
  return SameArrays(a.obs, b.obs) && SameArrays(a.action, b.action) && SameArrays(a.info, b.info) &&
         a.obs_is_tuple == b.obs_is_tuple && a.render_height == b.render_height && a.render_width == b.render_width;
}

// The pool of `spec` with the executor `make(ctx)` builds, and that executor.
template <class ExecutorKind, class Make>
MadePool<ExecutorKind> Build(std::string name, EnvSpec spec, PoolOptions options, Make&& make) {
  MadePool<ExecutorKind> made;
  made.pool = std::make_unique<EnvPool>(std::move(name), std::move(spec), std::move(options), [&](ExecutorContext ctx) {
    auto executor = make(ctx);
    made.executor = executor.get();
    return executor;
  });
  return made;
}

void CheckAtLeast(const char* name, int value, int minimum) {
  if (value < minimum) {
    throw std::invalid_argument(std::string(name) + " must be >= " + std::to_string(minimum) + ", got " +
                                std::to_string(value));
  }
}

}  // namespace

int DefaultNumThreads(int num_envs, int batch_size) {
  // hardware_concurrency is the online CPU count, as Python's os.cpu_count() (make's former rule).
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::max(1, std::min(batch_size, batch_size == num_envs ? cores : cores - 1));
}

PoolOptions ResolveNativeOptions(const TaskSpec& task, const NativePoolArgs& args) {
  PoolOptions options;
  options.num_envs = args.num_envs.value_or(1);
  CheckAtLeast("num_envs", options.num_envs, 1);
  const int batch_size = args.batch_size.value_or(options.num_envs);
  CheckAtLeast("batch_size", batch_size, 1);
  if (batch_size > options.num_envs) {
    throw std::invalid_argument("batch_size (" + std::to_string(batch_size) + ") must not exceed num_envs (" +
                                std::to_string(options.num_envs) + ")");
  }
  options.batch_size = batch_size;
  options.num_threads = args.num_threads;  // defaulted and checked by MakeNativePool
  options.seed = args.seed.value_or(0);
  options.max_episode_steps = args.max_episode_steps.value_or(task.max_episode_steps);
  CheckAtLeast("max_episode_steps", options.max_episode_steps, 0);
  options.autoreset = args.autoreset.value_or(AutoresetMode::kNextStep);
  const double spin_us = args.spin_us.value_or(50.0);
  if (!(spin_us >= 0)) throw std::invalid_argument("spin_us must be >= 0, got " + std::to_string(spin_us));
  options.spin = std::chrono::nanoseconds(static_cast<int64_t>(spin_us * 1000));
  options.thread_affinity_offset = args.thread_affinity_offset.value_or(-1);
  if (options.thread_affinity_offset < -1) {
    throw std::invalid_argument("thread_affinity_offset must be -1 (no pinning) or >= 0, got " +
                                std::to_string(options.thread_affinity_offset));
  }
  return options;
}

MadePool<ThreadExecutor> MakeNativePool(const TaskSpec& task, PoolOptions options) {
  CheckAtLeast("num_envs", options.num_envs, 1);
  const int threads = options.num_threads.value_or(
      DefaultNumThreads(options.num_envs, options.batch_size == 0 ? options.num_envs : options.batch_size));
  CheckAtLeast("num_threads", threads, 1);
  std::vector<Config> configs = options.configs.empty() ? MakeConfigs(task, options.num_envs, {}) : options.configs;
  if (static_cast<int>(configs.size()) != options.num_envs) throw std::invalid_argument("need one config per env");
  EnvSpec spec = task.spec(configs[0]);
  // Per-env kwargs may change the dynamics, never the spaces: every batch has one layout.
  for (std::size_t i = 1; i < configs.size(); ++i) {
    if (configs[i].values() == configs[0].values()) continue;
    if (!SameArrays(task.spec(configs[i]), spec)) {
      throw std::invalid_argument("the kwargs of env " + std::to_string(i) + " give it other observation/action " +
                                  "spaces than env 0's; per-env kwargs must keep the spaces the same");
    }
  }
  if (options.max_episode_steps < 0) options.max_episode_steps = task.max_episode_steps;
  const uint64_t seed = options.seed;
  const auto spin = options.spin;
  const int affinity = options.thread_affinity_offset;
  return Build<ThreadExecutor>(task.id, std::move(spec), std::move(options), [&](ExecutorContext ctx) {
    return std::make_unique<ThreadExecutor>(ctx, task, configs, seed, threads, spin, affinity);
  });
}

MadePool<ProcessExecutor> MakeProcessPool(std::string name, EnvSpec spec, PoolOptions options, ProcessLayout layout) {
  return Build<ProcessExecutor>(std::move(name), std::move(spec), std::move(options), [&](ExecutorContext ctx) {
    return std::make_unique<ProcessExecutor>(ctx, std::move(layout));
  });
}

MadePool<ExternalExecutor> MakeExternalPool(std::string name, EnvSpec spec, PoolOptions options,
                                            std::chrono::nanoseconds wait) {
  return Build<ExternalExecutor>(std::move(name), std::move(spec), std::move(options),
                                 [&](ExecutorContext ctx) { return std::make_unique<ExternalExecutor>(ctx, wait); });
}

}  // namespace envpool
