// The test plugin: StepCounter-v0 (step_counter.h) and AgentCounter-v0 (agent_counter.h), built with the env SDK
// exactly as a user's plugin is (cmake/envpoolConfig.cmake's envpool_add_plugin), shipped in the wheel under
// envpool/testing/ and registered only on request: `envpool.testing.load_step_counter()`.
#include "core/plugin.h"
#include "testing/agent_counter.h"
#include "testing/step_counter.h"

ENVPOOL_PLUGIN("envpool-testing") {
  registry.Add(envpool::Task<envpool::StepCounter>("StepCounter-v0", 0));
  registry.Add(envpool::Task<envpool::AgentCounter>("AgentCounter-v0", 0));
}
