// See loader.h. The Python C API is used only to ask the running interpreter where the
// `mujoco` and `gymnasium` packages are (importlib.util.find_spec, which does not import them).
#include "envs/mujoco/loader.h"

#include <Python.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "envs/package_dirs.h"

namespace envpool::mujoco {

namespace fs = std::filesystem;

namespace {

constexpr const char* kInstallHint = "MuJoCo tasks need `pip install envpool-ng[mujoco]` (the mujoco-core package)";

// libmujoco.so* in `dir`, the last by name where there are several (the version check follows).
std::string FindLibrary(const fs::path& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return "";
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("libmujoco.so", 0) == 0) found.push_back(entry.path().string());
  }
  if (found.empty()) return "";
  std::sort(found.begin(), found.end());
  return found.back();
}

// MuJoCo 4 warns at every compile of a model that sets <compiler settotalmass=...>, as
// gymnasium's half_cheetah.xml does. Not something an envpool user can act on (the file is
// gymnasium's), so it is not shown. The model is still compiled with it: compiling without and
// then calling mj_setTotalmass + mj_setConst, as the warning suggests, gives the same masses
// but leaves stat.meanmass and stat.meaninertia (which the constraint solver scales by)
// unscaled, i.e. not gymnasium's model.
constexpr const char* kSilencedWarning = "compiler attribute 'settotalmass' is deprecated";

void WarningHandler(const char* msg) {
  // MuJoCo's default prints to stdout and appends to MUJOCO_LOG.TXT in the working directory;
  // print to stderr instead, and only the first few (an unstable simulation warns every step).
  if (std::strstr(msg, kSilencedWarning) != nullptr) return;
  static std::atomic<int> count{0};
  const int n = count.fetch_add(1);
  if (n < 10) std::fprintf(stderr, "MuJoCo warning: %s\n", msg);
  if (n == 10) std::fprintf(stderr, "MuJoCo warning: (further warnings are not shown)\n");
}

template <typename F>
void Resolve(void* handle, const char* name, F& fn, const std::string& path) {
  void* sym = dlsym(handle, name);
  if (!sym) throw std::runtime_error(std::string("libmujoco at ") + path + " has no symbol " + name);
  fn = reinterpret_cast<F>(sym);
}

MjApi LoadApi() {
  std::vector<std::string> tried;
  std::string path;
  if (const char* env = std::getenv("ENVPOOL_MUJOCO_LIB"); env && *env) {
    path = env;
    tried.push_back(path + " ($ENVPOOL_MUJOCO_LIB)");
  }
  if (path.empty()) {
    const std::string dir = InterpreterPackageDir("mujoco");
    if (!dir.empty()) {
      path = FindLibrary(dir);
      tried.push_back(dir + "/libmujoco.so*");
    } else {
      tried.push_back("the `mujoco` Python package (not installed)");
    }
  }
  if (path.empty()) {
    const fs::path dir = OwnDir().parent_path() / "mujoco";
    path = FindLibrary(dir);
    tried.push_back(dir.string() + "/libmujoco.so*");
  }
  if (path.empty()) {
    std::string where;
    for (const auto& t : tried) where += "\n  " + t;
    throw std::runtime_error(std::string(kInstallHint) + "; libmujoco not found, looked in:" + where);
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    throw std::runtime_error(std::string(kInstallHint) + "; cannot load " + path + ": " + (err ? err : "?"));
  }
  MjApi api{};
  api.library_path = path;
  Resolve(handle, "mj_version", api.version, path);
  if (const int version = api.version(); version < kMinMujocoVersion || version > kMaxMujocoVersion) {
    const std::string lo = MujocoVersionName(kMinMujocoVersion), hi = MujocoVersionName(kMaxMujocoVersion);
    const std::string spec = ">=" + lo + ",<=" + hi;
    throw std::runtime_error("envpool's MuJoCo tasks run with MuJoCo " + lo + " to " + hi +
                             " (the releases whose structs and functions match the " +
                             MujocoVersionName(mjVERSION_HEADER) + " headers it was built with), but " + path +
                             " is MuJoCo " + MujocoVersionName(version) + "; pip install \"mujoco-core" + spec +
                             "\" (where the `mujoco` package is installed too: \"mujoco" + spec + "\")");
  }
  Resolve(handle, "mj_loadXML", api.loadXML, path);
  Resolve(handle, "mj_makeData", api.makeData, path);
  Resolve(handle, "mj_deleteData", api.deleteData, path);
  Resolve(handle, "mj_resetData", api.resetData, path);
  Resolve(handle, "mj_step", api.step, path);
  Resolve(handle, "mj_forward", api.forward, path);
  Resolve(handle, "mj_rnePostConstraint", api.rnePostConstraint, path);
  Resolve(handle, "mj_name2id", api.name2id, path);
  Resolve(handle, "mj_step1", api.step1, path);
  Resolve(handle, "mj_step2", api.step2, path);
  Resolve(handle, "mj_copyModel", api.copyModel, path);
  Resolve(handle, "mj_deleteModel", api.deleteModel, path);
  Resolve(handle, "mj_defaultVFS", api.defaultVFS, path);
  Resolve(handle, "mj_addBufferVFS", api.addBufferVFS, path);
  Resolve(handle, "mj_deleteVFS", api.deleteVFS, path);
  Resolve(handle, "mju_axisAngle2Quat", api.axisAngle2Quat, path);
  Resolve(handle, "mj_objectVelocity", api.objectVelocity, path);
  Resolve(handle, "mj_jacSite", api.jacSite, path);
  Resolve(handle, "mjv_defaultCamera", api.v_defaultCamera, path);
  Resolve(handle, "mjv_defaultFreeCamera", api.v_defaultFreeCamera, path);
  Resolve(handle, "mjv_defaultOption", api.v_defaultOption, path);
  Resolve(handle, "mjv_defaultPerturb", api.v_defaultPerturb, path);
  Resolve(handle, "mjv_defaultScene", api.v_defaultScene, path);
  Resolve(handle, "mjv_makeScene", api.v_makeScene, path);
  Resolve(handle, "mjv_freeScene", api.v_freeScene, path);
  Resolve(handle, "mjv_updateScene", api.v_updateScene, path);
  Resolve(handle, "mjr_defaultContext", api.r_defaultContext, path);
  Resolve(handle, "mjr_makeContext", api.r_makeContext, path);
  Resolve(handle, "mjr_freeContext", api.r_freeContext, path);
  Resolve(handle, "mjr_setBuffer", api.r_setBuffer, path);
  Resolve(handle, "mjr_render", api.r_render, path);
  Resolve(handle, "mjr_readPixels", api.r_readPixels, path);
  Resolve(handle, "mjr_uploadHField", api.r_uploadHField, path);
  // Route warnings to stderr unless someone (e.g. another user of the library) already did.
  using Handler = void (*)(const char*);
  if (auto* warning = static_cast<Handler*>(dlsym(handle, "mju_user_warning")); warning && !*warning) {
    *warning = &WarningHandler;
  }
  // The handle is never closed: models and data made by the library live until exit.
  return api;
}

std::mutex& LoadMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

std::string MujocoVersionName(int version) {
  return std::to_string(version / 1000000) + "." + std::to_string(version / 1000 % 1000) + "." +
         std::to_string(version % 1000);
}

const MjApi& Mj() {
  static std::unique_ptr<MjApi> api;  // set once, under the mutex; a failed load is retried
  static std::atomic<const MjApi*> ready{nullptr};
  if (const MjApi* p = ready.load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lock(LoadMutex());
  if (!api) {
    api = std::make_unique<MjApi>(LoadApi());
    ready.store(api.get(), std::memory_order_release);
  }
  return *api;
}

std::string ResolveModelPath(const std::string& xml_file) {
  std::string full;
  if (xml_file.rfind('.', 0) == 0 || xml_file.rfind('/', 0) == 0) {
    full = xml_file;
  } else if (xml_file.rfind('~', 0) == 0) {
    const char* home = std::getenv("HOME");
    full = (home ? std::string(home) : std::string("~")) + xml_file.substr(1);
  } else {
    const std::string gym = InterpreterPackageDir("gymnasium");
    if (gym.empty()) {
      throw std::invalid_argument("cannot resolve xml_file '" + xml_file +
                                  "': gymnasium (whose model files it names) is not installed; pass a path");
    }
    full = (fs::path(gym) / "envs" / "mujoco" / "assets" / xml_file).string();
  }
  std::error_code ec;
  if (!fs::exists(full, ec)) throw std::invalid_argument("File " + full + " does not exist");
  return full;
}

std::shared_ptr<const mjModel> LoadModel(const std::string& xml_file) {
  const MjApi& mj = Mj();
  const std::string path = ResolveModelPath(xml_file);
  std::string key = path;
  std::error_code ec;
  if (auto canonical = fs::canonical(path, ec); !ec) key = canonical.string();
  // Compiled models are kept for the life of the process (they are small, and pools come
  // and go); every env holds a shared_ptr to the same read-only model.
  static std::map<std::string, std::shared_ptr<const mjModel>> cache;
  std::lock_guard<std::mutex> lock(LoadMutex());
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  char error[1024] = "";
  mjModel* m = mj.loadXML(path.c_str(), nullptr, error, sizeof(error));
  if (!m) throw std::invalid_argument("MuJoCo cannot load " + path + ": " + error);
  std::shared_ptr<const mjModel> model(m, [](const mjModel*) { /* kept until exit */ });
  cache.emplace(key, model);
  return model;
}

int BodyId(const mjModel* m, const std::string& name) {
  const bool numeric =
      !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
  int id = -1;
  if (numeric) {
    id = std::atoi(name.c_str());
    if (id >= m->nbody) id = -1;
  } else {
    id = Mj().name2id(m, mjOBJ_BODY, name.c_str());
  }
  if (id < 0) throw std::invalid_argument("the model has no body '" + name + "'");
  return id;
}

}  // namespace envpool::mujoco
