// One factory per executor kind: the only place an EnvPool meets a concrete executor (the
// pool itself knows the Executor interface alone). Each returns the pool and its executor, for
// callers that drive that kind's own calls (a process pool's workers, an external pool's slots).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
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

// make()'s options for a native pool as the caller gave them (Python passes None for each one it
// leaves out): unset means the default. ResolveNativeOptions is the one place that gives each
// option its default and its check, so the binding only converts types.
struct NativePoolArgs {
  std::optional<int> num_envs;                // default 1
  std::optional<int> batch_size;              // default num_envs (full batch); 1..num_envs
  std::optional<int> num_threads;             // default DefaultNumThreads; >= 1
  std::optional<uint64_t> seed;               // default 0; env i's RNG is seeded from seed + i
  std::optional<int> max_episode_steps;       // default the task's limit; 0: none; >= 0
  std::optional<AutoresetMode> autoreset;     // default next_step
  std::optional<double> spin_us;              // default 50; >= 0
  std::optional<int> thread_affinity_offset;  // default -1 (no pinning); -1 or >= 0
};

// The worker threads of a native pool when make() names none: a full batch uses every core (the
// calling thread steps envs too); an async pool leaves the caller, who runs the policy meanwhile,
// a core. Never more threads than envs in a batch, never fewer than one.
int DefaultNumThreads(int num_envs, int batch_size);

// `args` checked (std::invalid_argument naming the option) and completed with the defaults.
// max_episode_steps comes back as the task's limit when unset, so the pool gets a resolved value.
PoolOptions ResolveNativeOptions(const TaskSpec& task, const NativePoolArgs& args);

// Native envs of a registered task, stepped by a thread pool (options.num_threads workers; unset:
// DefaultNumThreads).
// options.configs: one per env, complete (MakeConfigs); empty: the task's defaults. Per-env
// configs may change the dynamics, never the spaces. max_episode_steps < 0: the task's limit.
MadePool<ThreadExecutor> MakeNativePool(const TaskSpec& task, PoolOptions options);

// Envs in worker processes that attach to the shared memory laid out by `layout`.
MadePool<ProcessExecutor> MakeProcessPool(std::string name, EnvSpec spec, PoolOptions options, ProcessLayout layout);

// Slots that external episodes hold; a batch is cut `wait` after its first row arrived.
MadePool<ExternalExecutor> MakeExternalPool(std::string name, EnvSpec spec, PoolOptions options,
                                            std::chrono::nanoseconds wait);

}  // namespace envpool
