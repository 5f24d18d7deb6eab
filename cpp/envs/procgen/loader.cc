// See loader.h. The Python C API is used only to ask the running interpreter where the `procgen`
// package is (importlib.util.find_spec, which finds it without importing it: importing procgen
// would import gym, gym3 and their numpy 1 pins).
#include "envs/procgen/loader.h"

#include <Python.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "envs/package_dirs.h"

namespace envpool::procgen {

namespace fs = std::filesystem;

namespace {

bool HasLibrary(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_regular_file(dir / "data" / "prebuilt" / "libenv.so", ec);
}

[[noreturn]] void Fail(const std::string& what) { throw std::runtime_error(std::string(kInstallHint) + "; " + what); }

template <typename F>
void Resolve(void* handle, const char* name, F& fn, const std::string& path) {
  void* sym = dlsym(handle, name);
  if (!sym) Fail(path + " has no symbol " + name + " (not Procgen's libenv?)");
  fn = reinterpret_cast<F>(sym);
}

ProcgenApi LoadApi() {
  std::vector<std::string> tried;
  fs::path dir;
  if (const char* env = std::getenv("ENVPOOL_PROCGEN_DIR"); env && *env) {
    tried.push_back(std::string(env) + " ($ENVPOOL_PROCGEN_DIR)");
    if (HasLibrary(env)) dir = env;
  } else {
    const std::string found = InterpreterPackageDir("procgen");
    tried.push_back(found.empty() ? "the `procgen` package of the running interpreter (not installed)"
                                  : found + " (the `procgen` package of the running interpreter)");
    if (HasLibrary(found)) dir = found;
    if (dir.empty()) {
      const fs::path beside = OwnDir().parent_path() / "procgen";
      tried.push_back(beside.string() + " (next to envpool)");
      if (HasLibrary(beside)) dir = beside;
    }
  }
  if (dir.empty()) {
    std::string where;
    for (const auto& t : tried) where += "\n  " + t;
    Fail("no procgen/data/prebuilt/libenv.so found in:" + where);
  }
  ProcgenApi api{};
  api.package_dir = dir.string();
  api.library_path = (dir / "data" / "prebuilt" / "libenv.so").string();
  // Procgen concatenates sprite paths to the root, so it ends with a separator (as procgen/env.py
  // passes it).
  api.resource_root = (dir / "data" / "assets").string() + "/";
  if (std::ifstream version(dir / "version.txt"); version) std::getline(version, api.version_text);
  // RTLD_LOCAL: the games' symbols (and Qt's) stay out of the process's global scope. The Qt
  // libraries come from the wheel's procgen_mirror.libs through the library's own RPATH.
  void* handle = dlopen(api.library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    Fail("cannot load " + api.library_path + ": " + (err ? err : "?"));
  }
  Resolve(handle, "libenv_version", api.version, api.library_path);
  if (const int v = api.version(); v != kLibenvVersion) {
    Fail(api.library_path + " implements libenv version " + std::to_string(v) + ", envpool speaks version " +
         std::to_string(kLibenvVersion));
  }
  Resolve(handle, "libenv_make", api.make, api.library_path);
  Resolve(handle, "libenv_get_tensortypes", api.get_tensortypes, api.library_path);
  Resolve(handle, "libenv_set_buffers", api.set_buffers, api.library_path);
  Resolve(handle, "libenv_observe", api.observe, api.library_path);
  Resolve(handle, "libenv_act", api.act, api.library_path);
  Resolve(handle, "libenv_close", api.close, api.library_path);
  Resolve(handle, "get_state", api.get_state, api.library_path);
  Resolve(handle, "set_state", api.set_state, api.library_path);
  // Never dlclose()d: the games' global state (sprites, registry) lives until exit.
  return api;
}

}  // namespace

const ProcgenApi& Procgen() {
  static std::mutex mutex;
  static std::unique_ptr<ProcgenApi> api;  // set once, under the mutex
  static std::atomic<const ProcgenApi*> ready{nullptr};
  if (const ProcgenApi* p = ready.load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lock(mutex);
  if (!api) {
    api = std::make_unique<ProcgenApi>(LoadApi());
    ready.store(api.get(), std::memory_order_release);
  }
  return *api;
}

}  // namespace envpool::procgen
