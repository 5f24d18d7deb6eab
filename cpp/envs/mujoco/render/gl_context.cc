// See gl_context.h. The EGL and OSMesa declarations are written out here (a few types,
// constants and signatures from the Khronos and Mesa headers) so that building needs no GL
// headers; the libraries themselves are opened at run time.
#include "envs/mujoco/render/gl_context.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool::mujoco::render {

namespace {

constexpr const char* kEglPackages =
    "Debian/Ubuntu: apt install libegl1 libgl1-mesa-dri (Mesa draws on the CPU; a GPU machine's driver "
    "brings its own EGL), or MUJOCO_GL=osmesa with apt install libosmesa6";
constexpr const char* kOsmesaPackages =
    "Debian/Ubuntu: apt install libosmesa6, or MUJOCO_GL=egl with apt install libegl1 libgl1-mesa-dri";

// EGL 1.4 / 1.5 and EGL_EXT_device_* (Khronos egl.h, eglext.h).
using EGLint = int32_t;
using EGLBoolean = unsigned int;
using EGLenum = unsigned int;
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLDeviceEXT = void*;
constexpr EGLint kEglSuccess = 0x3000;
constexpr EGLint kEglNone = 0x3038;
constexpr EGLint kEglRedSize = 0x3024, kEglGreenSize = 0x3023, kEglBlueSize = 0x3022, kEglAlphaSize = 0x3021;
constexpr EGLint kEglDepthSize = 0x3025, kEglStencilSize = 0x3026;
constexpr EGLint kEglColorBufferType = 0x303F, kEglRgbBuffer = 0x308E;
constexpr EGLint kEglSurfaceType = 0x3033, kEglPbufferBit = 0x0001;
constexpr EGLint kEglRenderableType = 0x3040, kEglOpenglBit = 0x0008;
constexpr EGLint kEglDraw = 0x3059, kEglRead = 0x305A;
constexpr EGLenum kEglOpenglApi = 0x30A2;
constexpr EGLenum kEglPlatformDeviceExt = 0x313F;

// OSMesa (Mesa's osmesa.h) and the two GL enums it takes.
constexpr unsigned kOsmesaRgba = 0x1908;  // GL_RGBA
constexpr unsigned kGlFloat = 0x1406;     // GL_FLOAT
constexpr int kOsmesaBufferSide = 64;     // MuJoCo draws into its own FBO: any default buffer will do

struct EglApi {
  EGLint (*GetError)();
  EGLBoolean (*Initialize)(EGLDisplay, EGLint*, EGLint*);
  EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*);
  EGLBoolean (*BindAPI)(EGLenum);
  EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint*);
  EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext);
  EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
  EGLContext (*GetCurrentContext)();
  EGLDisplay (*GetCurrentDisplay)();
  EGLSurface (*GetCurrentSurface)(EGLint);
  EGLBoolean (*ReleaseThread)();
  EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT*, EGLint*);
  EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void*, const EGLint*);
  EGLDisplay display = nullptr;
  EGLConfig config = nullptr;
};

struct OsmesaApi {
  void* (*CreateContextExt)(unsigned, int, int, int, void*);
  unsigned char (*MakeCurrent)(void*, void*, unsigned, int, int);
  void (*DestroyContext)(void*);
  void* (*GetCurrentContext)();
};

// The process's backend, loaded once (the handles are never closed: contexts of any thread may
// still use them until that thread exits).
struct Platform {
  GlBackend backend = GlBackend::kEgl;
  EglApi egl{};
  OsmesaApi osmesa{};
};

std::string Hex(EGLint v) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (int shift = 12; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return "0x" + s;
}

void* OpenFirst(const std::vector<std::string>& names, std::string* tried) {
  for (const auto& name : names) {
    // RTLD_LOCAL: MuJoCo finds the loaded platform library itself (dl_iterate_phdr in its
    // OpenGL loader) and asks it for the GL functions.
    if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    const char* err = dlerror();
    *tried += "\n  " + name + ": " + (err ? err : "not found");
  }
  return nullptr;
}

template <typename F>
void Symbol(void* handle, const char* name, F& fn, const std::string& lib) {
  void* sym = dlsym(handle, name);
  if (!sym) throw std::runtime_error("MuJoCo rendering: " + lib + " has no " + name);
  fn = reinterpret_cast<F>(sym);
}

const EGLint kEglConfigAttributes[] = {kEglRedSize,
                                       8,
                                       kEglGreenSize,
                                       8,
                                       kEglBlueSize,
                                       8,
                                       kEglAlphaSize,
                                       8,
                                       kEglDepthSize,
                                       24,
                                       kEglStencilSize,
                                       8,
                                       kEglColorBufferType,
                                       kEglRgbBuffer,
                                       kEglSurfaceType,
                                       kEglPbufferBit,
                                       kEglRenderableType,
                                       kEglOpenglBit,
                                       kEglNone};

void LoadEgl(EglApi& egl) {
  std::string lib = "libEGL.so.1";
  if (const char* env = std::getenv("ENVPOOL_EGL_LIB"); env && *env) lib = env;
  std::string tried;
  void* h = OpenFirst({lib}, &tried);
  if (!h) throw std::runtime_error("MuJoCo rendering (MUJOCO_GL=egl) cannot load EGL:" + tried + "\n" + kEglPackages);
  Symbol(h, "eglGetError", egl.GetError, lib);
  Symbol(h, "eglInitialize", egl.Initialize, lib);
  Symbol(h, "eglChooseConfig", egl.ChooseConfig, lib);
  Symbol(h, "eglBindAPI", egl.BindAPI, lib);
  Symbol(h, "eglCreateContext", egl.CreateContext, lib);
  Symbol(h, "eglDestroyContext", egl.DestroyContext, lib);
  Symbol(h, "eglMakeCurrent", egl.MakeCurrent, lib);
  Symbol(h, "eglGetCurrentContext", egl.GetCurrentContext, lib);
  Symbol(h, "eglGetCurrentDisplay", egl.GetCurrentDisplay, lib);
  Symbol(h, "eglGetCurrentSurface", egl.GetCurrentSurface, lib);
  Symbol(h, "eglReleaseThread", egl.ReleaseThread, lib);
  void* (*get_proc)(const char*) = nullptr;
  Symbol(h, "eglGetProcAddress", get_proc, lib);
  egl.QueryDevicesEXT = reinterpret_cast<decltype(egl.QueryDevicesEXT)>(get_proc("eglQueryDevicesEXT"));
  egl.GetPlatformDisplayEXT =
      reinterpret_cast<decltype(egl.GetPlatformDisplayEXT)>(get_proc("eglGetPlatformDisplayEXT"));
  if (!egl.QueryDevicesEXT || !egl.GetPlatformDisplayEXT) {
    throw std::runtime_error("MuJoCo rendering: " + lib +
                             " has no EGL device platform (EGL_EXT_device_enumeration, EGL_EXT_platform_device), "
                             "which headless rendering needs (as mujoco.egl); " +
                             kEglPackages);
  }
  // mujoco.egl's display: on an EGL device, MUJOCO_EGL_DEVICE_ID's or the first that initializes.
  EGLint count = 0;
  std::vector<EGLDeviceEXT> devices;
  if (egl.QueryDevicesEXT(0, nullptr, &count) && count > 0) {
    devices.resize(static_cast<std::size_t>(count));
    if (!egl.QueryDevicesEXT(count, devices.data(), &count)) count = 0;
    devices.resize(static_cast<std::size_t>(count));
  }
  if (devices.empty()) {
    throw std::runtime_error("MuJoCo rendering: EGL lists no device (eglQueryDevicesEXT, error " + Hex(egl.GetError()) +
                             "); " + kEglPackages);
  }
  std::vector<EGLDeviceEXT> candidates = devices;
  if (const char* id = std::getenv("MUJOCO_EGL_DEVICE_ID"); id && *id) {
    char* end = nullptr;
    const long index = std::strtol(id, &end, 10);
    if (*end != '\0' || index < 0 || index >= static_cast<long>(devices.size())) {
      throw std::invalid_argument("The MUJOCO_EGL_DEVICE_ID environment variable must be an integer between 0 and " +
                                  std::to_string(devices.size() - 1) + " (inclusive), got " + id);
    }
    candidates = {devices[static_cast<std::size_t>(index)]};
  }
  for (EGLDeviceEXT device : candidates) {
    EGLDisplay display = egl.GetPlatformDisplayEXT(kEglPlatformDeviceExt, device, nullptr);
    if (display == nullptr || egl.GetError() != kEglSuccess) continue;
    if (egl.Initialize(display, nullptr, nullptr) && egl.GetError() == kEglSuccess) {
      egl.display = display;
      break;
    }
  }
  if (!egl.display) {
    throw std::runtime_error("MuJoCo rendering: none of the " + std::to_string(candidates.size()) +
                             " EGL device(s) could be initialized; " + kEglPackages);
  }
  EGLint found = 0;
  if (!egl.ChooseConfig(egl.display, kEglConfigAttributes, &egl.config, 1, &found) || found < 1) {
    throw std::runtime_error(
        "MuJoCo rendering: EGL has no framebuffer configuration with RGBA8, depth 24, stencil 8 "
        "and desktop OpenGL (error " +
        Hex(egl.GetError()) + "); " + kEglPackages);
  }
}

void LoadOsmesa(OsmesaApi& osmesa) {
  std::vector<std::string> names = {"libOSMesa.so.8", "libOSMesa.so.6", "libOSMesa.so"};
  if (const char* env = std::getenv("ENVPOOL_OSMESA_LIB"); env && *env) names = {env};
  std::string tried;
  void* h = OpenFirst(names, &tried);
  if (!h) {
    throw std::runtime_error("MuJoCo rendering (MUJOCO_GL=osmesa) cannot load OSMesa:" + tried + "\n" +
                             kOsmesaPackages);
  }
  Symbol(h, "OSMesaCreateContextExt", osmesa.CreateContextExt, names.front());
  Symbol(h, "OSMesaMakeCurrent", osmesa.MakeCurrent, names.front());
  Symbol(h, "OSMesaDestroyContext", osmesa.DestroyContext, names.front());
  Symbol(h, "OSMesaGetCurrentContext", osmesa.GetCurrentContext, names.front());
}

class EglContext final : public GlContext {
 public:
  explicit EglContext(const EglApi& egl) : egl_(egl) {
    egl_.BindAPI(kEglOpenglApi);  // per thread: the context below is desktop OpenGL
    context_ = egl_.CreateContext(egl_.display, egl_.config, nullptr, nullptr);
    if (!context_) {
      throw std::runtime_error("MuJoCo rendering: cannot create an EGL context (error " + Hex(egl_.GetError()) + "); " +
                               kEglPackages);
    }
  }
  ~EglContext() override {
    if (egl_.GetCurrentContext() == context_) {
      egl_.MakeCurrent(egl_.display, nullptr, nullptr, nullptr);
      egl_.ReleaseThread();
    }
    egl_.DestroyContext(egl_.display, context_);
  }

  void MakeCurrent() override {
    prev_context_ = egl_.GetCurrentContext();
    if (prev_context_ == context_) {
      prev_context_ = nullptr;
      return;
    }
    if (prev_context_) {
      prev_display_ = egl_.GetCurrentDisplay();
      prev_draw_ = egl_.GetCurrentSurface(kEglDraw);
      prev_read_ = egl_.GetCurrentSurface(kEglRead);
    }
    if (!egl_.MakeCurrent(egl_.display, nullptr, nullptr, context_)) {
      throw std::runtime_error("MuJoCo rendering: cannot make the EGL context current (error " + Hex(egl_.GetError()) +
                               ")");
    }
  }

  void RestorePrevious() override {
    if (!prev_context_) return;
    egl_.MakeCurrent(prev_display_, prev_draw_, prev_read_, prev_context_);
    prev_context_ = nullptr;
  }

 private:
  const EglApi& egl_;
  EGLContext context_ = nullptr;
  EGLContext prev_context_ = nullptr;
  EGLDisplay prev_display_ = nullptr;
  EGLSurface prev_draw_ = nullptr, prev_read_ = nullptr;
};

class OsmesaContext final : public GlContext {
 public:
  explicit OsmesaContext(const OsmesaApi& osmesa)
      : osmesa_(osmesa), buffer_(static_cast<std::size_t>(kOsmesaBufferSide * kOsmesaBufferSide * 4)) {
    context_ = osmesa_.CreateContextExt(kOsmesaRgba, 24, 8, 0, nullptr);
    if (!context_)
      throw std::runtime_error(std::string("MuJoCo rendering: cannot create an OSMesa context; ") + kOsmesaPackages);
  }
  ~OsmesaContext() override {
    if (osmesa_.GetCurrentContext() == context_) osmesa_.MakeCurrent(nullptr, nullptr, kGlFloat, 0, 0);
    osmesa_.DestroyContext(context_);
  }

  void MakeCurrent() override {
    if (osmesa_.GetCurrentContext() == context_) return;
    if (!osmesa_.MakeCurrent(context_, buffer_.data(), kGlFloat, kOsmesaBufferSide, kOsmesaBufferSide)) {
      throw std::runtime_error("MuJoCo rendering: cannot make the OSMesa context current");
    }
  }
  void RestorePrevious() override {}  // OSMesa's current buffer is not queryable: left as is

 private:
  const OsmesaApi& osmesa_;
  void* context_ = nullptr;
  std::vector<float> buffer_;
};

// The process's platform, or the error that loading it raised (both kept: a missing library
// does not appear later in the same process, and retrying would redo failing work per env).
struct Loaded {
  std::unique_ptr<Platform> platform;
  std::string error;
  bool done = false;
};

Loaded& LoadedPlatform() {
  static Loaded loaded;
  return loaded;
}

std::mutex& LoadMutex() {
  static std::mutex m;
  return m;
}

const Platform& GetPlatform() {
  std::lock_guard<std::mutex> lock(LoadMutex());
  Loaded& loaded = LoadedPlatform();
  if (!loaded.done) {
    try {
      auto p = std::make_unique<Platform>();
      p->backend = BackendFromEnvironment();
      if (p->backend == GlBackend::kEgl) {
        LoadEgl(p->egl);
        EglContext probe(p->egl);
      } else {
        LoadOsmesa(p->osmesa);
        OsmesaContext probe(p->osmesa);
      }
      loaded.platform = std::move(p);
    } catch (const std::exception& e) {
      loaded.error = e.what();
    }
    loaded.done = true;
  }
  if (!loaded.platform) throw std::runtime_error(loaded.error);
  return *loaded.platform;
}

}  // namespace

GlBackend BackendFromEnvironment() {
  const char* gl = std::getenv("MUJOCO_GL");
  const std::string name = gl ? gl : "";
  if (name.empty() || name == "egl") return GlBackend::kEgl;
  if (name == "osmesa") return GlBackend::kOsmesa;
  throw std::invalid_argument("MUJOCO_GL=" + name +
                              ": envpool draws MuJoCo frames offscreen with MUJOCO_GL=egl (the default) or "
                              "MUJOCO_GL=osmesa");
}

const char* BackendName(GlBackend backend) { return backend == GlBackend::kEgl ? "egl" : "osmesa"; }

void EnsureGl() { (void)GetPlatform(); }

std::unique_ptr<GlContext> GlContext::Create() {
  const Platform& p = GetPlatform();
  if (p.backend == GlBackend::kEgl) return std::make_unique<EglContext>(p.egl);
  return std::make_unique<OsmesaContext>(p.osmesa);
}

}  // namespace envpool::mujoco::render
