// Specs (core/spec.h): dtype sizes and names (the Python module allocates arrays from them),
// an array's element count and row size, the discrete space's bounds, and config lookups.
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "core/spec.h"

using envpool::ArraySpec;
using envpool::Config;
using envpool::ConfigTypeName;
using envpool::ConfigValue;
using envpool::DType;
using envpool::DTypeName;
using envpool::DTypeSize;
using envpool::IsFloating;
using envpool::kAllDTypes;

namespace {

// Each dtype's size and numpy name: numpy.dtype(name).itemsize is the size (checked by hand
// against numpy: bool 1, int8 1, int16 2, ..., float16 2, float64 8).
void DTypesHaveNumpysNamesAndSizes() {
  struct Want {
    DType dtype;
    const char* name;
    std::size_t size;
    bool floating;
  };
  const Want want[] = {{DType::kBool, "bool", 1, false},      {DType::kInt8, "int8", 1, false},
                       {DType::kInt16, "int16", 2, false},    {DType::kInt32, "int32", 4, false},
                       {DType::kInt64, "int64", 8, false},    {DType::kUInt8, "uint8", 1, false},
                       {DType::kUInt16, "uint16", 2, false},  {DType::kUInt32, "uint32", 4, false},
                       {DType::kUInt64, "uint64", 8, false},  {DType::kFloat16, "float16", 2, true},
                       {DType::kFloat32, "float32", 4, true}, {DType::kFloat64, "float64", 8, true}};
  for (const auto& w : want) {
    CHECK_EQ(std::string(DTypeName(w.dtype)), std::string(w.name));
    CHECK_EQ(DTypeSize(w.dtype), w.size);
    CHECK_EQ(IsFloating(w.dtype), w.floating);
  }
}

// kAllDTypes (lookups by name) lists every dtype once.
void AllDTypesListsEachOnce() {
  std::set<std::string> names;
  for (DType t : kAllDTypes) names.insert(DTypeName(t));
  CHECK_EQ(names.size(), 12u);
  CHECK(names.count("?") == 0);
}

void ElementsAndRowBytesFollowTheShape() {
  const ArraySpec scalar = ArraySpec::Box("r", DType::kFloat64, {}, {}, {});
  CHECK_EQ(scalar.NumElements(), 1u);
  CHECK_EQ(scalar.RowBytes(), 8u);
  const ArraySpec frame = ArraySpec::Box("frame", DType::kUInt8, {4, 84, 84}, {0}, {255});
  CHECK_EQ(frame.NumElements(), 4u * 84 * 84);
  CHECK_EQ(frame.RowBytes(), 4u * 84 * 84);
  const ArraySpec pos = ArraySpec::Box("pos", DType::kFloat32, {2, 3}, {}, {});
  CHECK_EQ(pos.RowBytes(), 24u);
  CHECK(!pos.discrete);
  const ArraySpec empty = ArraySpec::Box("none", DType::kFloat32, {0}, {}, {});
  CHECK_EQ(empty.RowBytes(), 0u);
}

// Discrete(n, start) is gymnasium's: an int64 scalar in [start, start + n - 1].
void DiscreteHasInclusiveBounds() {
  const ArraySpec d = ArraySpec::Discrete("action", 6, -1);
  CHECK(d.discrete);
  CHECK(d.dtype == DType::kInt64);
  CHECK(d.shape.empty());
  CHECK(d.low == std::vector<double>({-1.0}));
  CHECK(d.high == std::vector<double>({4.0}));
  CHECK(ArraySpec::Discrete("a", 2).low == std::vector<double>({0.0}));
}

void ConfigGetChecksKeyAndType() {
  const Config c{{"gravity", ConfigValue{int64_t{10}}}, {"name", ConfigValue{std::string("x")}}};
  CHECK_EQ(c.Get<double>("gravity"), 10.0);  // an int where a float is expected
  CHECK_EQ(c.Get<int64_t>("gravity"), 10);
  CHECK_EQ(c.Get<std::string>("name"), std::string("x"));
  const std::string missing = CHECK_THROWS(std::out_of_range, c.Get<double>("mass"));
  CHECK(missing.find("'mass'") != std::string::npos);
  const std::string wrong = CHECK_THROWS(std::invalid_argument, c.Get<bool>("name"));
  CHECK(wrong.find("'name' has type str") != std::string::npos);
  // A float is not accepted where an int is expected.
  Config f;
  f.Set("n", 2.5);
  CHECK(f.Has("n"));
  CHECK(!f.Has("m"));
  CHECK_THROWS(std::invalid_argument, f.Get<int64_t>("n"));
}

void ConfigTypeNamesArePythons() {
  CHECK_EQ(std::string(ConfigTypeName(ConfigValue{true})), std::string("bool"));
  CHECK_EQ(std::string(ConfigTypeName(ConfigValue{int64_t{1}})), std::string("int"));
  CHECK_EQ(std::string(ConfigTypeName(ConfigValue{1.0})), std::string("float"));
  CHECK_EQ(std::string(ConfigTypeName(ConfigValue{std::string()})), std::string("str"));
  CHECK_EQ(std::string(ConfigTypeName(ConfigValue{std::vector<double>{}})), std::string("list[float]"));
  CHECK_EQ(std::string(ConfigTypeName(ConfigValue{std::vector<std::string>{}})), std::string("list[str]"));
}

}  // namespace

int main() {
  return RunTests({
      {"dtypes have numpy's names and sizes", DTypesHaveNumpysNamesAndSizes},
      {"kAllDTypes lists each dtype once", AllDTypesListsEachOnce},
      {"elements and row bytes follow the shape", ElementsAndRowBytesFollowTheShape},
      {"Discrete has inclusive bounds", DiscreteHasInclusiveBounds},
      {"Config::Get checks the key and the type", ConfigGetChecksKeyAndType},
      {"config type names are Python's", ConfigTypeNamesArePythons},
  });
}
