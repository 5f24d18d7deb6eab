// Multi-agent envs: agents as fixed slots of one env's row.
//
// An env with agents declares EnvSpec::agents (one slot per possible agent, see spec.h) and
// gives every obs and action array the slots as leading dimension: shape {num_slots, ...}, so
// agent `slot`'s observation is the slice [slot] of each obs array. A pool of N such envs
// therefore holds, per array, (N, num_slots, ...) in env-major order: reshaped to
// (N * num_slots, ...) it is the agents-as-rows layout (row = env * num_slots + slot) without
// a copy. An env's agents are one pool row, so they never straddle two batches, and async
// batches count envs.
//
// The env also fills five per-agent info arrays, which MultiAgentSpec puts first in
// EnvSpec::info (AgentRows reads them out of an Output):
//   agent_reward      float64  the agent's reward of this step (0 for absent agents)
//   agent_terminated  bool     the agent's episode ended in this step
//   agent_truncated   bool     the env cut the agent's episode short in this step
//   active            bool     the agent is reported in this step: it was in the episode when
//                              the step began (PettingZoo's `agents` before the step), or it is
//                              in the episode just started by a reset
//   needs_action      bool     the agent's action is used by the next step (turn-based games:
//                              the agent to move; others: active and not done)
// Absent agents (not active) have zeroed observations. Their actions, and those of agents whose
// needs_action is false, are ignored; they must still lie in the action space (zeros do where
// it starts at 0), because the protocol checks whole rows.
//
// The env-level fields keep their meaning for the pool's episode rules: `reward` is the sum of
// the agents' rewards, `terminated` is set when every agent is done (the episode is over, so
// autoreset and time limits apply per env, to all its agents at once). A time limit truncates
// the env; front ends report it as truncation of each active agent not already terminated.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/spec.h"

namespace envpool {

// Positions of the standard per-agent info arrays in EnvSpec::info (MultiAgentSpec puts them first).
inline constexpr std::size_t kAgentRewardInfo = 0;
inline constexpr std::size_t kAgentTerminatedInfo = 1;
inline constexpr std::size_t kAgentTruncatedInfo = 2;
inline constexpr std::size_t kAgentActiveInfo = 3;
inline constexpr std::size_t kNeedsActionInfo = 4;
inline constexpr std::size_t kNumAgentInfo = 5;
inline constexpr const char* kAgentInfoNames[kNumAgentInfo] = {"agent_reward", "agent_terminated", "agent_truncated",
                                                               "active", "needs_action"};

// Throws std::invalid_argument saying what is wrong when `spec` breaks the conventions above.
inline void CheckAgentSpec(const EnvSpec& spec) {
  const AgentSpec& a = spec.agents;
  if (a.names.empty()) {
    if (!a.groups.empty()) throw std::invalid_argument("agent groups given without agent names");
    return;
  }
  const int n = a.NumSlots();
  auto leads = [n](const ArraySpec& s, const char* what) {
    if (s.shape.empty() || s.shape[0] != n) {
      throw std::invalid_argument(std::string(what) + " array '" + s.name + "' of a multi-agent env must have " +
                                  std::to_string(n) + " agent slots as its leading dimension");
    }
  };
  for (const auto& s : spec.obs) leads(s, "obs");
  for (const auto& s : spec.action) leads(s, "action");
  if (spec.info.size() < kNumAgentInfo) throw std::invalid_argument("a multi-agent env lacks its per-agent info");
  for (std::size_t k = 0; k < kNumAgentInfo; ++k) {
    const ArraySpec& s = spec.info[k];
    const DType want = k == kAgentRewardInfo ? DType::kFloat64 : DType::kBool;
    if (s.name != kAgentInfoNames[k] || s.dtype != want || s.shape != std::vector<int>{n}) {
      throw std::invalid_argument(std::string("info array ") + std::to_string(k) + " of a multi-agent env must be '" +
                                  kAgentInfoNames[k] + "' of shape (" + std::to_string(n) + ",)");
    }
  }
  int next = 0;
  for (const auto& g : a.groups) {
    if (g.first_slot != next || g.num_slots <= 0) {
      throw std::invalid_argument("agent group '" + g.name + "' must start at slot " + std::to_string(next) +
                                  " and have at least one slot");
    }
    next += g.num_slots;
    if (!g.obs_size.empty()) {
      if (g.obs_size.size() != spec.obs.size()) {
        throw std::invalid_argument("agent group '" + g.name + "' needs one obs_size per obs array");
      }
      for (std::size_t f = 0; f < spec.obs.size(); ++f) {
        const auto& shape = spec.obs[f].shape;
        if (shape.size() < 2 || g.obs_size[f] < 0 || g.obs_size[f] > shape.back()) {
          throw std::invalid_argument("agent group '" + g.name + "' narrows obs '" + spec.obs[f].name +
                                      "' beyond its last dimension");
        }
      }
    }
  }
  if (next != n) throw std::invalid_argument("agent groups must cover all " + std::to_string(n) + " agent slots");
}

// Declares the agents of `spec`: `names` one per slot, `groups` (empty: one group "agent" of
// all slots) and the five per-agent info arrays, put before the env's own info arrays.
inline void MultiAgentSpec(EnvSpec& spec, std::vector<std::string> names, std::vector<AgentGroup> groups = {},
                           bool turn_based = false) {
  const int n = static_cast<int>(names.size());
  if (groups.empty()) groups.push_back(AgentGroup{"agent", 0, n, {}});
  std::vector<ArraySpec> info = {
      ArraySpec::Box(kAgentInfoNames[kAgentRewardInfo], DType::kFloat64, {n}, {}, {}),
      ArraySpec::Box(kAgentInfoNames[kAgentTerminatedInfo], DType::kBool, {n}, {0}, {1}),
      ArraySpec::Box(kAgentInfoNames[kAgentTruncatedInfo], DType::kBool, {n}, {0}, {1}),
      ArraySpec::Box(kAgentInfoNames[kAgentActiveInfo], DType::kBool, {n}, {0}, {1}),
      ArraySpec::Box(kAgentInfoNames[kNeedsActionInfo], DType::kBool, {n}, {0}, {1}),
  };
  info.insert(info.end(), spec.info.begin(), spec.info.end());
  spec.info = std::move(info);
  spec.agents = AgentSpec{std::move(names), std::move(groups), turn_based};
  CheckAgentSpec(spec);
}

// The per-agent info arrays of one env's output row (num_slots values each). Raw pointers, as
// every row of an Output: debug builds (the sanitizer runs) catch a write past a row with the row
// guard (core/row_guard.h), which covers these arrays and every obs array alike.
struct AgentRows {
  explicit AgentRows(const Output& out)
      : reward(out.Info<double>(kAgentRewardInfo)),
        terminated(out.Info<bool>(kAgentTerminatedInfo)),
        truncated(out.Info<bool>(kAgentTruncatedInfo)),
        active(out.Info<bool>(kAgentActiveInfo)),
        needs_action(out.Info<bool>(kNeedsActionInfo)) {}
  double* reward;
  bool* terminated;
  bool* truncated;
  bool* active;
  bool* needs_action;
};

}  // namespace envpool
