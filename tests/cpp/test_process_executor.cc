// The process executor (core/process_executor.cc) behind an EnvPool, its workers played by
// threads on the worker end of the channel (WorkerChannel) as envpool/process's worker loop
// does: rows come from what the workers staged, a staged error reaches the user with its env
// id, and a worker that dies - or whose shared memory counts more than was sent - costs only
// its envs' rows (as errors), after which a replacement takes over its ring.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "core/pool.h"
#include "core/process_executor.h"
#include "lent_batches.h"

using envpool::ArraySpec;
using envpool::BatchBuffers;
using envpool::DType;
using envpool::EnvPool;
using envpool::EnvSpec;
using envpool::Op;
using envpool::PoolOptions;
using envpool::ProcessExecutor;
using envpool::ProcessLayout;
using envpool::WaitResult;
using envpool::WorkerChannel;

namespace {

constexpr int kEnvs = 4;  // envs 0-1 on worker 0, 2-3 on worker 1
constexpr int64_t kFailAction = 4;

EnvSpec Spec() {
  EnvSpec spec;
  spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat64, {}, {}, {}));
  spec.action.push_back(ArraySpec::Discrete("action", 5));
  return spec;
}

class Harness {
 public:
  Harness() {
    PoolOptions options;
    options.num_envs = kEnvs;
    pool = std::make_unique<EnvPool>("Proc", Spec(), envpool::Resolve(options, 0), [&](envpool::ExecutorContext ctx) {
      auto e = std::make_unique<ProcessExecutor>(ctx, ProcessLayout::For(Spec(), kEnvs, {0, 2, 4}, 0, 200));
      ex = e.get();
      return e;
    });
    batches = std::make_unique<LentBatches>(*pool);
  }
  ~Harness() {
    pool->Close();  // shuts the workers' loops down
    for (auto& t : workers_) t.join();
  }

  // A worker: a reset stages obs 100 * env id; a step stages obs env id + 10 * action and
  // reward = action, or (kFailAction) an error text.
  void StartWorker(int w) {
    const std::string path = "/proc/self/fd/" + std::to_string(ex->mapping().fd());
    const ProcessLayout layout = ex->layout();
    workers_.emplace_back([path, layout, w] {
      WorkerChannel channel(path, layout, w);
      const auto& map = channel.mapping();
      for (;;) {
        const int n = channel.Wait(std::chrono::seconds(1), std::chrono::nanoseconds(0));
        if (n < 0) return;
        for (int i = 0; i < n; ++i) {
          const int id = channel.Next();
          const std::size_t e = layout.Env(id);
          map.At<uint8_t>(e + ProcessLayout::kFailed) = 0;
          if (map.At<uint8_t>(e + ProcessLayout::kOp) == static_cast<uint8_t>(Op::kReset)) {
            map.At<double>(e + layout.obs_reset[0]) = 100.0 * id;
          } else {
            const int64_t action = map.At<int64_t>(e + layout.action[0]);
            if (action == kFailAction) {
              const std::string text = "env " + std::to_string(id) + " refused action 4";
              std::memcpy(map.data() + e + layout.error, text.data(), text.size());
              map.At<uint32_t>(e + ProcessLayout::kErrorLen) = static_cast<uint32_t>(text.size());
              map.At<uint8_t>(e + ProcessLayout::kFailed) = 1;
            }
            map.At<double>(e + layout.obs_step[0]) = id + 10.0 * static_cast<double>(action);
            map.At<double>(e + ProcessLayout::kReward) = static_cast<double>(action);
            map.At<uint8_t>(e + ProcessLayout::kTerminated) = 0;
            map.At<uint8_t>(e + ProcessLayout::kTruncated) = 0;
          }
          if (!channel.Done()) return;
        }
      }
    });
  }

  const BatchBuffers& Recv() { return batches->Recv(); }
  template <typename T>
  T At(const BatchBuffers& b, std::size_t field, int row) const {
    return batches->At<T>(b, field, row);
  }

  std::unique_ptr<LentBatches> batches;  // destroyed after the pool
  std::unique_ptr<EnvPool> pool;
  ProcessExecutor* ex = nullptr;

 private:
  std::vector<std::thread> workers_;
};

void RowsAreWhatTheWorkersStaged() {
  Harness h;
  h.StartWorker(0);
  h.StartWorker(1);
  h.pool->SendReset(nullptr, kEnvs, nullptr);
  const BatchBuffers& reset = h.Recv();
  for (int row = 0; row < kEnvs; ++row) {
    CHECK_EQ(h.At<int32_t>(reset, h.pool->layout().env_id, row), row);
    CHECK_EQ(h.At<double>(reset, 0, row), 100.0 * row);
  }
  const int64_t actions[] = {1, 2, 3, 0};
  h.pool->SendStep(nullptr, kEnvs, {actions});
  const BatchBuffers& step = h.Recv();
  for (int row = 0; row < kEnvs; ++row) {
    CHECK_EQ(h.At<double>(step, 0, row), row + 10.0 * static_cast<double>(actions[row]));
    CHECK_EQ(h.At<double>(step, h.pool->layout().reward, row), static_cast<double>(actions[row]));
    CHECK_EQ(h.At<int32_t>(step, h.pool->layout().elapsed_step, row), 1);
  }
  CHECK(h.pool->TakeEnvErrors().empty());
}

void AStagedErrorReachesTheUserWithItsEnv() {
  Harness h;
  h.StartWorker(0);
  h.StartWorker(1);
  h.pool->SendReset(nullptr, kEnvs, nullptr);
  h.Recv();
  const int64_t actions[] = {1, 1, kFailAction, 1};
  h.pool->SendStep(nullptr, kEnvs, {actions});
  h.Recv();
  const auto errors = h.pool->TakeEnvErrors();
  CHECK_EQ(errors.size(), 1u);
  CHECK_EQ(errors[0].first, 2);
  CHECK_EQ(errors[0].second, std::string("env 2 refused action 4"));  // as staged: no type prefix
}

// Worker 1 never runs its commands and is reported dead: its envs' rows complete as errors
// with the reason, worker 0's as usual, and a replacement worker serves them afterwards.
void ADeadWorkerCostsOnlyItsEnvsRows() {
  Harness h;
  h.StartWorker(0);
  h.pool->SendReset(nullptr, kEnvs, nullptr);
  CHECK(h.ex->WorkerDied(1, "worker 1 was killed"));
  CHECK(!h.ex->WorkerDied(1, "again"));  // reported once
  const BatchBuffers& b = h.Recv();
  CHECK_EQ(h.At<double>(b, 0, 0), 0.0);
  CHECK_EQ(h.At<double>(b, 0, 1), 100.0);
  auto errors = h.pool->TakeEnvErrors();
  CHECK_EQ(errors.size(), 2u);
  CHECK_EQ(errors[0].first + errors[1].first, 2 + 3);
  CHECK(errors[0].second.find("worker 1 was killed") != std::string::npos);
  CHECK(h.ex->DeathSettled(1));
  h.ex->Revived(1);
  h.StartWorker(1);
  const int ids[] = {2, 3};
  h.pool->SendReset(ids, 2, nullptr);
  const BatchBuffers& again = h.Recv();
  CHECK_EQ(h.At<double>(again, 0, 0), 200.0);
  CHECK_EQ(h.At<double>(again, 0, 1), 300.0);
  CHECK(h.pool->TakeEnvErrors().empty());
}

// A done count beyond the commands sent (another process wrote the worker's memory) writes
// the worker off like a death, naming the impossible count.
void AnImpossibleDoneCountWritesTheWorkerOff() {
  Harness h;
  h.StartWorker(0);
  const std::size_t w1 = h.ex->layout().Worker(1);
  h.ex->mapping().Atomic<uint32_t>(w1 + ProcessLayout::kDone).store(7);
  h.pool->SendReset(nullptr, kEnvs, nullptr);
  h.Recv();
  const auto errors = h.pool->TakeEnvErrors();
  CHECK_EQ(errors.size(), 2u);
  CHECK(errors[0].second.find("hosting envs 2-3 counted 7 finished commands, outside the 0..2 possible") !=
        std::string::npos);
  CHECK(h.ex->DeathSettled(1));
}

}  // namespace

int main() {
  return RunTests({
      {"rows are what the workers staged", RowsAreWhatTheWorkersStaged},
      {"a staged error reaches the user with its env", AStagedErrorReachesTheUserWithItsEnv},
      {"a dead worker costs only its envs' rows", ADeadWorkerCostsOnlyItsEnvsRows},
      {"an impossible done count writes the worker off", AnImpossibleDoneCountWritesTheWorkerOff},
  });
}
