// MuJoCo frames drawn in C++: MuJoCo's own OpenGL renderer (mjv_updateScene, mjr_render,
// mjr_readPixels of the libmujoco the loader opened) in an offscreen GL context of the calling
// thread (gl_context.h: EGL, or OSMesa with MUJOCO_GL=osmesa). No Python, PyOpenGL or GLFW.
//
// Threads and lifetimes. GL contexts are per thread: a thread's first frame creates its context,
// and each (thread, model, offscreen size) gets its own mjrContext (meshes and textures uploaded
// once) and each (thread, model, maxgeom) its own mjvScene. All of them are freed when the thread
// exits; a pool's worker threads exit at close(), so nothing a pool drew outlives close(). The
// caches are keyed by the model's address: a model passed here must stay alive (and unchanged)
// for as long as any thread that drew it runs (the loader's LoadModel keeps models for the life
// of the process). Frames of different envs may be drawn on different threads at once (their
// GL work then runs one frame at a time per screen: contexts drawing at once on one screen only
// compete, see renderer.cc); one env's mjData must not be stepped while it is drawn.
#pragma once

#include <mujoco/mujoco.h>

#include <cstdint>

namespace envpool::mujoco::render {

// One frame's camera, buffer and scene settings.
struct FrameSpec {
  int width = 0;   // pixels
  int height = 0;  // pixels
  // The offscreen framebuffer the mjrContext is made with: at least width x height. gymnasium
  // grows the model's <visual><global offwidth offheight> to the frame size; dm_control keeps
  // the model's (and refuses larger frames).
  int offwidth = 0;
  int offheight = 0;
  int maxgeom = 1000;  // mjv_makeScene's capacity (gymnasium's max_geom)
  // What the thread's GL resources (mjrContext: meshes, textures, offscreen buffers) are kept
  // under; nullptr: the model drawn. Copies of one model that differ only in what is not
  // uploaded (body and geom positions, sizes, colours: a dm_control task that moves its target
  // in a model of its own per env) may pass the original here to share one mjrContext per
  // thread instead of one per env. It must stay alive as long as the model would have to.
  const void* resources_key = nullptr;
  // Upload the model's height fields again before drawing (mjr_uploadHField), for a task that
  // rewrites them each episode (dm_control's quadruped escape, whose initialize_episode does the
  // same); the upload is the thread's, so envs sharing resources_key still draw their own.
  bool upload_hfields = false;
};

// Draws model `m` in state `d` as `cam` and `opt` say into `rgb` (height x width x 3 bytes,
// row-major, top row first: mjr_readPixels' bottom-up rows are flipped, as gymnasium and
// dm_control flip them). `cam` is updated by mjv_updateScene as in the reference (tracking
// cameras move). Throws std::runtime_error when no GL context can be made (naming the package
// to install) and std::invalid_argument for a frame larger than the offscreen buffer.
void DrawFrame(const mjModel* m, mjData* d, const mjvOption& opt, mjvCamera& cam, const FrameSpec& frame, uint8_t* rgb);

// dm_control's physics.render(height, width, camera_id) (RGB, no overlays, dm_control's default
// scene options: MuJoCo's without rangefinder rays): camera_id -1 is the free camera
// (mjv_defaultFreeCamera), 0..ncam-1 a fixed camera of the model; a fresh camera per call, as
// dm_control makes one per render(); the offscreen buffer is the model's own and maxgeom
// dm_control's max(1000, its estimate of the model's renderable geoms). For dm_control's
// pixels.Wrapper / from_pixels observations: call it from the env's Step/Reset (on the pool's
// worker thread) with the obs array as `rgb`; for render(), from Env::Render (also on a worker).
// Throws std::invalid_argument (with dm_control's wording) for camera_id < -1 or >= ncam and for
// width/height larger than the model's offwidth/offheight; std::runtime_error without GL.
// `resources_key`, `upload_hfields`: as FrameSpec's.
void RenderPhysics(const mjModel* m, mjData* d, int camera_id, int width, int height, uint8_t* rgb,
                   const void* resources_key = nullptr, bool upload_hfields = false);

// dm_control's _estimate_max_renderable_geoms floored at 1000 (what RenderPhysics uses).
int DmControlMaxGeom(const mjModel* m);

// Throws std::runtime_error, naming the Debian packages to install, unless a GL context of the
// backend MUJOCO_GL selects can be made in this process (checked once, then remembered). For an
// env's constructor when it will render (render_mode="rgb_array", from_pixels=True), so the
// error comes at make(); a plain make never calls it and never loads a GL library.
void CheckGlAvailable();

}  // namespace envpool::mujoco::render
