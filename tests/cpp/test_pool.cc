// EnvPool (core/pool.cc) with a tiny env on the thread executor: the send / wait / take
// protocol as a user drives it. Batches hold the envs' rows where the user reads them (env ids
// in order, or in send order for a full batch sent by id), each env's RNG is seeded from
// seed + env_id, an env's exception comes back with its env id, a wait ends on its timeout or
// interruption, and misuse is an exception that leaves the pool usable.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "core/pool.h"
#include "core/registry.h"
#include "core/thread_executor.h"
#include "lent_batches.h"

using envpool::ArraySpec;
using envpool::AutoresetMode;
using envpool::BatchBuffers;
using envpool::Config;
using envpool::DType;
using envpool::Env;
using envpool::EnvPool;
using envpool::EnvSpec;
using envpool::PoolOptions;
using envpool::ProtocolError;
using envpool::TaskSpec;
using envpool::WaitResult;

namespace {

constexpr int64_t kSlowAction = 99;   // the step waits for g_release
constexpr int64_t kThrowAction = 98;  // the step throws

// Holds slow steps until the test lets them finish (bounded: a lost release fails, not hangs).
std::atomic<bool> g_release{true};

// The thread that drives the pool in a test: frames must be drawn on the pool's workers.
std::thread::id g_caller;

// obs = [the reset's first uniform draw, steps since reset]; reward = the action.
class Counter : public Env {
 public:
  explicit Counter(const Config&) {}
  static Config DefaultConfig() { return {}; }
  static EnvSpec Spec(const Config&) {
    EnvSpec spec;
    spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat64, {2}, {}, {}));
    spec.action.push_back(ArraySpec::Discrete("action", 100));
    spec.render_height = 1;
    spec.render_width = 2;
    return spec;
  }
  // A 1 x 2 frame: [steps, drawn off the caller's thread, the env's draw count, 0, 0, 0]; an env
  // 7 steps in refuses.
  void Render(uint8_t* rgb) const override {
    if (steps_ == 7) throw std::runtime_error("counter refuses to draw 7");
    const uint8_t frame[6] = {
        static_cast<uint8_t>(steps_), std::this_thread::get_id() != g_caller, static_cast<uint8_t>(++draws_), 0, 0, 0};
    std::copy(frame, frame + 6, rgb);
  }
  void Reset(envpool::Rng& rng, envpool::Output& out) override {
    draw_ = rng.Uniform();
    steps_ = 0;
    Write(out);
  }
  void Step(const envpool::Action& action, envpool::Rng&, envpool::Output& out) override {
    const int64_t a = *action.Get<int64_t>();
    if (a == kThrowAction) throw std::runtime_error("counter refuses 98");
    if (a == kSlowAction) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!g_release.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    ++steps_;
    out.reward() = static_cast<double>(a);
    Write(out);
  }

 private:
  void Write(envpool::Output& out) const {
    out.Obs<double>()[0] = draw_;
    out.Obs<double>()[1] = static_cast<double>(steps_);
  }
  double draw_ = 0;
  int steps_ = 0;
  mutable int draws_ = 0;
};

const TaskSpec& CounterTask() {
  static const TaskSpec& task = envpool::RegisterTask(envpool::Task<Counter>("PoolCounter-v0", 0));
  return task;
}

const std::function<bool()> kNeverInterrupted;

// A pool of Counter envs on the thread executor, with lent result memory (lent_batches.h).
class Harness {
 public:
  explicit Harness(int num_envs, int batch_size = 0, int threads = 2, uint64_t seed = 7) {
    PoolOptions options;
    options.num_envs = num_envs;
    if (batch_size != 0) options.batch_size = batch_size;
    options.num_threads = threads;
    options.seed = seed;
    options.autoreset = AutoresetMode::kNextStep;
    const TaskSpec& task = CounterTask();
    const std::vector<Config> configs(static_cast<std::size_t>(num_envs), task.defaults);
    const auto resolved = envpool::Resolve(options, 0);
    pool = std::make_unique<EnvPool>(task.id, task.spec(task.defaults), resolved, [&](envpool::ExecutorContext ctx) {
      return std::make_unique<envpool::ThreadExecutor>(ctx, task, configs, resolved);
    });
    batches = std::make_unique<LentBatches>(*pool);
  }

  const BatchBuffers& Recv() { return batches->Recv(); }

  double Obs(const BatchBuffers& b, int row, int i) const {
    return b.Row<double>(pool->layout(), 0, static_cast<std::size_t>(row))[i];
  }
  double Reward(const BatchBuffers& b, int row) const { return batches->At<double>(b, pool->layout().reward, row); }
  int32_t EnvId(const BatchBuffers& b, int row) const { return batches->At<int32_t>(b, pool->layout().env_id, row); }
  int32_t Elapsed(const BatchBuffers& b, int row) const {
    return batches->At<int32_t>(b, pool->layout().elapsed_step, row);
  }

  void ResetAll() {
    pool->SendReset(nullptr, pool->num_envs(), nullptr);
    Recv();
  }
  void Step(const std::vector<int>& ids, const std::vector<int64_t>& actions) {
    pool->SendStep(ids.empty() ? nullptr : ids.data(), static_cast<int>(actions.size()), {actions.data()});
  }

  // Declared first, so destroyed last: the pool's workers stop before the memory goes.
  std::unique_ptr<LentBatches> batches;
  std::unique_ptr<EnvPool> pool;
};

void AFullBatchHoldsEveryEnvInIdOrder() {
  Harness h(4);
  h.pool->SendReset(nullptr, 4, nullptr);
  const BatchBuffers& reset = h.Recv();
  CHECK_EQ(h.pool->taken_rows(), 4);
  for (int row = 0; row < 4; ++row) {
    CHECK_EQ(h.EnvId(reset, row), row);
    CHECK_EQ(h.Obs(reset, row, 1), 0.0);
  }
  h.Step({}, {10, 11, 12, 13});
  const BatchBuffers& step = h.Recv();
  for (int row = 0; row < 4; ++row) {
    CHECK_EQ(h.EnvId(step, row), row);
    CHECK_EQ(h.Reward(step, row), 10.0 + row);
    CHECK_EQ(h.Obs(step, row, 1), 1.0);
    CHECK_EQ(h.Elapsed(step, row), 1);
  }
  CHECK_EQ(h.pool->in_flight(), 0);
}

// Env i's RNG starts as Rng(seed + i): its reset draws what numpy's default_rng(seed + i) draws.
void EnvIsRngIsSeededFromSeedPlusItsId() {
  Harness h(3, 0, 2, 40);
  h.pool->SendReset(nullptr, 3, nullptr);
  const BatchBuffers& b = h.Recv();
  for (int row = 0; row < 3; ++row) CHECK_EQ(h.Obs(b, row, 0), envpool::Rng(40 + static_cast<uint64_t>(row)).Uniform());
  // reset(seed=...) reseeds the env given first.
  const int ids[] = {1};
  const uint64_t seeds[] = {123};
  h.pool->SendReset(ids, 1, seeds);
  const BatchBuffers& again = h.Recv();
  CHECK_EQ(h.EnvId(again, 0), 1);
  CHECK_EQ(h.Obs(again, 0, 0), envpool::Rng(123).Uniform());
}

// A full batch sent by id holds the envs sent, in the order sent (a subset: a short batch).
void AFullBatchSentByIdFollowsSendOrder() {
  Harness h(4);
  h.ResetAll();
  h.Step({3, 0, 2}, {30, 0, 20});
  const BatchBuffers& b = h.Recv();
  CHECK_EQ(h.pool->taken_rows(), 3);
  CHECK_EQ(h.EnvId(b, 0), 3);
  CHECK_EQ(h.EnvId(b, 1), 0);
  CHECK_EQ(h.EnvId(b, 2), 2);
  CHECK_EQ(h.Reward(b, 0), 30.0);
  CHECK_EQ(h.Reward(b, 2), 20.0);
}

// batch_size < num_envs: each batch is the first batch_size envs to finish; all come back.
void AsyncBatchesReturnEveryEnvOnce() {
  Harness h(4, 2);
  h.pool->SendReset(nullptr, 4, nullptr);
  std::vector<int> seen(4, 0);
  for (int batch = 0; batch < 2; ++batch) {
    const BatchBuffers& b = h.Recv();
    CHECK_EQ(h.pool->taken_rows(), 2);
    for (int row = 0; row < 2; ++row) ++seen[static_cast<std::size_t>(h.EnvId(b, row))];
  }
  CHECK(seen == std::vector<int>({1, 1, 1, 1}));
  CHECK_EQ(h.pool->in_flight(), 0);
}

void AnEnvsExceptionComesBackWithItsId() {
  Harness h(3);
  h.ResetAll();
  h.Step({}, {1, kThrowAction, 2});
  h.Recv();
  const auto errors = h.pool->TakeEnvErrors();
  CHECK_EQ(errors.size(), 1u);
  CHECK_EQ(errors[0].first, 1);
  CHECK(errors[0].second.find("counter refuses 98") != std::string::npos);
  // The pool goes on.
  h.Step({}, {1, 1, 1});
  h.Recv();
  CHECK(h.pool->TakeEnvErrors().empty());
}

void AWaitEndsOnItsTimeoutOrAnInterruption() {
  Harness h(2, 0, 1);
  h.ResetAll();
  g_release = false;
  h.Step({}, {kSlowAction, kSlowAction});
  CHECK(h.pool->WaitBatch(0.01, kNeverInterrupted) == WaitResult::kTimeout);
  const std::function<bool()> interrupted = [] { return true; };
  CHECK(h.pool->WaitBatch(-1, interrupted) == WaitResult::kInterrupted);
  g_release = true;
  h.Recv();  // the batch still completes
  CHECK_EQ(h.pool->in_flight(), 0);
}

void MisuseIsAProtocolErrorAndThePoolStaysUsable() {
  Harness h(3);
  const std::string none = CHECK_THROWS(ProtocolError, h.pool->WaitBatch(1, kNeverInterrupted));
  CHECK(none.find("no env has been reset yet") != std::string::npos);
  CHECK_THROWS(ProtocolError, h.Step({}, {1, 1, 1}));  // stepped before reset
  h.pool->SendReset(nullptr, 3, nullptr);
  CHECK_THROWS(ProtocolError, h.pool->SendReset(nullptr, 3, nullptr));  // already in flight
  h.Recv();
  CHECK_THROWS(std::invalid_argument, h.Step({}, {1, 100, 1}));  // action out of Discrete(100)
  CHECK_EQ(h.pool->in_flight(), 0);                              // nothing was sent
  CHECK_THROWS(std::invalid_argument, h.Step({0, 0}, {1, 1}));   // an env twice
  CHECK_EQ(h.pool->in_flight(), 0);
  h.Step({}, {5, 6, 7});
  const BatchBuffers& b = h.Recv();
  CHECK_EQ(h.Reward(b, 2), 7.0);
}

void AClosedPoolRefusesEveryCall() {
  Harness h(2);
  h.ResetAll();
  h.pool->Close();
  h.pool->Close();  // idempotent
  CHECK(h.pool->closed());
  CHECK(CHECK_THROWS(ProtocolError, h.Step({}, {1, 1})).find("closed") != std::string::npos);
  CHECK_THROWS(ProtocolError, h.pool->SendReset(nullptr, 2, nullptr));
  CHECK_THROWS(ProtocolError, h.pool->WaitBatch(0, kNeverInterrupted));
}

// The sizes are checked where the options are resolved, before a pool exists.
void BadSizesAreRefusedAtConstruction() {
  auto resolve = [&](int num_envs, int batch_size) {
    PoolOptions options;
    options.num_envs = num_envs;
    options.batch_size = batch_size;
    return envpool::Resolve(options, 0);
  };
  CHECK(CHECK_THROWS(std::invalid_argument, resolve(0, 1)).find("num_envs must be >= 1") != std::string::npos);
  CHECK(CHECK_THROWS(std::invalid_argument, resolve(2, 3)).find("batch_size (3) must not exceed num_envs (2)") !=
        std::string::npos);
  CHECK(CHECK_THROWS(std::invalid_argument, resolve(2, 0)).find("batch_size must be >= 1") != std::string::npos);
}

void FramesAreDrawnOnTheWorkersInIdOrder() {
  g_caller = std::this_thread::get_id();
  Harness h(5, 0, 2);
  h.ResetAll();
  const auto step_all = [&] {
    h.Step({}, {0, 0, 0, 0, 0});
    h.Recv();
  };
  step_all();
  std::vector<uint8_t> frames(5 * 6);
  h.pool->Render(nullptr, 5, frames.data());
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(frames[6 * i] == 1);
    CHECK(frames[6 * i + 1] == 1);  // not drawn on the caller's thread
    CHECK(frames[6 * i + 2] == 1);
  }
  // By id, an env twice: drawn twice, in order (its draw count goes 2, 3).
  const std::vector<int> ids = {3, 0, 3};
  h.pool->Render(ids.data(), 3, frames.data());
  CHECK(frames[2] == 2 && frames[8] == 2 && frames[14] == 3);
  // An env's exception comes back from render(), and the pool steps and draws afterwards.
  for (int k = 1; k < 7; ++k) step_all();
  CHECK(CHECK_THROWS(std::runtime_error, h.pool->Render(nullptr, 5, frames.data())).find("refuses to draw 7") !=
        std::string::npos);
  step_all();
  const int one = 1;
  h.pool->Render(&one, 1, frames.data());
  CHECK(frames[0] == 8 && frames[1] == 1);
}

}  // namespace

int main() {
  return RunTests({
      {"a full batch holds every env in id order", AFullBatchHoldsEveryEnvInIdOrder},
      {"env i's RNG is seeded from seed + i", EnvIsRngIsSeededFromSeedPlusItsId},
      {"a full batch sent by id follows send order", AFullBatchSentByIdFollowsSendOrder},
      {"async batches return every env once", AsyncBatchesReturnEveryEnvOnce},
      {"an env's exception comes back with its id", AnEnvsExceptionComesBackWithItsId},
      {"a wait ends on its timeout or an interruption", AWaitEndsOnItsTimeoutOrAnInterruption},
      {"misuse is a ProtocolError and the pool stays usable", MisuseIsAProtocolErrorAndThePoolStaysUsable},
      {"a closed pool refuses every call", AClosedPoolRefusesEveryCall},
      {"bad sizes are refused at construction", BadSizesAreRefusedAtConstruction},
      {"frames are drawn on the workers, in id order", FramesAreDrawnOnTheWorkersInIdOrder},
  });
}
