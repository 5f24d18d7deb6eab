// The host side of env plugins (the plugin side is core/plugin.h): loads a plugin's shared
// library, checks that it was built for this envpool and C++ ABI, and registers its tasks.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace envpool {

// A plugin that could not be loaded: missing or not a plugin, built for another envpool
// version or ABI, failed in its registration function, or offered a task that was refused.
// The message names the plugin file and says what to do.
class PluginError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LoadedPlugin {
  std::string name;                   // given to ENVPOOL_PLUGIN
  std::string path;                   // canonical path of the shared library
  std::vector<std::string> task_ids;  // the tasks it registered, in its order
};

// Loads the plugin at `path` (dlopen RTLD_NOW | RTLD_LOCAL) and registers its tasks, with
// origin "plugin <name> (<path>)". Loading a file that is already loaded returns its record
// again. A refused plugin leaves no task behind and is unloaded; a loaded one stays loaded for
// the life of the process (its tasks are never removed). Throws PluginError. Thread-safe.
LoadedPlugin LoadPlugin(const std::string& path);

// The plugins loaded so far, in load order.
std::vector<LoadedPlugin> LoadedPlugins();

}  // namespace envpool
