// Batch layout (core/buffers.h): the fields of a batch, in the order and with the row sizes the
// Python module allocates and names them by; and the row pointers an env step writes through.
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "core/buffers.h"

using envpool::ArraySpec;
using envpool::BatchBuffers;
using envpool::BatchLayout;
using envpool::BatchRows;
using envpool::DType;
using envpool::EnvSpec;

namespace {

EnvSpec Spec() {
  EnvSpec spec;
  spec.obs.push_back(ArraySpec::Box("pixels", DType::kUInt8, {2, 3}, {0}, {255}));
  spec.obs.push_back(ArraySpec::Box("pos", DType::kFloat32, {4}, {}, {}));
  spec.info.push_back(ArraySpec::Box("lives", DType::kInt32, {}, {}, {}));
  spec.action.push_back(ArraySpec::Discrete("action", 3));  // not part of a batch
  return spec;
}

std::vector<std::string> Names(const BatchLayout& layout) {
  std::vector<std::string> names;
  for (const auto& f : layout.fields) names.push_back(f.name);
  return names;
}

void FieldsComeInTheDocumentedOrder() {
  const BatchLayout layout = BatchLayout::For(Spec(), false);
  const std::vector<std::string> want = {"pixels",    "pos",    "reward",       "terminated",
                                         "truncated", "env_id", "elapsed_step", "lives"};
  CHECK(Names(layout) == want);
  CHECK_EQ(layout.num_obs, 2u);
  CHECK_EQ(layout.reward, 2u);
  CHECK_EQ(layout.terminated, 3u);
  CHECK_EQ(layout.truncated, 4u);
  CHECK_EQ(layout.env_id, 5u);
  CHECK_EQ(layout.elapsed_step, 6u);
  CHECK_EQ(layout.first_info, 7u);
  CHECK_EQ(layout.num_info, 1u);
  CHECK(!layout.has_final);
}

void RowBytesAndDtypesFollowTheSpec() {
  const BatchLayout layout = BatchLayout::For(Spec(), false);
  const std::size_t want_bytes[] = {6, 16, 8, 1, 1, 4, 4, 4};
  const DType want_dtype[] = {DType::kUInt8, DType::kFloat32, DType::kFloat64, DType::kBool,
                              DType::kBool,  DType::kInt32,   DType::kInt32,   DType::kInt32};
  for (std::size_t f = 0; f < layout.fields.size(); ++f) {
    CHECK_EQ(layout.fields[f].row_bytes, want_bytes[f]);
    CHECK(layout.fields[f].dtype == want_dtype[f]);
  }
  CHECK(layout.fields[0].shape == std::vector<int>({2, 3}));
  CHECK(layout.fields[2].shape.empty());
}

// Same-step autoreset appends the finished episode's values: final_<obs>, final_elapsed_step,
// final_<info>, after every other field.
void FinalFieldsFollowWithSameStepAutoreset() {
  const BatchLayout layout = BatchLayout::For(Spec(), true);
  CHECK(layout.has_final);
  CHECK_EQ(layout.fields.size(), 12u);
  CHECK_EQ(layout.first_final_obs, 8u);
  CHECK_EQ(layout.fields[8].name, std::string("final_pixels"));
  CHECK_EQ(layout.fields[9].name, std::string("final_pos"));
  CHECK_EQ(layout.fields[9].row_bytes, 16u);
  CHECK_EQ(layout.final_elapsed_step, 10u);
  CHECK_EQ(layout.fields[10].name, std::string("final_elapsed_step"));
  CHECK_EQ(layout.first_final_info, 11u);
  CHECK_EQ(layout.fields[11].name, std::string("final_lives"));
}

// Row r of field f starts r * row_bytes into its array, and BatchRows resolves the same places.
void RowsPointIntoEachFieldsArray() {
  const BatchLayout layout = BatchLayout::For(Spec(), false);
  std::vector<std::vector<char>> store;
  BatchBuffers buf;
  for (const auto& f : layout.fields) {
    store.emplace_back(f.row_bytes * 3);
    buf.data.push_back(store.back().data());
  }
  CHECK(reinterpret_cast<char*>(buf.Row<float>(layout, 1, 2)) == store[1].data() + 32);
  CHECK(reinterpret_cast<char*>(buf.Row<double>(layout, layout.reward, 1)) == store[2].data() + 8);

  const BatchRows rows(layout, buf);
  CHECK_EQ(rows.num_obs, 2u);
  CHECK_EQ(rows.num_info, 1u);
  CHECK(rows.obs[0] == store[0].data());
  CHECK_EQ(rows.obs_bytes[0], 6u);
  CHECK(rows.obs[1] == store[1].data());
  CHECK_EQ(rows.obs_bytes[1], 16u);
  CHECK(reinterpret_cast<char*>(rows.reward) == store[2].data());
  CHECK(reinterpret_cast<char*>(rows.terminated) == store[3].data());
  CHECK(reinterpret_cast<char*>(rows.truncated) == store[4].data());
  CHECK(reinterpret_cast<char*>(rows.env_id) == store[5].data());
  CHECK(reinterpret_cast<char*>(rows.elapsed_step) == store[6].data());
  CHECK(rows.info[0] == store[7].data());
  CHECK_EQ(rows.info_bytes[0], 4u);
}

}  // namespace

int main() {
  return RunTests({
      {"fields come in the documented order", FieldsComeInTheDocumentedOrder},
      {"row bytes and dtypes follow the spec", RowBytesAndDtypesFollowTheSpec},
      {"final fields follow with same-step autoreset", FinalFieldsFollowWithSameStepAutoreset},
      {"rows point into each field's array", RowsPointIntoEachFieldsArray},
  });
}
