#include "core/pool_options.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

namespace envpool {

namespace {

// `a + b` in decimal, exactly (it may exceed 64 bits).
std::string DecimalSum(uint64_t a, uint64_t b) {
  std::string x = std::to_string(a), y = std::to_string(b), out;
  int carry = 0;
  for (std::size_t i = 0; i < std::max(x.size(), y.size()) || carry != 0; ++i) {
    const int dx = i < x.size() ? x[x.size() - 1 - i] - '0' : 0;
    const int dy = i < y.size() ? y[y.size() - 1 - i] - '0' : 0;
    const int d = dx + dy + carry;
    out.insert(out.begin(), static_cast<char>('0' + d % 10));
    carry = d / 10;
  }
  return out;
}

void CheckAtLeast(const char* name, int value, int minimum) {
  if (value < minimum) {
    throw std::invalid_argument(std::string(name) + " must be >= " + std::to_string(minimum) + ", got " +
                                std::to_string(value));
  }
}

}  // namespace

int DefaultNumThreads(int num_envs, int batch_size) {
  // hardware_concurrency is the online CPU count, as Python's os.cpu_count().
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::max(1, std::min(batch_size, batch_size == num_envs ? cores : cores - 1));
}

void CheckPoolOptions(const PoolOptions& given) {
  CheckAtLeast("num_envs", given.num_envs, 1);
  if (given.batch_size) {
    CheckAtLeast("batch_size", *given.batch_size, 1);
    if (*given.batch_size > given.num_envs) {
      throw std::invalid_argument("batch_size (" + std::to_string(*given.batch_size) + ") must not exceed num_envs (" +
                                  std::to_string(given.num_envs) + ")");
    }
  }
  if (given.num_threads) CheckAtLeast("num_threads", *given.num_threads, 1);
  if (given.seed && *given.seed > std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(given.num_envs - 1)) {
    const auto last = static_cast<uint64_t>(given.num_envs - 1);
    throw std::invalid_argument("seed=" + std::to_string(*given.seed) +
                                " is too large: env i is seeded with seed + i, and env " + std::to_string(last) +
                                "'s seed " + DecimalSum(*given.seed, last) +
                                " does not fit in 64 bits (seeds must be < 2**64)");
  }
  if (given.max_episode_steps) CheckAtLeast("max_episode_steps", *given.max_episode_steps, 0);
  if (!(given.spin_us >= 0)) throw std::invalid_argument("spin_us must be >= 0, got " + std::to_string(given.spin_us));
  if (given.thread_affinity_offset < -1) {
    throw std::invalid_argument("thread_affinity_offset must be -1 (no pinning) or >= 0, got " +
                                std::to_string(given.thread_affinity_offset));
  }
}

ResolvedPoolOptions Resolve(const PoolOptions& given, int max_episode_steps) {
  CheckPoolOptions(given);
  ResolvedPoolOptions options;
  options.num_envs = given.num_envs;
  options.batch_size = given.batch_size.value_or(given.num_envs);
  options.num_threads = given.num_threads.value_or(DefaultNumThreads(options.num_envs, options.batch_size));
  options.seed = given.seed;
  options.max_episode_steps = given.max_episode_steps.value_or(max_episode_steps);
  options.autoreset = given.autoreset;
  options.spin = std::chrono::nanoseconds(static_cast<int64_t>(given.spin_us * 1000));
  options.thread_affinity_offset = given.thread_affinity_offset;
  return options;
}

}  // namespace envpool
