// MakeNativePool (core/pool_factories.cc) and Resolve (core/pool_options.cc): the checks a
// native pool's options get before any env is built, the defaults they are completed with (the
// time limit the task's), and per-env kwargs that may change dynamics but never spaces.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "core/pool_factories.h"
#include "core/registry.h"

using envpool::ArraySpec;
using envpool::Config;
using envpool::DType;
using envpool::Env;
using envpool::EnvSpec;
using envpool::MakeNativePool;
using envpool::PoolOptions;
using envpool::Resolve;
using envpool::TaskSpec;

namespace {

// "size" shapes the observation; "gain" only scales the reward.
class Sized : public Env {
 public:
  explicit Sized(const Config&) {}
  static Config DefaultConfig() { return {{"size", int64_t{2}}, {"gain", 1.0}}; }
  static EnvSpec Spec(const Config& c) {
    EnvSpec spec;
    spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat32, {static_cast<int>(c.Get<int64_t>("size"))}, {}, {}));
    spec.action.push_back(ArraySpec::Discrete("action", 2));
    return spec;
  }
  void Reset(envpool::Rng&, envpool::Output&) override {}
  void Step(const envpool::Action&, envpool::Rng&, envpool::Output&) override {}
};

const TaskSpec& SizedTask() {
  static const TaskSpec& task = envpool::RegisterTask(envpool::Task<Sized>("FactorySized-v0", 7));
  return task;
}

PoolOptions Options(int num_envs) {
  PoolOptions options;
  options.num_envs = num_envs;
  options.num_threads = 1;
  return options;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void BadCountsAreRefused() {
  PoolOptions no_envs = Options(0);
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, MakeNativePool(SizedTask(), no_envs)),
                 "num_envs must be >= 1, got 0"));
  PoolOptions no_threads = Options(2);
  no_threads.num_threads = 0;
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, MakeNativePool(SizedTask(), no_threads)),
                 "num_threads must be >= 1, got 0"));
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, MakeNativePool(SizedTask(), Options(3), {SizedTask().defaults})),
                 "need one config per env"));
  PoolOptions too_big_a_batch = Options(2);
  too_big_a_batch.batch_size = 3;
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, MakeNativePool(SizedTask(), too_big_a_batch)),
                 "batch_size (3) must not exceed num_envs (2)"));
  PoolOptions unseeded = Options(1);
  unseeded.seed.reset();
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, MakeNativePool(SizedTask(), unseeded)),
                 "native envs are always seeded"));
}

void PerEnvKwargsMayChangeDynamicsNotSpaces() {
  const auto made =
      MakeNativePool(SizedTask(), Options(2), envpool::MakeConfigs(SizedTask(), 2, {{"gain", {1.0, 3.0}}}));
  CHECK_EQ(made.pool->spec().obs[0].shape[0], 2);

  const auto spaces = envpool::MakeConfigs(SizedTask(), 2, {{"size", {int64_t{2}, int64_t{5}}}});
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, MakeNativePool(SizedTask(), Options(2), spaces)),
                 "the kwargs of env 1 give it other observation/action spaces than env 0's"));

  // The same kwargs for every env may change the spaces: the pool takes env 0's.
  const auto wide =
      MakeNativePool(SizedTask(), Options(2), envpool::MakeConfigs(SizedTask(), 2, {{"size", {int64_t{5}}}}));
  CHECK_EQ(wide.pool->spec().obs[0].shape[0], 5);
}

// An unset max_episode_steps is the task's limit; 0 is none; a positive value is kept.
void TheTimeLimitDefaultsToTheTasks() {
  CHECK_EQ(MakeNativePool(SizedTask(), Options(1)).pool->max_episode_steps(), 7);
  const int want[][2] = {{0, 0}, {3, 3}};
  for (const auto& [given, limit] : want) {
    PoolOptions options = Options(1);
    options.max_episode_steps = given;
    CHECK_EQ(MakeNativePool(SizedTask(), options).pool->max_episode_steps(), limit);
  }
}

// What an option left unset becomes, and env i's seed: the pool runs with the resolved options.
void ResolveCompletesTheOptions() {
  PoolOptions given;
  given.num_envs = 6;
  const auto resolved = Resolve(given, 9);
  CHECK_EQ(resolved.batch_size, 6);
  CHECK(resolved.full_batch());
  CHECK_EQ(resolved.num_threads, envpool::DefaultNumThreads(6, 6));
  CHECK_EQ(resolved.max_episode_steps, 9);
  CHECK_EQ(resolved.EnvSeed(5), uint64_t{42 + 5});  // PoolOptions' default seed, plus the env's id
  given.batch_size = 2;
  given.seed = 100;
  const auto async = Resolve(given, 9);
  CHECK_EQ(async.batch_size, 2);
  CHECK_EQ(async.num_threads, envpool::DefaultNumThreads(6, 2));
  CHECK_EQ(async.EnvSeed(3), uint64_t{103});
  const auto made = MakeNativePool(SizedTask(), given);
  CHECK_EQ(made.pool->options().EnvSeed(3), uint64_t{103});
  CHECK_EQ(made.pool->options().num_threads, async.num_threads);
}

void TheMadePoolIsNamedForTheTaskAndKeepsItsExecutor() {
  const auto made = MakeNativePool(SizedTask(), Options(3));
  CHECK_EQ(made.pool->name(), std::string("FactorySized-v0"));
  CHECK_EQ(made.pool->num_envs(), 3);
  CHECK(made.pool->full_batch());
  CHECK(made.executor != nullptr);
  CHECK(static_cast<envpool::Executor*>(made.executor) == &made.pool->executor());
  CHECK_EQ(made.executor->parallelism(), 1);
}

}  // namespace

int main() {
  return RunTests({
      {"bad counts are refused", BadCountsAreRefused},
      {"per-env kwargs may change dynamics, not spaces", PerEnvKwargsMayChangeDynamicsNotSpaces},
      {"the time limit defaults to the task's", TheTimeLimitDefaultsToTheTasks},
      {"resolve completes the options", ResolveCompletesTheOptions},
      {"the made pool is named for the task and keeps its executor", TheMadePoolIsNamedForTheTaskAndKeepsItsExecutor},
  });
}
