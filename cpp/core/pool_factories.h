// One factory per executor kind: the only place an EnvPool meets a concrete executor (the
// pool itself knows the Executor interface alone). Each returns the pool and its executor, for
// callers that drive that kind's own calls (a process pool's workers, an external pool's slots).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "core/external_executor.h"
#include "core/pool.h"
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

// Native envs of a registered task, stepped by a thread pool (options.num_threads workers).
// options.configs: one per env, complete (MakeConfigs); empty: the task's defaults. Per-env
// configs may change the dynamics, never the spaces. max_episode_steps < 0: the task's limit.
MadePool<ThreadExecutor> MakeNativePool(const TaskSpec& task, PoolOptions options);

// Envs in worker processes that attach to the shared memory laid out by `layout`.
MadePool<ProcessExecutor> MakeProcessPool(std::string name, EnvSpec spec, PoolOptions options, ProcessLayout layout);

// Slots that external episodes hold; a batch is cut `wait` after its first row arrived.
MadePool<ExternalExecutor> MakeExternalPool(std::string name, EnvSpec spec, PoolOptions options,
                                            std::chrono::nanoseconds wait);

}  // namespace envpool
