// AgentCounter-v0: a deterministic multi-agent env for testing the agents-as-rows layout and its
// front ends, in which agents come and go (core/agents.h). Shipped in the test plugin with
// StepCounter-v0; tests/support/agent_twin.py is its Python twin (a PettingZoo ParallelEnv).
//
//   slots        agent_0 .. agent_{num_agents-1}; the first `num_scouts` form group "scout",
//                which sees only the first 2 of the 4 observation values; the rest "worker"
//   present      at reset every slot but the last; the last joins at step `join_at` (0: present
//                from the start); agent k leaves (terminates) after `life + k` steps in the
//                episode (counted from the reset, or from its joining)
//   observation  float32 [steps in this episode, slot, last action of this agent, 1.0]
//                (zeros for absent agents)
//   action       Discrete(3) per agent
//   reward       slot + action for each agent stepped, 0 for the others
//   episode end  when every agent has left (env-level terminated)
//   step_sleep_us   sleep this long in every step (uneven step times for async tests)
//   fail_at         throw from step() at this episode step (0: never)
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/agents.h"
#include "core/env.h"

namespace envpool {

class AgentCounter : public Env {
 public:
  static Config DefaultConfig() {
    return {{"num_agents", int64_t{3}}, {"num_scouts", int64_t{1}},    {"join_at", int64_t{2}},
            {"life", int64_t{3}},       {"step_sleep_us", int64_t{0}}, {"fail_at", int64_t{0}}};
  }

  static EnvSpec Spec(const Config& config) {
    const int n = static_cast<int>(config.Get<int64_t>("num_agents"));
    const int scouts = static_cast<int>(config.Get<int64_t>("num_scouts"));
    if (n < 1 || scouts < 0 || scouts >= n) {
      throw std::invalid_argument("AgentCounter: need num_agents >= 1 and 0 <= num_scouts < num_agents");
    }
    EnvSpec spec;
    spec.obs = {ArraySpec::Box("obs", DType::kFloat32, {n, 4}, {0.0}, {1e9})};
    spec.action = {ArraySpec{"action", DType::kInt64, {n}, {0.0}, {2.0}, true}};
    std::vector<std::string> names;
    for (int k = 0; k < n; ++k) names.push_back("agent_" + std::to_string(k));
    std::vector<AgentGroup> groups;
    if (scouts > 0) groups.push_back(AgentGroup{"scout", 0, scouts, {2}});
    groups.push_back(AgentGroup{"worker", scouts, n - scouts, {4}});
    MultiAgentSpec(spec, std::move(names), std::move(groups));
    return spec;
  }

  explicit AgentCounter(const Config& config)
      : n_(static_cast<int>(config.Get<int64_t>("num_agents"))),
        scouts_(static_cast<int>(config.Get<int64_t>("num_scouts"))),
        join_at_(config.Get<int64_t>("join_at")),
        life_(config.Get<int64_t>("life")),
        sleep_us_(config.Get<int64_t>("step_sleep_us")),
        fail_at_(config.Get<int64_t>("fail_at")),
        live_(static_cast<std::size_t>(n_)),
        born_(static_cast<std::size_t>(n_)),
        last_action_(static_cast<std::size_t>(n_)) {
    if (join_at_ < 0 || life_ < 1 || sleep_us_ < 0 || fail_at_ < 0) {
      throw std::invalid_argument("AgentCounter: need join_at >= 0, life >= 1, step_sleep_us >= 0, fail_at >= 0");
    }
  }

  void Reset(Rng& /*rng*/, Output& out) override {
    steps_ = 0;
    AgentRows rows(out);
    for (int k = 0; k < n_; ++k) {
      const bool present = k < n_ - 1 || join_at_ == 0;
      live_[k] = present;
      born_[k] = 0;
      last_action_[k] = 0;
      rows.active[k] = present;
      rows.needs_action[k] = present;
      rows.reward[k] = 0;
      rows.terminated[k] = rows.truncated[k] = false;
    }
    left_ = 0;
    WriteObs(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    if (sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    ++steps_;
    if (fail_at_ > 0 && steps_ == fail_at_)
      throw std::runtime_error("AgentCounter failed at step " + std::to_string(steps_));
    AgentRows rows(out);
    const int64_t* a = action.Get<int64_t>();
    double total = 0;
    for (int k = 0; k < n_; ++k) {
      rows.terminated[k] = rows.truncated[k] = false;
      rows.reward[k] = 0;
      rows.active[k] = live_[k];
      if (!live_[k]) continue;
      last_action_[k] = a[k];
      rows.reward[k] = k + static_cast<double>(a[k]);
      total += rows.reward[k];
      if (steps_ - born_[k] >= life_ + k) {
        rows.terminated[k] = true;
        live_[k] = false;
        ++left_;
      }
    }
    // The last slot joins in this step: reported (active) with its first observation.
    if (join_at_ > 0 && steps_ == join_at_) {
      live_[n_ - 1] = true;
      born_[n_ - 1] = steps_;
      rows.active[n_ - 1] = true;
    }
    for (int k = 0; k < n_; ++k) rows.needs_action[k] = live_[k];
    out.reward() = total;
    out.terminated() = left_ == n_;
    WriteObs(out);
  }

  std::vector<double> GetState() const override {
    std::vector<double> s = {static_cast<double>(steps_), static_cast<double>(left_)};
    for (int k = 0; k < n_; ++k) {
      s.push_back(live_[k]);
      s.push_back(static_cast<double>(born_[k]));
      s.push_back(static_cast<double>(last_action_[k]));
    }
    return s;
  }

 private:
  void WriteObs(Output& out) const {
    float* obs = out.Obs<float>();
    AgentRows rows(out);
    for (int k = 0; k < n_; ++k) {
      float* row = obs + 4 * k;
      const bool shown = rows.active[k];
      const int width = k < scouts_ ? 2 : 4;
      for (int j = 0; j < 4; ++j) row[j] = 0.0f;
      if (!shown) continue;
      const float values[4] = {static_cast<float>(steps_), static_cast<float>(k), static_cast<float>(last_action_[k]),
                               1.0f};
      for (int j = 0; j < width; ++j) row[j] = values[j];
    }
  }

  int n_, scouts_;
  int64_t join_at_, life_, sleep_us_, fail_at_;
  int64_t steps_ = 0;
  int left_ = 0;
  std::vector<char> live_;
  std::vector<int64_t> born_;
  std::vector<int64_t> last_action_;
};

}  // namespace envpool
