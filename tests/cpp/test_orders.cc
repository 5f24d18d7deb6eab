// The order book (core/orders.h): which op each env runs and which row of a full batch it
// fills, and the action rows the envs read, whichever way the user sent them.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"
#include "core/orders.h"

using envpool::ArraySpec;
using envpool::DType;
using envpool::EnvSpec;
using envpool::Op;
using envpool::OrderBook;

namespace {

constexpr int kEnvs = 4;

// Actions of the sizes with their own copy (8, 4, 1 bytes) and one without (3 x int16 = 6).
EnvSpec Spec() {
  EnvSpec spec;
  spec.action.push_back(ArraySpec::Discrete("move", 5));                        // int64: 8 bytes
  spec.action.push_back(ArraySpec::Box("force", DType::kFloat32, {}, {}, {}));  // 4 bytes
  spec.action.push_back(ArraySpec::Box("fire", DType::kBool, {}, {}, {}));      // 1 byte
  spec.action.push_back(ArraySpec::Box("joints", DType::kInt16, {3}, {}, {}));  // 6 bytes
  return spec;
}

template <typename T>
T ActionOf(const OrderBook& book, std::size_t field, int env_id, int element = 0) {
  T v;
  std::memcpy(&v, static_cast<const char*>(book.ActionRow(field, env_id)) + element * sizeof(T), sizeof(T));
  return v;
}

void RangeOpOverridesEachEnvsOp() {
  OrderBook book(Spec(), kEnvs);
  book[0].op = Op::kReset;
  book[1].op = Op::kStep;
  // kPerEnv (the default): each env's own op.
  CHECK(book.OpFor(0, false) == Op::kReset);
  CHECK(book.OpFor(1, false) == Op::kStep);
  // A range op applies to every env of a range dispatch...
  book.range_op = Op::kRepeat;
  CHECK(book.OpFor(0, false) == Op::kRepeat);
  CHECK(book.OpFor(1, false) == Op::kRepeat);
  // ...but not to envs sent by id, which always read their own order.
  CHECK(book.OpFor(0, true) == Op::kReset);
  CHECK(book.OpFor(1, true) == Op::kStep);
}

void FullBatchRowsFollowSendOrderOrEnvIds() {
  OrderBook book(Spec(), kEnvs);
  // Envs 3 and 1 sent in that order: rows 0 and 1.
  book[3].row = 0;
  book[1].row = 1;
  CHECK_EQ(book.FullBatchRow(3), 3u);  // rows are env ids by default (a range dispatch)
  book.rows_by_send_order = true;
  CHECK_EQ(book.FullBatchRow(3), 0u);
  CHECK_EQ(book.FullBatchRow(1), 1u);
}

void ActionsSentByIdLandInEachEnvsRow() {
  OrderBook book(Spec(), kEnvs);
  CHECK_EQ(book.num_action_fields(), 4u);
  const int ids[] = {2, 0};
  const int64_t move[] = {4, 1};
  const float force[] = {0.5f, -1.5f};
  const bool fire[] = {true, false};
  const int16_t joints[] = {1, 2, 3, -4, -5, -6};
  book.StoreActions(ids, 2, {move, force, fire, joints}, false);
  CHECK_EQ(ActionOf<int64_t>(book, 0, 2), 4);
  CHECK_EQ(ActionOf<int64_t>(book, 0, 0), 1);
  CHECK_EQ(ActionOf<float>(book, 1, 2), 0.5f);
  CHECK_EQ(ActionOf<float>(book, 1, 0), -1.5f);
  CHECK_EQ(ActionOf<bool>(book, 2, 2), true);
  CHECK_EQ(ActionOf<bool>(book, 2, 0), false);
  for (int e = 0; e < 3; ++e) {
    CHECK_EQ(ActionOf<int16_t>(book, 3, 2, e), joints[e]);
    CHECK_EQ(ActionOf<int16_t>(book, 3, 0, e), joints[3 + e]);
  }
  // Envs not sent keep their rows (zero here).
  CHECK_EQ(ActionOf<int64_t>(book, 0, 1), 0);
  CHECK_EQ(ActionOf<int16_t>(book, 3, 3, 2), 0);
}

void ActionsOfARangeAreCopiedInOrder() {
  OrderBook book(Spec(), kEnvs);
  const int64_t move[] = {0, 1, 2, 3};
  const float force[] = {0, 1, 2, 3};
  const bool fire[] = {false, true, false, true};
  const int16_t joints[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  book.StoreActions(nullptr, kEnvs, {move, force, fire, joints}, false);
  for (int i = 0; i < kEnvs; ++i) {
    CHECK_EQ(ActionOf<int64_t>(book, 0, i), i);
    CHECK_EQ(ActionOf<float>(book, 1, i), static_cast<float>(i));
    CHECK_EQ(ActionOf<bool>(book, 2, i), i % 2 == 1);
    CHECK_EQ(ActionOf<int16_t>(book, 3, i, 2), i);
  }
}

// A borrowed batch is read in place (a later change of the caller's array shows); the next
// copied send reads the book's own rows again, which the borrow left untouched.
void BorrowedActionsAreReadInPlaceUntilTheNextCopy() {
  OrderBook book(Spec(), kEnvs);
  int64_t move[] = {0, 1, 2, 3};
  float force[] = {0, 0, 0, 0};
  bool fire[] = {false, false, false, false};
  int16_t joints[12] = {};
  book.StoreActions(nullptr, kEnvs, {move, force, fire, joints}, true);
  CHECK(book.ActionRow(0, 2) == &move[2]);
  move[2] = 9;
  CHECK_EQ(ActionOf<int64_t>(book, 0, 2), 9);
  const int ids[] = {1};
  const int64_t one[] = {7};
  book.StoreActions(ids, 1, {one, force, fire, joints}, false);
  CHECK(book.ActionRow(0, 2) != &move[2]);
  CHECK_EQ(ActionOf<int64_t>(book, 0, 1), 7);
  CHECK_EQ(ActionOf<int64_t>(book, 0, 2), 0);
}

// A step sent by id sets each env's op in the pass that copies its first action field; the
// other envs' ops stay as they were.
void StepOpsAreSetWithTheActions() {
  OrderBook book(Spec(), kEnvs);
  for (int id = 0; id < kEnvs; ++id) book[id].op = Op::kReset;
  const int ids[] = {3, 1};
  const int64_t move[] = {5, 6};
  const float force[] = {1.f, 2.f};
  const bool fire[] = {true, true};
  const int16_t joints[6] = {};
  book.StoreActions(ids, 2, {move, force, fire, joints}, false, /*step=*/true);
  CHECK(book[3].op == Op::kStep && book[1].op == Op::kStep);
  CHECK(book[0].op == Op::kReset && book[2].op == Op::kReset);
  CHECK_EQ(ActionOf<int64_t>(book, 0, 3), 5);
  CHECK_EQ(ActionOf<int64_t>(book, 0, 1), 6);
  CHECK_EQ(ActionOf<float>(book, 1, 1), 2.f);
}

}  // namespace

int main() {
  return RunTests({
      {"a range op overrides each env's op", RangeOpOverridesEachEnvsOp},
      {"full-batch rows follow send order or env ids", FullBatchRowsFollowSendOrderOrEnvIds},
      {"actions sent by id land in each env's row", ActionsSentByIdLandInEachEnvsRow},
      {"actions of a range are copied in order", ActionsOfARangeAreCopiedInOrder},
      {"borrowed actions are read in place until the next copy", BorrowedActionsAreReadInPlaceUntilTheNextCopy},
      {"step ops are set with the actions", StepOpsAreSetWithTheActions},
  });
}
