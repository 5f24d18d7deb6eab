// The row guard (core/row_guard.h), forced on here whatever NDEBUG says: an env that writes
// outside its obs or info row fails its step with an error naming the array, and the rows
// around it keep their values; an env that writes only its own rows is not disturbed.
// Under ASan the guard bytes are poisoned, so a stray write is ASan's report instead (the
// sanitizer run of tests/stress/stress_pool.py checks that path); the overrun cases run without it.
#define ENVPOOL_ROW_GUARD 1

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "core/episode_rules.h"

using envpool::ArraySpec;
using envpool::AutoresetMode;
using envpool::BatchBuffers;
using envpool::BatchLayout;
using envpool::DType;
using envpool::EnvSpec;
using envpool::EpisodeRules;
using envpool::EpisodeState;
using envpool::Op;
using envpool::Output;

namespace {

constexpr int kObsWidth = 3;
constexpr int kRows = 3;

// Three env rows of an obs array float32[3] and an info array int64[2]; row 1 is the one run,
// rows 0 and 2 hold sentinels that must survive.
class Harness {
 public:
  Harness() : layout_(Layout()), rules_(layout_, kRows, 0, AutoresetMode::kNextStep) {
    for (const auto& f : layout_.fields) {
      store_.emplace_back(f.row_bytes * kRows, char{0x11});
      buffers_.data.push_back(store_.back().data());
    }
  }

  // Runs a step of env 1 (in row 1) that calls `write`; returns the error text ("" if none).
  template <class Write>
  std::string Step(Write&& write) {
    std::string error;
    rules_.Run(state_, 1, Op::kStep, buffers_, 1, [](Output&) {}, [&](Output& out) { write(out); }, &error);
    return error;
  }

  float* Obs(int row) { return buffers_.Row<float>(layout_, 0, row); }
  int64_t* Info(int row) { return buffers_.Row<int64_t>(layout_, layout_.first_info, row); }
  bool NeighboursIntact() const {
    for (std::size_t f = 0; f < layout_.fields.size(); ++f) {
      const std::size_t n = layout_.fields[f].row_bytes;
      for (std::size_t b = 0; b < n; ++b) {
        if (store_[f][b] != 0x11 || store_[f][2 * n + b] != 0x11) return false;
      }
    }
    return true;
  }

 private:
  static BatchLayout Layout() {
    EnvSpec spec;
    spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat32, {kObsWidth}, {}, {}));
    spec.info.push_back(ArraySpec::Box("counts", DType::kInt64, {2}, {}, {}));
    return BatchLayout::For(spec, false);
  }

  BatchLayout layout_;
  EpisodeRules rules_;
  EpisodeState state_;
  std::vector<std::vector<char>> store_;
  BatchBuffers buffers_;
};

void WritesInsideTheRowArrive() {
  Harness h;
  const std::string error = h.Step([](Output& out) {
    float* obs = out.Obs<float>();
    for (int k = 0; k < kObsWidth; ++k) obs[k] = static_cast<float>(k + 1);
    out.Info<int64_t>(0)[1] = 7;
    out.reward() = 2.5;
  });
  CHECK_EQ(error, std::string());
  CHECK_EQ(h.Obs(1)[0], 1.0f);
  CHECK_EQ(h.Obs(1)[2], 3.0f);
  CHECK_EQ(h.Info(1)[1], int64_t{7});
  CHECK(h.NeighboursIntact());
}

void TheEnvSeesItsRowAsItWas() {
  Harness h;
  h.Obs(1)[2] = 42.0f;
  float seen = 0;
  CHECK_EQ(h.Step([&](Output& out) { seen = out.Obs<float>()[2]; }), std::string());
  CHECK_EQ(seen, 42.0f);
  CHECK_EQ(h.Obs(1)[2], 42.0f);
}

#ifndef ENVPOOL_ROW_GUARD_ASAN
void AWritePastTheObsRowFailsTheStep() {
  Harness h;
  const std::string error = h.Step([](Output& out) {
    float* obs = out.Obs<float>();
    for (int k = 0; k <= kObsWidth; ++k) obs[k] = 9.0f;  // one too many: the next env's row
  });
  CHECK(error.find("outside its row of 'obs' (12 bytes") != std::string::npos);
  CHECK(h.NeighboursIntact());
  CHECK_EQ(h.Obs(1)[2], 9.0f);  // what it wrote inside its row is kept
}

void AWriteBeforeTheInfoRowFailsTheStep() {
  Harness h;
  const std::string error = h.Step([](Output& out) { out.Info<int64_t>(0)[-1] = 3; });
  CHECK(error.find("outside its row of 'counts' (16 bytes") != std::string::npos);
  CHECK(h.NeighboursIntact());
}

void TheOverrunWinsOverTheEnvsOwnException() {
  Harness h;
  const std::string error = h.Step([](Output& out) {
    out.Obs<float>()[kObsWidth] = 1.0f;
    throw std::runtime_error("the env's own error");
  });
  CHECK(error.find("outside its row of 'obs'") != std::string::npos);
  CHECK(h.NeighboursIntact());
}
#endif

}  // namespace

int main() {
  return RunTests({
      {"writes inside the row arrive", WritesInsideTheRowArrive},
      {"the env sees its row as it was", TheEnvSeesItsRowAsItWas},
#ifndef ENVPOOL_ROW_GUARD_ASAN
      {"a write past the obs row fails the step", AWritePastTheObsRowFailsTheStep},
      {"a write before the info row fails the step", AWriteBeforeTheInfoRowFailsTheStep},
      {"the overrun wins over the env's own exception", TheOverrunWinsOverTheEnvsOwnException},
#endif
  });
}
