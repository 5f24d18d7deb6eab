// The built-in CartPole env (cpp/envs/classic_control/cartpole.h, unchanged) compiled as a plugin under another
// id, for bench/plugin_overhead.py: the same code stepped through a plugin and built in.
#include "core/plugin.h"
#include "envs/classic_control/cartpole.h"

ENVPOOL_PLUGIN("bench_cartpole") {
  registry.Add(envpool::Task<envpool::classic_control::CartPole>("PluginCartPole-v1", 500, 475.0));
}
