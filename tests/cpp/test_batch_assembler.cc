// The ring of result batches (core/batch_assembler.h): rows reserved and published by several
// producer threads come out as whole batches, in order, each row exactly once; partial
// (Cut) and short (ExpectRows) batches; Take refuses an incomplete batch.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "check.h"
#include "core/batch_assembler.h"

using envpool::BatchAssembler;
using envpool::BatchBuffers;
using envpool::BatchLayout;
using envpool::DType;
using envpool::EnvSpec;

namespace {

// One int64 observation per row (then reward, flags, env_id and elapsed_step).
BatchLayout Layout() {
  EnvSpec spec;
  envpool::ArraySpec obs;
  obs.name = "obs";
  obs.dtype = DType::kInt64;
  spec.obs.push_back(obs);
  return BatchLayout::For(spec, false);
}

// Memory for one ring position, kept alive by `store`.
BatchBuffers Memory(const BatchLayout& layout, int rows, std::vector<std::vector<char>>& store) {
  BatchBuffers buffers;
  for (const auto& f : layout.fields) {
    store.emplace_back(static_cast<std::size_t>(rows) * f.row_bytes);
    buffers.data.push_back(store.back().data());
  }
  return buffers;
}

void ReserveWrapsIntoTheNextBatch() {
  const BatchLayout layout = Layout();
  BatchAssembler batches(layout, 4, 3);
  CHECK_EQ(batches.Reserve(3).first, 0u);
  const auto [batch, row] = batches.Reserve(2);  // rows 3 of batch 0 and 0 of batch 1
  CHECK_EQ(batch, 0u);
  CHECK_EQ(row, 3u);
  const auto next = batches.Reserve(1);
  CHECK_EQ(next.first, 1u);
  CHECK_EQ(next.second, 1u);
  CHECK_EQ(batches.PosOf(4), 1u);
}

void ProducersFillBatchesInOrderEachRowOnce() {
  constexpr int kBatch = 8, kRing = 4, kProducers = 4, kRowsEach = 5000;
  constexpr int kTotal = kProducers * kRowsEach;
  static_assert(kTotal % kBatch == 0);
  const BatchLayout layout = Layout();
  BatchAssembler batches(layout, kBatch, kRing);
  std::vector<std::vector<char>> store;
  for (int pos = 0; pos < kRing; ++pos) batches.Arm(pos, Memory(layout, kBatch, store));
  std::atomic<bool> stop{false};
  // In flight at most ring-size batches of rows (as the pool guarantees): a producer claims a
  // ticket before reserving; the consumer returns tickets as it takes batches.
  std::atomic<int> tickets{kBatch * kRing};
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kRowsEach; ++i) {
        while (tickets.fetch_sub(1) <= 0) {
          tickets.fetch_add(1);
          std::this_thread::yield();
        }
        const auto [batch, row] = batches.Reserve(1);
        CHECK(batches.AwaitArmed(batch, stop));
        const std::size_t pos = batches.PosOf(batch);
        *batches.Buffers(pos).Row<int64_t>(layout, 0, row) = int64_t{p} * kRowsEach + i;
        batches.Publish(pos, 1);
      }
    });
  }
  std::vector<int> seen(kTotal, 0);
  std::vector<int64_t> last(kProducers, -1);
  for (int taken = 0; taken < kTotal / kBatch; ++taken) {
    CHECK(batches.SleepUntil(std::chrono::steady_clock::now() + std::chrono::seconds(30)));
    CHECK_EQ(batches.Rows(), kBatch);
    std::vector<std::vector<char>> fresh_store;
    const std::size_t pos = batches.TakePos();
    const BatchBuffers full = batches.Buffers(pos);
    std::vector<int64_t> values;
    for (int r = 0; r < kBatch; ++r) values.push_back(*full.Row<int64_t>(layout, 0, static_cast<std::size_t>(r)));
    // Re-arm with the same memory (the values were copied out above).
    CHECK_EQ(batches.Take(full), static_cast<int>(pos));
    for (int64_t v : values) {
      CHECK(0 <= v && v < kTotal);
      ++seen[static_cast<std::size_t>(v)];
    }
    tickets.fetch_add(kBatch);
  }
  for (auto& t : producers) t.join();
  for (int s : seen) CHECK_EQ(s, 1);
  CHECK_EQ(batches.Taken(), static_cast<uint64_t>(kTotal / kBatch));
}

void CutEndsAPartialBatchAtTheReservedRows() {
  const BatchLayout layout = Layout();
  BatchAssembler batches(layout, 8, 2);
  std::vector<std::vector<char>> store;
  for (int pos = 0; pos < 2; ++pos) batches.Arm(pos, Memory(layout, 8, store));
  CHECK_EQ(batches.Cut(), 0);  // nothing reserved: nothing to cut
  const auto [batch, row] = batches.Reserve(3);
  CHECK_EQ(batches.Cut(), 3);
  CHECK(!batches.Ready());  // reserved, not yet published
  batches.Publish(batches.PosOf(batch), 3);
  CHECK(batches.Ready());
  CHECK_EQ(batches.Rows(), 3);
  // Rows reserved after the cut start the next batch.
  const auto after = batches.Reserve(1);
  CHECK_EQ(after.first, batch + 1);
  CHECK_EQ(after.second, 0u);
  CHECK_EQ(row, 0u);
  batches.Take(batches.Buffers(batches.TakePos()));
  CHECK_EQ(batches.Rows(), 8);  // the next batch is a full one again until cut
}

void ExpectRowsMakesAShortBatch() {
  const BatchLayout layout = Layout();
  BatchAssembler batches(layout, 8, 2);
  std::vector<std::vector<char>> store;
  for (int pos = 0; pos < 2; ++pos) batches.Arm(pos, Memory(layout, 8, store));
  batches.ExpectRows(2);
  const std::size_t pos = batches.FullBatchPos();
  batches.Publish(pos, 1);
  CHECK(!batches.Ready());
  batches.Publish(pos, 1);
  CHECK(batches.Ready());
  CHECK_EQ(batches.Take(batches.Buffers(pos)), static_cast<int>(pos));
  CHECK_EQ(batches.FullBatchPos(), batches.NextPos(pos));
}

void TakeRefusesAnIncompleteBatchAndBadMemory() {
  const BatchLayout layout = Layout();
  BatchAssembler batches(layout, 4, 2);
  std::vector<std::vector<char>> store;
  for (int pos = 0; pos < 2; ++pos) batches.Arm(pos, Memory(layout, 4, store));
  CHECK_THROWS(std::logic_error, batches.Take(batches.Buffers(0)));
  CHECK_THROWS(std::invalid_argument, batches.Arm(5, Memory(layout, 4, store)));
  CHECK_THROWS(std::invalid_argument, batches.Arm(0, BatchBuffers{}));
  CHECK_THROWS(std::invalid_argument, BatchAssembler(layout, 1 << 24, 2));
}

}  // namespace

int main() {
  return RunTests({
      {"reserve wraps into the next batch", ReserveWrapsIntoTheNextBatch},
      {"producers fill batches in order, each row once", ProducersFillBatchesInOrderEachRowOnce},
      {"cut ends a partial batch at the reserved rows", CutEndsAPartialBatchAtTheReservedRows},
      {"expect_rows makes a short batch", ExpectRowsMakesAShortBatch},
      {"take refuses an incomplete batch and bad memory", TakeRefusesAnIncompleteBatchAndBadMemory},
  });
}
