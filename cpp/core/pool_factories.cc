#include "core/pool_factories.h"

#include <stdexcept>
#include <utility>
#include <vector>

namespace envpool {

namespace {

bool SameArrays(const std::vector<ArraySpec>& a, const std::vector<ArraySpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].shape != b[i].shape || a[i].low != b[i].low ||
        a[i].high != b[i].high || a[i].discrete != b[i].discrete) {
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

}  // namespace

MadePool<ThreadExecutor> MakeNativePool(const TaskSpec& task, PoolOptions options) {
  if (options.num_envs < 1) {
    throw std::invalid_argument("num_envs must be >= 1, got " + std::to_string(options.num_envs));
  }
  if (options.num_threads < 1) {
    throw std::invalid_argument("num_threads must be >= 1, got " + std::to_string(options.num_threads));
  }
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
  const int threads = options.num_threads;
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
