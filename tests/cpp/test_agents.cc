// The multi-agent convention (core/agents.h): what MultiAgentSpec declares and what
// CheckAgentSpec refuses, naming the array or group at fault.
#include <string>
#include <vector>

#include "check.h"
#include "core/agents.h"

using envpool::AgentGroup;
using envpool::ArraySpec;
using envpool::DType;
using envpool::EnvSpec;

namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

EnvSpec TwoGroups() {
  EnvSpec spec;
  spec.obs = {ArraySpec::Box("obs", DType::kFloat32, {3, 6}, {}, {})};
  spec.action = {ArraySpec{"action", DType::kInt64, {3}, {0}, {4}, true}};
  spec.info = {ArraySpec::Box("score", DType::kFloat64, {}, {}, {})};
  return spec;
}

void MultiAgentSpecPutsTheAgentArraysFirst() {
  EnvSpec spec = TwoGroups();
  envpool::MultiAgentSpec(spec, {"adversary_0", "agent_0", "agent_1"},
                          {AgentGroup{"adversary", 0, 1, {4}}, AgentGroup{"agent", 1, 2, {6}}});
  CHECK_EQ(spec.info.size(), envpool::kNumAgentInfo + 1);
  CHECK_EQ(spec.info[envpool::kAgentRewardInfo].name, std::string("agent_reward"));
  CHECK(spec.info[envpool::kAgentRewardInfo].dtype == DType::kFloat64);
  CHECK_EQ(spec.info[envpool::kNeedsActionInfo].name, std::string("needs_action"));
  CHECK_EQ(spec.info.back().name, std::string("score"));  // the env's own, after them
  CHECK_EQ(spec.agents.NumSlots(), 3);
  EnvSpec plain = TwoGroups();
  envpool::MultiAgentSpec(plain, {"a", "b", "c"});  // no groups: one "agent" group of all slots
  CHECK(plain.agents.groups.size() == 1 && plain.agents.groups[0].num_slots == 3);
  envpool::CheckAgentSpec(TwoGroups());  // a single-agent spec passes untouched
}

void BrokenSpecsAreRefusedByName() {
  EnvSpec no_slots = TwoGroups();
  no_slots.obs[0].shape = {6};
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, envpool::MultiAgentSpec(no_slots, {"a", "b", "c"})),
                 "obs array 'obs' of a multi-agent env must have 3 agent slots"));
  EnvSpec gap = TwoGroups();
  CHECK(Contains(
      CHECK_THROWS(std::invalid_argument, envpool::MultiAgentSpec(gap, {"a", "b", "c"}, {AgentGroup{"x", 0, 1, {}}})),
      "agent groups must cover all 3 agent slots"));
  EnvSpec overlap = TwoGroups();
  CHECK(Contains(CHECK_THROWS(std::invalid_argument,
                              envpool::MultiAgentSpec(overlap, {"a", "b", "c"},
                                                      {AgentGroup{"x", 0, 2, {}}, AgentGroup{"y", 1, 2, {}}})),
                 "agent group 'y' must start at slot 2"));
  EnvSpec too_wide = TwoGroups();
  CHECK(Contains(CHECK_THROWS(std::invalid_argument,
                              envpool::MultiAgentSpec(too_wide, {"a", "b", "c"}, {AgentGroup{"x", 0, 3, {7}}})),
                 "narrows obs 'obs' beyond its last dimension"));
  EnvSpec lost_info = TwoGroups();
  envpool::MultiAgentSpec(lost_info, {"a", "b", "c"});
  lost_info.info[envpool::kAgentActiveInfo].dtype = DType::kUInt8;
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, envpool::CheckAgentSpec(lost_info)), "must be 'active'"));
}

}  // namespace

int main() {
  return RunTests({
      {"MultiAgentSpec puts the agent arrays first", MultiAgentSpecPutsTheAgentArraysFirst},
      {"broken specs are refused by name", BrokenSpecsAreRefusedByName},
  });
}
