// Episode rules (core/episode_rules.h): time limits, the three autoreset modes, same-step
// final fields and env exceptions, on one env driven row by row.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"
#include "core/episode_rules.h"

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

// An env whose observation counts its steps since reset; it terminates at `terminate_at`
// steps and throws at step `throw_at` (0: never).
struct CountingEnv {
  int steps = 0, resets = 0, terminate_at = 0, throw_at = 0;
  void Reset(Output& out) {
    steps = 0;
    ++resets;
    *out.Obs<int64_t>() = 0;
  }
  void Step(Output& out) {
    ++steps;
    if (steps == throw_at) throw std::runtime_error("failed on purpose");
    *out.Obs<int64_t>() = steps;
    out.reward() = 1.0;
    out.terminated() = steps == terminate_at;
  }
};

struct Row {
  int64_t obs;
  double reward;
  bool terminated, truncated;
  int32_t elapsed;
  int64_t final_obs;  // same-step only
};

class Harness {
 public:
  Harness(AutoresetMode mode, int max_episode_steps)
      : layout_(Layout(mode == AutoresetMode::kSameStep)), rules_(layout_, 1, max_episode_steps, mode) {
    for (const auto& f : layout_.fields) {
      store_.emplace_back(f.row_bytes);
      buffers_.data.push_back(store_.back().data());
    }
  }
  Row Run(Op op, std::string* error = nullptr) {
    std::string ignored;
    rules_.Run(
        state_, 0, op, buffers_, 0, [this](Output& out) { env.Reset(out); }, [this](Output& out) { env.Step(out); },
        error ? error : &ignored);
    Row row{*buffers_.Row<int64_t>(layout_, 0, 0),
            *buffers_.Row<double>(layout_, layout_.reward, 0),
            *buffers_.Row<bool>(layout_, layout_.terminated, 0),
            *buffers_.Row<bool>(layout_, layout_.truncated, 0),
            *buffers_.Row<int32_t>(layout_, layout_.elapsed_step, 0),
            layout_.has_final ? *buffers_.Row<int64_t>(layout_, layout_.first_final_obs, 0) : -1};
    return row;
  }
  CountingEnv env;

 private:
  static BatchLayout Layout(bool with_final) {
    EnvSpec spec;
    envpool::ArraySpec obs;
    obs.name = "obs";
    obs.dtype = DType::kInt64;
    spec.obs.push_back(obs);
    return BatchLayout::For(spec, with_final);
  }
  BatchLayout layout_;
  EpisodeRules rules_;
  EpisodeState state_;
  std::vector<std::vector<char>> store_;
  BatchBuffers buffers_;
};

void TimeLimitTruncates() {
  Harness h(AutoresetMode::kNextStep, 3);
  h.Run(Op::kReset);
  CHECK(!h.Run(Op::kStep).truncated);
  CHECK(!h.Run(Op::kStep).truncated);
  const Row last = h.Run(Op::kStep);
  CHECK(last.truncated && !last.terminated);
  CHECK_EQ(last.elapsed, 3);
}

void NextStepResetsOnTheStepAfterTheEnd() {
  Harness h(AutoresetMode::kNextStep, 0);
  h.env.terminate_at = 2;
  h.Run(Op::kReset);
  h.Run(Op::kStep);
  const Row end = h.Run(Op::kStep);
  CHECK(end.terminated);
  CHECK_EQ(end.obs, 2);
  const Row reset = h.Run(Op::kStep);  // the action is ignored: a new episode starts
  CHECK_EQ(h.env.resets, 2);
  CHECK(!reset.terminated && !reset.truncated);
  CHECK_EQ(reset.reward, 0.0);
  CHECK_EQ(reset.obs, 0);
  CHECK_EQ(reset.elapsed, 0);
}

void SameStepResetsInTheStepAndKeepsTheFinalObs() {
  Harness h(AutoresetMode::kSameStep, 0);
  h.env.terminate_at = 2;
  h.Run(Op::kReset);
  const Row mid = h.Run(Op::kStep);
  CHECK_EQ(mid.final_obs, 0);  // zeroed when the episode goes on
  const Row end = h.Run(Op::kStep);
  CHECK(end.terminated);
  CHECK_EQ(end.reward, 1.0);
  CHECK_EQ(end.obs, 0);        // the new episode's first observation
  CHECK_EQ(end.final_obs, 2);  // the finished one's last
  CHECK_EQ(h.env.resets, 2);
  CHECK_EQ(h.Run(Op::kStep).obs, 1);
}

void DisabledRepeatsTheLastObservation() {
  Harness h(AutoresetMode::kDisabled, 0);
  h.env.terminate_at = 1;
  h.Run(Op::kReset);
  CHECK(h.Run(Op::kStep).terminated);
  const Row repeat = h.Run(Op::kRepeat);
  CHECK_EQ(repeat.obs, 1);
  CHECK(!repeat.terminated);
  CHECK_EQ(h.env.resets, 1);  // never reset automatically
}

void AnEnvExceptionTruncatesTheRowAndResetsNext() {
  Harness h(AutoresetMode::kNextStep, 0);
  h.env.throw_at = 2;
  h.Run(Op::kReset);
  h.Run(Op::kStep);
  std::string error;
  const Row failed = h.Run(Op::kStep, &error);
  CHECK(failed.truncated);
  CHECK(error.find("failed on purpose") != std::string::npos);
  h.env.throw_at = 0;
  h.Run(Op::kStep);  // the env starts a new episode, as after any episode end
  CHECK_EQ(h.env.resets, 2);
}

}  // namespace

int main() {
  return RunTests({
      {"time limit truncates", TimeLimitTruncates},
      {"next_step resets on the step after the end", NextStepResetsOnTheStepAfterTheEnd},
      {"same_step resets in the step and keeps the final obs", SameStepResetsInTheStepAndKeepsTheFinalObs},
      {"disabled repeats the last observation", DisabledRepeatsTheLastObservation},
      {"an env exception truncates the row and resets next", AnEnvExceptionTruncatesTheRowAndResetsNext},
  });
}
