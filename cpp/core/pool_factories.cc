#include "core/pool_factories.h"

#include <stdexcept>
#include <string>
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
MadePool<ExecutorKind> Build(std::string name, EnvSpec spec, const ResolvedPoolOptions& options, Make&& make) {
  MadePool<ExecutorKind> made;
  made.pool = std::make_unique<EnvPool>(std::move(name), std::move(spec), options, [&](ExecutorContext ctx) {
    auto executor = make(ctx);
    made.executor = executor.get();
    return executor;
  });
  return made;
}

}  // namespace

MadePool<ThreadExecutor> MakeNativePool(const TaskSpec& task, const PoolOptions& options, std::vector<Config> configs) {
  const ResolvedPoolOptions resolved = Resolve(options, task.max_episode_steps);
  if (!resolved.seed) throw std::invalid_argument("seed must be an int: native envs are always seeded, got None");
  if (configs.empty()) configs = MakeConfigs(task, resolved.num_envs, {});
  if (static_cast<int>(configs.size()) != resolved.num_envs) throw std::invalid_argument("need one config per env");
  EnvSpec spec = task.spec(configs[0]);
  // Per-env kwargs may change the dynamics, never the spaces: every batch has one layout.
  for (std::size_t i = 1; i < configs.size(); ++i) {
    if (configs[i].values() == configs[0].values()) continue;
    if (!SameArrays(task.spec(configs[i]), spec)) {
      throw std::invalid_argument("the kwargs of env " + std::to_string(i) + " give it other observation/action " +
                                  "spaces than env 0's; per-env kwargs must keep the spaces the same");
    }
  }
  return Build<ThreadExecutor>(task.id, std::move(spec), resolved, [&](ExecutorContext ctx) {
    return std::make_unique<ThreadExecutor>(ctx, task, configs, resolved);
  });
}

MadePool<ProcessExecutor> MakeProcessPool(std::string name, EnvSpec spec, const PoolOptions& options,
                                          ProcessLayout layout) {
  return Build<ProcessExecutor>(std::move(name), std::move(spec), Resolve(options, 0), [&](ExecutorContext ctx) {
    return std::make_unique<ProcessExecutor>(ctx, std::move(layout));
  });
}

MadePool<ExternalExecutor> MakeExternalPool(std::string name, EnvSpec spec, const PoolOptions& options,
                                            std::chrono::nanoseconds wait) {
  return Build<ExternalExecutor>(std::move(name), std::move(spec), Resolve(options, 0),
                                 [&](ExecutorContext ctx) { return std::make_unique<ExternalExecutor>(ctx, wait); });
}

}  // namespace envpool
