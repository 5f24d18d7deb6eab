// Writing an env plugin: a shared library, built outside this repository against the installed
// SDK headers, that adds tasks to envpool's registry when loaded (envpool.load_plugin or the
// `envpool.envs` entry-point group; see docs/cpp_sdk.md).
//
//   #include "core/plugin.h"
//   class Catch : public envpool::Env { ... };           // as any env in cpp/envs/
//   ENVPOOL_PLUGIN("mysim") {
//     registry.Add(envpool::Task<Catch>("mysim.Catch-v0", 0));  // id, max_episode_steps, ...
//   }
//
// The ABI boundary (a decision, written down here and in docs/cpp_sdk.md): same-toolchain C++ with a
// version check. The plugin and the core exchange C++ objects (TaskSpec with std::string,
// std::function and Config; Env objects through their vtable; exceptions), so a plugin must be
// built with the same envpool version and a compiler / standard library with the same C++ ABI
// as the core. Before running anything of the plugin's beyond its static initializers, the core
// reads the plain C struct `envpool_plugin_abi` (below) through the extern "C" function
// `envpool_plugin_abi_info` and refuses the plugin, naming both sides and how to rebuild, when the envpool
// version, ENVPOOL_ABI_VERSION, the C++ ABI (__GXX_ABI_VERSION, _GLIBCXX_USE_CXX11_ABI, which
// standard library) or the size of a shared type differs. Only then does it call
// `envpool_plugin_register`, which hands the plugin a PluginRegistry to Add tasks to. The plugin
// links nothing of the core (the registry lives in envpool._core); it only compiles headers.
// Why not a C ABI: envs would then have to be wrapped in C function tables and every Config,
// spec and exception flattened to C; the cost is rebuilding plugins for every envpool release,
// which an exact version pin makes explicit rather than a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/env.h"
#include "core/registry.h"
#include "core/spec.h"
#include "core/version.h"

extern "C" {
// What a plugin was built with. The first three fields keep this layout in every envpool
// version, so any core can read which envpool a plugin expects; the rest is compared only when
// abi_version matches.
struct envpool_plugin_abi {
  uint32_t struct_size;         // sizeof(envpool_plugin_abi) as the plugin saw it
  uint32_t abi_version;         // ENVPOOL_ABI_VERSION
  const char* envpool_version;  // ENVPOOL_VERSION
  const char* plugin_name;      // the name given to ENVPOOL_PLUGIN (shown as the tasks' origin)
  const char* compiler;         // e.g. "g++ 12.2.0" (for messages)
  const char* stdlib;           // "libstdc++", "libc++" or "unknown"
  int32_t gxx_abi_version;      // __GXX_ABI_VERSION (0: not defined)
  int32_t cxx11_abi;            // _GLIBCXX_USE_CXX11_ABI (-1: not libstdc++)
  uint32_t sizeof_string;       // sizes of the types the two sides share
  uint32_t sizeof_function;
  uint32_t sizeof_config;
  uint32_t sizeof_env_spec;
  uint32_t sizeof_task_spec;
};
}

namespace envpool {

// Where a plugin's registration function puts its tasks. The core checks every id and alias
// (TaskSpec::aliases; unique, and usable as the gymnasium id "envpool/<id>": letters, digits,
// '_', '-' and '.' only), sets each task's origin to the plugin, and adds all of them or, if any
// is refused, none.
class PluginRegistry {
 public:
  virtual void Add(TaskSpec task) = 0;

 protected:
  ~PluginRegistry() = default;
};

#define ENVPOOL_STRINGIFY_(x) #x
#define ENVPOOL_STRINGIFY(x) ENVPOOL_STRINGIFY_(x)

// The ABI description of code compiled with these headers, the compiler and flags in use.
inline envpool_plugin_abi CurrentPluginAbi(const char* plugin_name) {
  envpool_plugin_abi abi{};
  abi.struct_size = sizeof(envpool_plugin_abi);
  abi.abi_version = ENVPOOL_ABI_VERSION;
  abi.envpool_version = ENVPOOL_VERSION;
  abi.plugin_name = plugin_name;
#if defined(__clang__)
  abi.compiler = "clang++ " __clang_version__;
#elif defined(__GNUC__)
  abi.compiler = "g++ " ENVPOOL_STRINGIFY(__GNUC__) "." ENVPOOL_STRINGIFY(__GNUC_MINOR__) "." ENVPOOL_STRINGIFY(
      __GNUC_PATCHLEVEL__);
#else
  abi.compiler = "unknown compiler";
#endif
#if defined(_LIBCPP_VERSION)
  abi.stdlib = "libc++";
#elif defined(__GLIBCXX__)
  abi.stdlib = "libstdc++";
#else
  abi.stdlib = "unknown";
#endif
#ifdef __GXX_ABI_VERSION
  abi.gxx_abi_version = __GXX_ABI_VERSION;
#else
  abi.gxx_abi_version = 0;
#endif
#ifdef _GLIBCXX_USE_CXX11_ABI
  abi.cxx11_abi = _GLIBCXX_USE_CXX11_ABI;
#else
  abi.cxx11_abi = -1;
#endif
  abi.sizeof_string = sizeof(std::string);
  abi.sizeof_function = sizeof(std::function<std::unique_ptr<Env>(const Config&)>);
  abi.sizeof_config = sizeof(Config);
  abi.sizeof_env_spec = sizeof(EnvSpec);
  abi.sizeof_task_spec = sizeof(TaskSpec);
  return abi;
}

}  // namespace envpool

#define ENVPOOL_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

// Defines the plugin's two entry points; the braces that follow are the body of its
// registration function, in which `registry` is the envpool::PluginRegistry& to Add tasks to.
// NAME (a string literal) names the plugin in `envpool info` and in error messages. Exceptions
// thrown by the body refuse the whole plugin, with their message.
#define ENVPOOL_PLUGIN(NAME)                                                                \
  static void EnvpoolPluginRegister(::envpool::PluginRegistry& registry);                   \
  ENVPOOL_PLUGIN_EXPORT const envpool_plugin_abi* envpool_plugin_abi_info() {               \
    static const envpool_plugin_abi abi = ::envpool::CurrentPluginAbi(NAME);                \
    return &abi;                                                                            \
  }                                                                                         \
  ENVPOOL_PLUGIN_EXPORT void envpool_plugin_register(::envpool::PluginRegistry* registry) { \
    EnvpoolPluginRegister(*registry);                                                       \
  }                                                                                         \
  static void EnvpoolPluginRegister(::envpool::PluginRegistry& registry)
