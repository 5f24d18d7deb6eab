// An offscreen OpenGL context per thread, for MuJoCo's renderer (renderer.h), with no Python,
// PyOpenGL or GLFW: the platform library is dlopen()ed at the first frame, as libmujoco is.
//
// Backends, chosen by MUJOCO_GL as gymnasium and dm_control choose theirs:
//  * "egl" (and unset): libEGL.so.1 (Debian `libegl1`; Mesa's `libgl1-mesa-dri` renders on the
//    CPU, a GPU driver's EGL on the GPU). As mujoco.egl does: a display on an EGL device
//    (EGL_EXT_device_enumeration; MUJOCO_EGL_DEVICE_ID picks one by index, else the first that
//    initializes), mujoco.egl's framebuffer config (RGBA8, depth 24, stencil 8, pbuffer, desktop
//    OpenGL) and a context made current without a surface (MuJoCo draws into its own FBO).
//    On Mesa's software device a thread's context is made on one of two screens: the device's
//    display or Mesa's surfaceless display, where that draws with the same renderer (the same
//    pixels), so that two frames are rasterized at once; ENVPOOL_EGL_SCREENS=1 keeps one.
//  * "osmesa": libOSMesa.so.8 (Debian `libosmesa6`), mujoco.osmesa's context (RGBA, depth 24,
//    stencil 8) over a small float buffer of its own.
// ENVPOOL_EGL_LIB / ENVPOOL_OSMESA_LIB name another library file. One backend per process:
// MuJoCo resolves its GL functions once, through whichever platform library it finds loaded.
#pragma once

#include <memory>
#include <mutex>
#include <string>

namespace envpool::mujoco::render {

enum class GlBackend { kEgl, kOsmesa };

// The backend MUJOCO_GL names now. Throws std::invalid_argument for a value other than egl or
// osmesa (glfw needs a window system: envpool draws offscreen only).
GlBackend BackendFromEnvironment();

// "egl" / "osmesa".
const char* BackendName(GlBackend backend);

// Loads the backend's library and prepares it (EGL: the display and config) once per process,
// then makes and destroys one context to prove that contexts can be made. Throws
// std::runtime_error naming what failed and the Debian packages to install; the result (and
// the backend) are remembered for the life of the process.
// In a fork of the process that loaded the backend (GlInheritedFromFork), throws
// std::runtime_error saying so.
void EnsureGl();

// What draws this process's frames, once the backend is loaded (EnsureGl, a pool made with
// frames); nothing is loaded here. renderer: GL_RENDERER (EGL, e.g. "llvmpipe (LLVM 15.0.6, 256
// bits)" or a GPU's name), "OSMesa" (the osmesa backend); "" while no backend is loaded.
// software: Mesa's CPU rasterizer draws (an EGL device with EGL_MESA_device_software, a renderer
// named llvmpipe, softpipe or swrast, or OSMesa), tens of frames per second per core.
struct GlRendererInfo {
  std::string backend;
  std::string renderer;
  bool software = false;
};
GlRendererInfo LoadedGlRenderer();

// Whether this process is a fork of the one that loaded the backend. The GL library's state,
// its threads included (Mesa's rasterizer threads), does not survive fork(): a child cannot
// draw, and must not touch the contexts it inherited (they would wait forever on threads it
// lacks).
bool GlInheritedFromFork();

// One thread's GL context. Made on the thread that uses it (Create), used only there, destroyed
// there too (a thread_local owns it: renderer.cc).
class GlContext {
 public:
  // A new context of the process's backend (EnsureGl first); not yet current.
  static std::unique_ptr<GlContext> Create();
  virtual ~GlContext() = default;
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  // Makes this context current on the calling thread unless it already is; throws
  // std::runtime_error when the platform refuses.
  virtual void MakeCurrent() = 0;
  // Makes the context that was current before the last MakeCurrent current again, if there was
  // another (EGL only: another renderer on this thread, gymnasium's say, keeps working).
  virtual void RestorePrevious() = 0;

  // Held while this context draws a frame. Contexts on one screen (EGL display; OSMesa: the
  // process) share it and take turns; Mesa's software renderer gets two screens (gl_context.cc).
  std::mutex& DrawMutex() { return draw_; }

 protected:
  explicit GlContext(std::mutex& draw) : draw_(draw) {}

 private:
  std::mutex& draw_;
};

}  // namespace envpool::mujoco::render
