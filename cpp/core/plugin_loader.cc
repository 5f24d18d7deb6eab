#include "core/plugin_loader.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <utility>

#include "core/exception_text.h"
#include "core/plugin.h"
#include "core/registry.h"

namespace envpool {

namespace {

struct Plugins {
  std::mutex mu;  // held for a whole load, so two loads of one file cannot race
  std::vector<LoadedPlugin> loaded;
};

Plugins& ThePlugins() {
  static Plugins plugins;
  return plugins;
}

// Closes a dlopen handle unless released (a refused plugin is unloaded again).
class Library {
 public:
  explicit Library(void* handle) : handle_(handle) {}
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  void* get() const { return handle_; }
  void Keep() { handle_ = nullptr; }

 private:
  void* handle_;
};

// Collects what the plugin's registration function adds.
class Collector final : public PluginRegistry {
 public:
  void Add(TaskSpec task) override { tasks.push_back(std::move(task)); }
  std::vector<TaskSpec> tasks;
};

std::string Str(const char* s) { return s != nullptr ? s : "?"; }

std::string Describe(const envpool_plugin_abi& a) {
  return "envpool " + Str(a.envpool_version) + " (SDK ABI " + std::to_string(a.abi_version) + "), " + Str(a.compiler) +
         " with " + Str(a.stdlib);
}

// Empty if `plugin` can run in this process; else the differences, one per line.
std::string Differences(const envpool_plugin_abi& plugin, const envpool_plugin_abi& host) {
  std::string out;
  auto differ = [&](const std::string& what, const std::string& p, const std::string& h) {
    if (p != h) out += "\n  " + what + ": plugin " + p + ", this envpool " + h;
  };
  differ("envpool version", Str(plugin.envpool_version), Str(host.envpool_version));
  differ("ENVPOOL_ABI_VERSION", std::to_string(plugin.abi_version), std::to_string(host.abi_version));
  // The layout past the first three fields is only known to match for the same ABI version.
  if (plugin.abi_version != host.abi_version || plugin.struct_size != host.struct_size) return out;
  differ("C++ standard library", Str(plugin.stdlib), Str(host.stdlib));
  differ("__GXX_ABI_VERSION", std::to_string(plugin.gxx_abi_version), std::to_string(host.gxx_abi_version));
  differ("_GLIBCXX_USE_CXX11_ABI", std::to_string(plugin.cxx11_abi), std::to_string(host.cxx11_abi));
  differ("sizeof(std::string)", std::to_string(plugin.sizeof_string), std::to_string(host.sizeof_string));
  differ("sizeof(std::function)", std::to_string(plugin.sizeof_function), std::to_string(host.sizeof_function));
  differ("sizeof(envpool::Config)", std::to_string(plugin.sizeof_config), std::to_string(host.sizeof_config));
  differ("sizeof(envpool::EnvSpec)", std::to_string(plugin.sizeof_env_spec), std::to_string(host.sizeof_env_spec));
  differ("sizeof(envpool::TaskSpec)", std::to_string(plugin.sizeof_task_spec), std::to_string(host.sizeof_task_spec));
  return out;
}

// A task id must also work as the gymnasium id "envpool/<id>": gymnasium's ids allow one '/',
// and gymnasium.make reads "a:b" as "import module a, then make b".
bool ValidTaskId(const std::string& id) {
  if (id.empty()) return false;
  for (char c : id) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// The plugin's name, once its build (ABI version, compiler, standard library, envpool version)
// is known to match this envpool's; PluginError saying what differs otherwise.
std::string CheckedName(const std::string& file, const envpool_plugin_abi* plugin_abi) {
  if (plugin_abi == nullptr || plugin_abi->struct_size < offsetof(envpool_plugin_abi, plugin_name)) {
    throw PluginError("'" + file + "' returned no readable ABI description: it is not an envpool plugin");
  }
  const envpool_plugin_abi host_abi = CurrentPluginAbi("envpool");
  const bool same_layout =
      plugin_abi->abi_version == host_abi.abi_version && plugin_abi->struct_size == host_abi.struct_size;
  const std::string name = same_layout ? Str(plugin_abi->plugin_name) : std::string("?");
  const std::string diff = Differences(*plugin_abi, host_abi);
  if (!diff.empty()) {
    const std::string side = same_layout ? Describe(*plugin_abi) : "envpool " + Str(plugin_abi->envpool_version);
    throw PluginError("envpool plugin '" + name + "' (" + file + ") was built for " + side + ", but this envpool is " +
                      Describe(host_abi) + "; they differ in:" + diff + "\nRebuild the plugin against envpool " +
                      ENVPOOL_VERSION +
                      " with the same compiler, e.g. `pip install --force-reinstall --no-build-isolation "
                      "--no-binary <its package> <its package>`, or rerun its CMake build with "
                      "-Denvpool_DIR=$(python -m envpool --cmake-dir).");
  }
  return name;
}

}  // namespace

LoadedPlugin LoadPlugin(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::canonical(path, ec);
  if (ec) throw PluginError("envpool plugin '" + path + "' not found: " + ec.message());
  if (!std::filesystem::is_regular_file(canonical)) {
    throw PluginError("envpool plugin '" + path + "' is not a file");
  }
  const std::string file = canonical.string();

  Plugins& plugins = ThePlugins();
  std::lock_guard<std::mutex> lock(plugins.mu);
  for (const auto& p : plugins.loaded) {
    if (p.path == file) return p;
  }

  // RTLD_LOCAL: the plugin's symbols never satisfy another library's (two plugins may both
  // define a class Catch); RTLD_NOW: an unresolved symbol fails here, not in the middle of a step.
  Library lib(dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (lib.get() == nullptr) {
    const char* err = dlerror();
    throw PluginError("cannot load envpool plugin '" + file + "': " + Str(err));
  }
  auto abi_info = reinterpret_cast<const envpool_plugin_abi* (*)()>(dlsym(lib.get(), "envpool_plugin_abi_info"));
  auto register_fn = reinterpret_cast<void (*)(PluginRegistry*)>(dlsym(lib.get(), "envpool_plugin_register"));
  if (abi_info == nullptr || register_fn == nullptr) {
    throw PluginError("'" + file +
                      "' is not an envpool plugin: it does not export envpool_plugin_abi_info and "
                      "envpool_plugin_register (a plugin defines them with ENVPOOL_PLUGIN(\"name\") { ... } from "
                      "core/plugin.h)");
  }
  const std::string name = CheckedName(file, abi_info());
  const std::string origin = "plugin " + name + " (" + file + ")";

  LoadedPlugin record{name, file, {}};
  {
    Collector collector;
    try {
      register_fn(&collector);
    } catch (const std::exception& e) {
      throw PluginError("envpool plugin '" + name + "' (" + file +
                        ") failed while registering its tasks: " + ExceptionText(e));
    } catch (...) {
      throw PluginError("envpool plugin '" + name + "' (" + file +
                        ") failed while registering its tasks with an exception that is not a std::exception");
    }
    if (collector.tasks.empty()) {
      throw PluginError("envpool plugin '" + name + "' (" + file + ") registered no tasks");
    }
    for (auto& task : collector.tasks) {
      if (!ValidTaskId(task.id)) {
        throw PluginError("envpool plugin '" + name + "' (" + file + "): task id '" + task.id +
                          "' is not allowed: use letters, digits, '_', '-' and '.' only (it must work as the "
                          "gymnasium id envpool/<id>, which allows no second '/' and no ':')");
      }
      for (const std::string& id : task.aliases) {
        if (!ValidTaskId(id)) {
          throw PluginError("envpool plugin '" + name + "' (" + file + "): alias '" + id + "' of task '" + task.id +
                            "' is not allowed: use letters, digits, '_', '-' and '.' only (it must work as the "
                            "gymnasium id envpool/<id>, which allows no second '/' and no ':')");
        }
      }
      task.origin = origin;
      record.task_ids.push_back(task.id);
    }
    try {
      RegisterTasks(std::move(collector.tasks));
    } catch (const std::invalid_argument& e) {
      // The collector's tasks are destroyed (their code is in the plugin) before `lib` unloads it.
      throw PluginError("envpool plugin '" + name + "' (" + file + ") was refused: " + e.what() +
                        "; none of its tasks were registered");
    }
  }
  lib.Keep();
  plugins.loaded.push_back(record);
  return record;
}

std::vector<LoadedPlugin> LoadedPlugins() {
  Plugins& plugins = ThePlugins();
  std::lock_guard<std::mutex> lock(plugins.mu);
  return plugins.loaded;
}

}  // namespace envpool
