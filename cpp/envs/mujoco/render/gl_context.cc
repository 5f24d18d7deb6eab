// See gl_context.h. The EGL and OSMesa declarations are written out here (a few types,
// constants and signatures from the Khronos and Mesa headers) so that building needs no GL
// headers; the libraries themselves are opened at run time.
#include "envs/mujoco/render/gl_context.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
constexpr EGLenum kEglPlatformSurfacelessMesa = 0x31DD;  // EGL_MESA_platform_surfaceless
constexpr EGLint kEglExtensions = 0x3055;
constexpr unsigned kGlRenderer = 0x1F01;  // glGetString(GL_RENDERER)

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
  EGLBoolean (*Terminate)(EGLDisplay);
  EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT*, EGLint*);
  EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void*, const EGLint*);
  const char* (*QueryDeviceStringEXT)(EGLDeviceEXT, EGLint);
  const char* (*QueryString)(EGLDisplay, EGLint);
  const unsigned char* (*GetString)(unsigned);  // glGetString, for the renderer's name
  EGLDeviceEXT device = nullptr;
};

// Where a context is made: an EGL display (OSMesa: none) and the lock its frames are drawn
// under. Mesa's llvmpipe rasterizes every context of a display on that display's one
// rasterizer (its pipe screen's, under the screen's lock), so contexts of one display only take
// turns; contexts of two displays draw at once.
struct Screen {
  EGLDisplay display = nullptr;
  EGLConfig config = nullptr;
  std::mutex draw;
  std::atomic<int> contexts{0};  // live contexts made on it
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
  GlRendererInfo renderer;  // what draws (LoadedGlRenderer)
  EglApi egl{};
  OsmesaApi osmesa{};
  std::vector<std::unique_ptr<Screen>> screens;  // at least one, fixed once loaded
  // Held from choosing a screen to making a context on it: a pool's threads make theirs at once.
  std::mutex assign;

  // The screen with the fewest live contexts, the first of equals.
  Screen& Emptiest() const {
    Screen* best = screens.front().get();
    for (const auto& s : screens) {
      if (s->contexts.load() < best->contexts.load()) best = s.get();
    }
    return *best;
  }
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

// `display`'s framebuffer configuration (mujoco.egl's), or nullptr.
EGLConfig ChooseConfig(const EglApi& egl, EGLDisplay display) {
  EGLConfig config = nullptr;
  EGLint found = 0;
  if (!egl.ChooseConfig(display, kEglConfigAttributes, &config, 1, &found) || found < 1) return nullptr;
  return config;
}

// Opens the device's display (mujoco.egl's) as the platform's first screen.
void LoadEgl(EglApi& egl, std::vector<std::unique_ptr<Screen>>& screens) {
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
  Symbol(h, "eglTerminate", egl.Terminate, lib);
  Symbol(h, "eglQueryString", egl.QueryString, lib);
  void* (*get_proc)(const char*) = nullptr;
  Symbol(h, "eglGetProcAddress", get_proc, lib);
  egl.QueryDevicesEXT = reinterpret_cast<decltype(egl.QueryDevicesEXT)>(get_proc("eglQueryDevicesEXT"));
  egl.GetPlatformDisplayEXT =
      reinterpret_cast<decltype(egl.GetPlatformDisplayEXT)>(get_proc("eglGetPlatformDisplayEXT"));
  egl.QueryDeviceStringEXT = reinterpret_cast<decltype(egl.QueryDeviceStringEXT)>(get_proc("eglQueryDeviceStringEXT"));
  egl.GetString = reinterpret_cast<decltype(egl.GetString)>(get_proc("glGetString"));
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
  auto screen = std::make_unique<Screen>();
  for (EGLDeviceEXT device : candidates) {
    EGLDisplay display = egl.GetPlatformDisplayEXT(kEglPlatformDeviceExt, device, nullptr);
    if (display == nullptr || egl.GetError() != kEglSuccess) continue;
    if (egl.Initialize(display, nullptr, nullptr) && egl.GetError() == kEglSuccess) {
      screen->display = display;
      egl.device = device;
      break;
    }
  }
  if (!screen->display) {
    throw std::runtime_error("MuJoCo rendering: none of the " + std::to_string(candidates.size()) +
                             " EGL device(s) could be initialized; " + kEglPackages);
  }
  screen->config = ChooseConfig(egl, screen->display);
  if (!screen->config) {
    throw std::runtime_error(
        "MuJoCo rendering: EGL has no framebuffer configuration with RGBA8, depth 24, stencil 8 "
        "and desktop OpenGL (error " +
        Hex(egl.GetError()) + "); " + kEglPackages);
  }
  screens.push_back(std::move(screen));
}

// Whether `list`, an EGL extension string (names separated by spaces), names `word`.
bool HasWord(const char* list, const char* word) {
  if (!list) return false;
  const std::size_t n = std::strlen(word);
  for (const char* p = list; (p = std::strstr(p, word)) != nullptr; p += n) {
    if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) return true;
  }
  return false;
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
  EglContext(const EglApi& egl, Screen& screen) : GlContext(screen.draw), egl_(egl), screen_(screen) {
    egl_.BindAPI(kEglOpenglApi);  // per thread: the context below is desktop OpenGL
    context_ = egl_.CreateContext(screen_.display, screen_.config, nullptr, nullptr);
    if (!context_) {
      throw std::runtime_error("MuJoCo rendering: cannot create an EGL context (error " + Hex(egl_.GetError()) + "); " +
                               kEglPackages);
    }
    ++screen_.contexts;
  }
  ~EglContext() override {
    if (egl_.GetCurrentContext() == context_) {
      egl_.MakeCurrent(screen_.display, nullptr, nullptr, nullptr);
      egl_.ReleaseThread();
    }
    egl_.DestroyContext(screen_.display, context_);
    --screen_.contexts;
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
    if (!egl_.MakeCurrent(screen_.display, nullptr, nullptr, context_)) {
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
  Screen& screen_;
  EGLContext context_ = nullptr;
  EGLContext prev_context_ = nullptr;
  EGLDisplay prev_display_ = nullptr;
  EGLSurface prev_draw_ = nullptr, prev_read_ = nullptr;
};

class OsmesaContext final : public GlContext {
 public:
  OsmesaContext(const OsmesaApi& osmesa, Screen& screen)
      : GlContext(screen.draw),
        osmesa_(osmesa),
        buffer_(static_cast<std::size_t>(kOsmesaBufferSide * kOsmesaBufferSide * 4)) {
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

// The renderer's name (GL_RENDERER) of a context on `screen`, or "" where none can be made.
std::string RendererName(const EglApi& egl, Screen& screen) {
  try {
    EglContext probe(egl, screen);
    probe.MakeCurrent();
    const unsigned char* name = egl.GetString(kGlRenderer);
    std::string out = name ? reinterpret_cast<const char*>(name) : "";
    probe.RestorePrevious();
    return out;
  } catch (const std::runtime_error&) {
    return "";
  }
}

// How many screens ENVPOOL_EGL_SCREENS allows: 1, or 2 (unset: 2).
int ScreensFromEnvironment() {
  const char* env = std::getenv("ENVPOOL_EGL_SCREENS");
  const std::string value = env ? env : "";
  if (value.empty() || value == "2") return 2;
  if (value == "1") return 1;
  throw std::invalid_argument("ENVPOOL_EGL_SCREENS=" + value +
                              ": 1 draws every frame on the EGL device's display, 2 (the default) lets Mesa's "
                              "software renderer use a second display too");
}

// On Mesa's software device (llvmpipe), a second screen: Mesa's surfaceless platform's display,
// a pipe screen with its own rasterizer, so that two threads' frames are rasterized at once
// (one display's contexts take turns in its rasterizer: on 2 cores frames used ~1.5 cores).
// Added only where it draws with the same renderer as the device's display (the same pixels):
// on a machine with a GPU render node, Mesa's surfaceless display would pick the GPU. A GPU's
// own EGL keeps one screen: there, frames drawn one at a time are the fastest (renderer.cc).
void AddSoftwareScreen(EglApi& egl, std::vector<std::unique_ptr<Screen>>& screens) {
  if (ScreensFromEnvironment() < 2 || !egl.QueryDeviceStringEXT || !egl.GetString) return;
  if (!HasWord(egl.QueryDeviceStringEXT(egl.device, kEglExtensions), "EGL_MESA_device_software")) return;
  if (!HasWord(egl.QueryString(nullptr, kEglExtensions), "EGL_MESA_platform_surfaceless")) return;
  EGLDisplay display = egl.GetPlatformDisplayEXT(kEglPlatformSurfacelessMesa, nullptr, nullptr);
  if (!display || display == screens.front()->display) {
    egl.GetError();  // clears the error a refusal set
    return;
  }
  if (!egl.Initialize(display, nullptr, nullptr)) {
    egl.GetError();
    return;
  }
  auto screen = std::make_unique<Screen>();
  screen->display = display;
  screen->config = ChooseConfig(egl, display);
  const std::string first = RendererName(egl, *screens.front());
  if (!screen->config || first.empty() || RendererName(egl, *screen) != first) {
    egl.Terminate(display);
    egl.GetError();
    return;
  }
  screens.push_back(std::move(screen));
}

// The process's platform, or the error that loading it raised (both kept: a missing library
// does not appear later in the same process, and retrying would redo failing work per env).
struct Loaded {
  std::unique_ptr<Platform> platform;
  std::string error;
  bool done = false;
  std::atomic<pid_t> pid{0};  // the process that loaded `platform` (0: none loaded)
};

Loaded& LoadedPlatform() {
  static Loaded loaded;
  return loaded;
}

std::mutex& LoadMutex() {
  static std::mutex m;
  return m;
}

#if defined(__GLIBC__)
// Ends a fork of the process that opened the GL library before the library's own exit handlers
// run: Mesa's join threads that only the parent has (a segfault or a hang at the fork's exit,
// seen with llvmpipe). Registered after the library is loaded, so it runs before them (exit
// handlers run in reverse order); the process's status is kept. C++ objects' destructors that
// would run after it are skipped: the process is ending and its memory goes with it.
void EndForkBeforeGlExitHandlers(int status, void* /*unused*/) {
  if (!GlInheritedFromFork()) return;
  std::fflush(nullptr);
  _exit(status);
}
#endif

Platform& GetPlatform() {
  std::lock_guard<std::mutex> lock(LoadMutex());
  Loaded& loaded = LoadedPlatform();
  if (GlInheritedFromFork()) {
    throw std::runtime_error(
        "MuJoCo rendering: this process is a fork of process " + std::to_string(loaded.pid.load()) +
        ", which had already opened " + BackendName(loaded.platform->backend) +
        " to draw MuJoCo frames; the GL library's state (its threads included) does not survive fork(), "
        "so frames cannot be drawn here. Draw frames only in processes started with the 'spawn' or "
        "'forkserver' method (multiprocessing.get_context('spawn')), or fork before the first frame");
  }
  if (!loaded.done) {
    try {
      auto p = std::make_unique<Platform>();
      p->backend = BackendFromEnvironment();
      if (p->backend == GlBackend::kEgl) {
        LoadEgl(p->egl, p->screens);
        {
          EglContext probe(p->egl, *p->screens.front());
        }
        AddSoftwareScreen(p->egl, p->screens);
        p->renderer = {"egl", p->egl.GetString ? RendererName(p->egl, *p->screens.front()) : "", false};
        const char* device =
            p->egl.QueryDeviceStringEXT ? p->egl.QueryDeviceStringEXT(p->egl.device, kEglExtensions) : nullptr;
        const std::string& name = p->renderer.renderer;
        p->renderer.software = HasWord(device, "EGL_MESA_device_software") || name.find("llvmpipe") == 0 ||
                               name.find("softpipe") == 0 || name.find("swrast") != std::string::npos;
        if (name.empty()) p->renderer.renderer = "an unnamed EGL renderer";
      } else {
        LoadOsmesa(p->osmesa);
        p->screens.push_back(std::make_unique<Screen>());  // OSMesa: one screen per process
        OsmesaContext probe(p->osmesa, *p->screens.front());
        p->renderer = {"osmesa", "OSMesa", true};  // Mesa's off-screen library draws on the CPU only
      }
      loaded.platform = std::move(p);
      loaded.pid = getpid();
#if defined(__GLIBC__)
      on_exit(EndForkBeforeGlExitHandlers, nullptr);  // glibc's atexit with the exit status
#endif
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

GlRendererInfo LoadedGlRenderer() {
  std::lock_guard<std::mutex> lock(LoadMutex());
  const Loaded& loaded = LoadedPlatform();
  return loaded.platform ? loaded.platform->renderer : GlRendererInfo{};
}

bool GlInheritedFromFork() {
  const pid_t loader = LoadedPlatform().pid.load();
  return loader != 0 && loader != getpid();
}

std::unique_ptr<GlContext> GlContext::Create() {
  Platform& p = GetPlatform();
  if (p.backend == GlBackend::kEgl) {
    std::lock_guard<std::mutex> lock(p.assign);
    return std::make_unique<EglContext>(p.egl, p.Emptiest());
  }
  return std::make_unique<OsmesaContext>(p.osmesa, *p.screens.front());
}

}  // namespace envpool::mujoco::render
