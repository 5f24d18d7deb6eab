// The external executor (core/external_executor.cc) behind an EnvPool: slots that outside
// episodes hold (envpool.serve's clients, ExternalEnv loops). A slot is free only once the
// trainer's reset of it was taken, an episode's rows reach the trainer in batches (cut `wait`
// after their first row), the trainer's answers come back in dispatch order with their
// actions, an ended episode's next order frees its slot, and misuse is refused.
#include <poll.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "core/external_executor.h"
#include "core/pool.h"
#include "lent_batches.h"

using envpool::ArraySpec;
using envpool::BatchBuffers;
using envpool::DType;
using envpool::EnvPool;
using envpool::EnvSpec;
using envpool::ExternalExecutor;
using envpool::PoolOptions;
using envpool::ProtocolError;
using envpool::WaitResult;
using Slot = envpool::ExternalExecutor::Slot;

namespace {

class Harness {
 public:
  explicit Harness(std::chrono::nanoseconds wait = std::chrono::milliseconds(20)) {
    EnvSpec spec;
    spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat64, {}, {}, {}));
    spec.action.push_back(ArraySpec::Discrete("action", 5));
    PoolOptions options;
    options.num_envs = 2;
    pool = std::make_unique<EnvPool>("External", spec, envpool::Resolve(options, 0), [&](envpool::ExecutorContext ctx) {
      auto e = std::make_unique<ExternalExecutor>(ctx, wait);
      ex = e.get();
      return e;
    });
    batches = std::make_unique<LentBatches>(*pool);
  }

  const BatchBuffers& Recv() { return batches->Recv(); }
  template <typename T>
  T At(const BatchBuffers& b, std::size_t field, int row) const {
    return batches->At<T>(b, field, row);
  }

  // The serving side: one episode row of `slot`.
  void Complete(int slot, double obs, double reward = 0, bool terminated = false) {
    const void* obs_rows[] = {&obs};
    ex->Complete(slot, obs_rows, nullptr, reward, terminated, false);
  }
  struct Answers {
    std::vector<int32_t> slots;
    std::vector<uint8_t> stepped;
    std::vector<std::vector<char>> actions;
  };
  Answers Take() {
    Answers a;
    ex->TakeAnswers(a.slots, a.stepped, a.actions);
    return a;
  }
  bool EventReadable() const {
    pollfd p{ex->event_fd(), POLLIN, 0};
    return poll(&p, 1, 0) == 1;
  }

  std::unique_ptr<LentBatches> batches;  // destroyed after the pool
  std::unique_ptr<EnvPool> pool;
  ExternalExecutor* ex = nullptr;
};

int64_t ActionOf(const std::vector<char>& rows, std::size_t i) {
  int64_t a;
  std::memcpy(&a, rows.data() + i * sizeof(int64_t), sizeof(a));
  return a;
}

void SlotsAreFreeOnlyOnceTheTrainersResetIsTaken() {
  Harness h;
  CHECK(h.ex->State(0) == Slot::kAtTrainer);
  CHECK_EQ(h.ex->Acquire(), -1);
  CHECK(!h.EventReadable());
  h.pool->SendReset(nullptr, 2, nullptr);
  CHECK(h.EventReadable());
  CHECK(h.ex->State(1) == Slot::kFree);
  CHECK_EQ(h.ex->Acquire(), -1);  // not before the serving side has taken the answers
  const auto a = h.Take();
  CHECK(a.slots == std::vector<int32_t>({0, 1}));
  CHECK(a.stepped == std::vector<uint8_t>({0, 0}));
  CHECK(!h.EventReadable());
  const int slot = h.ex->Acquire();
  CHECK(slot == 0 || slot == 1);
  CHECK(h.ex->State(slot) == Slot::kAcquired);
  CHECK(h.ex->Acquire() == 1 - slot);
  CHECK_EQ(h.ex->Acquire(), -1);
}

void AnEpisodeRunsThroughTheTrainerUntilItEnds() {
  Harness h;
  h.pool->SendReset(nullptr, 2, nullptr);
  h.Take();
  const int slot = h.ex->Acquire();
  h.Complete(slot, 5.0);  // the episode's first row
  CHECK(h.ex->State(slot) == Slot::kAtTrainer);
  const BatchBuffers& first = h.Recv();  // cut after `wait`: one row
  CHECK_EQ(h.pool->taken_rows(), 1);
  CHECK_EQ(h.At<int32_t>(first, h.pool->layout().env_id, 0), slot);
  CHECK_EQ(h.At<double>(first, 0, 0), 5.0);

  const int ids[] = {slot};
  const int64_t action[] = {3};
  h.pool->SendStep(ids, 1, {action});
  CHECK(h.ex->State(slot) == Slot::kWaiting);
  const auto step = h.Take();
  CHECK(step.slots == std::vector<int32_t>({slot}));
  CHECK(step.stepped == std::vector<uint8_t>({1}));
  CHECK_EQ(ActionOf(step.actions[0], 0), 3);

  h.Complete(slot, 6.0, 1.5, /*terminated=*/true);
  const BatchBuffers& last = h.Recv();
  CHECK_EQ(h.At<double>(last, h.pool->layout().reward, 0), 1.5);
  CHECK(h.At<bool>(last, h.pool->layout().terminated, 0));
  CHECK_EQ(h.At<int32_t>(last, h.pool->layout().elapsed_step, 0), 1);

  // The trainer's next order for the ended episode is a reset: the slot is freed.
  const int64_t ignored[] = {4};
  h.pool->SendStep(ids, 1, {ignored});
  CHECK(h.ex->State(slot) == Slot::kFree);
  const auto freed = h.Take();
  CHECK(freed.stepped == std::vector<uint8_t>({0}));
  CHECK_EQ(h.ex->Acquire(), slot);
}

// Rows of several episodes fill one batch; a full batch needs no cut.
void AFullBatchArrivesWithoutTheCut() {
  Harness h(std::chrono::seconds(60));
  h.pool->SendReset(nullptr, 2, nullptr);
  h.Take();
  const int a = h.ex->Acquire(), b = h.ex->Acquire();
  h.Complete(a, 1.0);
  h.Complete(b, 2.0);
  const auto start = std::chrono::steady_clock::now();
  const BatchBuffers& batch = h.Recv();
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  CHECK_EQ(h.pool->taken_rows(), 2);
  CHECK_EQ(h.At<int32_t>(batch, h.pool->layout().env_id, 0), a);
  CHECK_EQ(h.At<int32_t>(batch, h.pool->layout().env_id, 1), b);
}

void MisuseOfASlotIsRefused() {
  Harness h;
  CHECK(CHECK_THROWS(std::invalid_argument, h.ex->State(2)).find("out of range [0, 2)") != std::string::npos);
  h.pool->SendReset(nullptr, 2, nullptr);
  h.Take();
  CHECK(CHECK_THROWS(std::invalid_argument, h.Complete(0, 1.0)).find("not waiting for a row") != std::string::npos);
  const int slot = h.ex->Acquire();
  CHECK(CHECK_THROWS(std::invalid_argument, h.Complete(slot, 1.0, 0, true)).find("first row cannot end it") !=
        std::string::npos);
  CHECK(h.ex->State(slot) == Slot::kAcquired);  // refused rows change nothing
  h.ex->Release(slot);                          // an episode gone before its first row
  CHECK(h.ex->State(slot) == Slot::kFree);
  const int again = h.ex->Acquire();
  CHECK_EQ(again, slot);
  h.Complete(again, 1.0);
  CHECK_THROWS(std::invalid_argument, h.ex->Release(again));  // it has reported a row
}

void AClosedPoolRefusesTheServingSide() {
  Harness h;
  h.pool->SendReset(nullptr, 2, nullptr);
  h.Take();
  const int slot = h.ex->Acquire();
  h.pool->Close();
  CHECK_THROWS(ProtocolError, h.ex->Acquire());
  CHECK_THROWS(ProtocolError, h.Complete(slot, 1.0));
  CHECK(h.EventReadable());  // the serving thread wakes and finds the pool closed
  h.Take();
  CHECK(h.EventReadable());
}

}  // namespace

int main() {
  return RunTests({
      {"slots are free only once the trainer's reset is taken", SlotsAreFreeOnlyOnceTheTrainersResetIsTaken},
      {"an episode runs through the trainer until it ends", AnEpisodeRunsThroughTheTrainerUntilItEnds},
      {"a full batch arrives without the cut", AFullBatchArrivesWithoutTheCut},
      {"misuse of a slot is refused", MisuseOfASlotIsRefused},
      {"a closed pool refuses the serving side", AClosedPoolRefusesTheServingSide},
  });
}
