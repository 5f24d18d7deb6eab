// StepCounter-v0: a deterministic env for testing the pool itself (autoreset modes, batching,
// error handling), with a Python twin in tests/twin_envs.py that gymnasium's SyncVectorEnv runs.
// Not a public task: it ships as the test plugin cpp/testing/step_counter_plugin.cc, which
// `envpool.testing.load_step_counter()` registers (the tests, stress runs and benches do).
//
//   observation  float32 [steps in this episode, episodes started, last action, 1.0]
//   action       Discrete(4)
//   reward       steps in this episode * 0.5 + action
//   terminated   when the episode's step count reaches `terminate_at` (0: never)
//   truncated    when it reaches `truncate_at` (0: never), set by the env itself
//   info         "total_steps" (int64): steps taken across all episodes
//   fail_at      throw from step() when total_steps reaches this value (0: never); the
//                next failure comes `fail_at` steps later
//   step_sleep_us   sleep this long in every step (for timeout and interrupt tests)
//   reset_sleep_us  sleep this long in every reset (an env whose reset costs far more than its step)
//   state_sleep_us  sleep this long in every set_state (a call that waits, for the GIL tests)
//   state        [steps in this episode, episodes started, last action, total steps]
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/env.h"

namespace envpool {

class StepCounter : public Env {
 public:
  static Config DefaultConfig() {
    return {{"terminate_at", int64_t{5}},  {"truncate_at", int64_t{0}},    {"fail_at", int64_t{0}},
            {"step_sleep_us", int64_t{0}}, {"reset_sleep_us", int64_t{0}}, {"state_sleep_us", int64_t{0}}};
  }

  static EnvSpec Spec(const Config& /*config*/) {
    return {{ArraySpec::Box("obs", DType::kFloat32, {4}, {0.0}, {1e9})},
            {ArraySpec::Discrete("action", 4)},
            {ArraySpec::Box("total_steps", DType::kInt64, {}, {}, {})}};
  }

  explicit StepCounter(const Config& config)
      : terminate_at_(config.Get<int64_t>("terminate_at")),
        truncate_at_(config.Get<int64_t>("truncate_at")),
        fail_at_(config.Get<int64_t>("fail_at")),
        sleep_us_(config.Get<int64_t>("step_sleep_us")),
        reset_sleep_us_(config.Get<int64_t>("reset_sleep_us")),
        state_sleep_us_(config.Get<int64_t>("state_sleep_us")) {
    if (terminate_at_ < 0 || truncate_at_ < 0 || fail_at_ < 0 || sleep_us_ < 0 || reset_sleep_us_ < 0 ||
        state_sleep_us_ < 0) {
      throw std::invalid_argument(
          "StepCounter: terminate_at, truncate_at, fail_at, step_sleep_us, reset_sleep_us and state_sleep_us must be "
          ">= 0");
    }
  }

  void Reset(Rng& /*rng*/, Output& out) override {
    if (reset_sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(reset_sleep_us_));
    steps_ = 0;
    ++episodes_;
    last_action_ = 0;
    Write(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    if (sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    ++total_steps_;
    if (fail_at_ > 0 && total_steps_ % fail_at_ == 0) {
      throw std::runtime_error("StepCounter failed on purpose at total step " + std::to_string(total_steps_));
    }
    ++steps_;
    last_action_ = action.Get<int64_t>()[0];
    out.reward() = static_cast<double>(steps_) * 0.5 + static_cast<double>(last_action_);
    out.terminated() = terminate_at_ > 0 && steps_ >= terminate_at_;
    out.truncated() = truncate_at_ > 0 && steps_ >= truncate_at_;
    Write(out);
  }

  std::vector<double> GetState() const override {
    return {static_cast<double>(steps_), static_cast<double>(episodes_), static_cast<double>(last_action_),
            static_cast<double>(total_steps_)};
  }

  void SetState(const std::vector<double>& state) override {
    if (state.size() != 4) throw std::invalid_argument("StepCounter: a state has 4 values");
    if (state_sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(state_sleep_us_));
    steps_ = static_cast<int64_t>(state[0]);
    episodes_ = static_cast<int64_t>(state[1]);
    last_action_ = static_cast<int64_t>(state[2]);
    total_steps_ = static_cast<int64_t>(state[3]);
  }

 private:
  void Write(Output& out) const {
    float* obs = out.Obs<float>();
    obs[0] = static_cast<float>(steps_);
    obs[1] = static_cast<float>(episodes_);
    obs[2] = static_cast<float>(last_action_);
    obs[3] = 1.0f;
    *out.Info<int64_t>(0) = total_steps_;
  }

  int64_t terminate_at_, truncate_at_, fail_at_, sleep_us_, reset_sleep_us_, state_sleep_us_;
  int64_t steps_ = 0, episodes_ = 0, last_action_ = 0, total_steps_ = 0;
};

}  // namespace envpool
