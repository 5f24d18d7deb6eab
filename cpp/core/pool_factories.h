// One factory per executor kind: the only place an EnvPool meets a concrete executor (the
// pool itself knows the Executor interface alone). Each returns the pool and its executor, for
// callers that drive that kind's own calls (a process pool's workers, an external pool's slots).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/external_executor.h"
#include "core/pool.h"
#include "core/pool_options.h"
#include "core/process_channel.h"
#include "core/process_executor.h"
#include "core/registry.h"
#include "core/thread_executor.h"

namespace envpool {

template <class ExecutorKind>
struct MadePool {
  std::unique_ptr<EnvPool> pool;
  ExecutorKind* executor = nullptr;  // owned by the pool
};

// Each factory resolves `options` once (core/pool_options.h: the defaults, the checks) and hands
// the pool and its executor the result whole.

// Native envs of a registered task, stepped by a thread pool. `configs`: one per env, complete
// (MakeConfigs); empty: the task's defaults. Per-env configs may change the dynamics, never the
// spaces. An unset max_episode_steps is the task's limit; native envs are always seeded.
MadePool<ThreadExecutor> MakeNativePool(const TaskSpec& task, const PoolOptions& options,
                                        std::vector<Config> configs = {});

// Envs in worker processes that attach to the shared memory laid out by `layout` (its env
// count must be options.num_envs). An unset max_episode_steps is none: the envs keep their own.
MadePool<ProcessExecutor> MakeProcessPool(std::string name, EnvSpec spec, const PoolOptions& options,
                                          ProcessLayout layout);

// Slots that external episodes hold; a batch is cut `wait` after its first row arrived.
MadePool<ExternalExecutor> MakeExternalPool(std::string name, EnvSpec spec, const PoolOptions& options,
                                            std::chrono::nanoseconds wait);

}  // namespace envpool
