// A pool's own options (how many envs, the batch, threads, seeds, the time limit, autoreset),
// kept apart from the env's kwargs as gymnasium's make_vec keeps its vector_kwargs apart.
//
// PoolOptions is what a caller gives, and the only place each default is written (Python reads
// them from here: envpool._core.PoolOptions()). Resolve is the only place they are checked and
// completed; every factory (pool_factories.h) calls it once, and the pool and its executor take
// the ResolvedPoolOptions whole. Python reads the resolved values back (pool.options).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "core/episode_rules.h"

namespace envpool {

struct PoolOptions {
  int num_envs = 1;
  std::optional<int> batch_size;         // unset: num_envs (a full batch)
  std::optional<int> num_threads;        // unset: DefaultNumThreads (threads stepping native envs)
  std::optional<uint64_t> seed = 42;     // env i is seeded with seed + i; unset: unseeded (Python envs)
  std::optional<int> max_episode_steps;  // unset: the limit the factory gives (a task's); 0: none
  AutoresetMode autoreset = AutoresetMode::kNextStep;
  double spin_us = 50;              // how long an idle worker spins before it sleeps
  int thread_affinity_offset = -1;  // >= 0: worker i pinned to CPU offset + i (core/thread_pool.h)
};

// The options a pool runs with: every value set and checked.
struct ResolvedPoolOptions {
  int num_envs = 1;
  int batch_size = 1;
  int num_threads = 1;
  std::optional<uint64_t> seed;
  int max_episode_steps = 0;  // 0: no limit
  AutoresetMode autoreset = AutoresetMode::kNextStep;
  std::chrono::nanoseconds spin{};
  int thread_affinity_offset = -1;

  bool full_batch() const { return batch_size == num_envs; }
  // Env `env_id`'s seed when the pool is made (the one place this rule is written). Only for a
  // seeded pool.
  uint64_t EnvSeed(int env_id) const { return *seed + static_cast<uint64_t>(env_id); }
};

// The worker threads of a native pool when none are asked for: a full batch uses every core (the
// calling thread steps envs too); an async pool leaves the caller, who runs the policy meanwhile,
// a core. Never more threads than envs in a batch, never fewer than one.
int DefaultNumThreads(int num_envs, int batch_size);

// Throws std::invalid_argument naming the first option out of range; nothing else checks them.
void CheckPoolOptions(const PoolOptions& given);

// `given` checked and completed with the defaults; `max_episode_steps` is the limit an unset
// max_episode_steps takes (a task's own; 0 for pools whose envs keep their own limits).
ResolvedPoolOptions Resolve(const PoolOptions& given, int max_episode_steps);

}  // namespace envpool
