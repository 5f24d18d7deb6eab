// See renderer.h.
#include "envs/mujoco/render/renderer.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "envs/mujoco/loader.h"
#include "envs/mujoco/render/gl_context.h"

namespace envpool::mujoco::render {

namespace {

// What one thread keeps for one (model, offscreen size, maxgeom): MuJoCo's GL resources for the
// model (meshes, textures, offscreen buffers) and a scene to fill.
struct Target {
  const void* key;  // FrameSpec::resources_key, or the model
  int offwidth, offheight, maxgeom;
  mjrContext con;
  mjvScene scene;
};

// A thread's GL context and targets, made at its first frame and freed when it exits (the
// context outlives the targets: it is declared first and made current to free them).
class ThreadRenderer {
 public:
  ThreadRenderer() = default;
  ThreadRenderer(const ThreadRenderer&) = delete;
  ThreadRenderer& operator=(const ThreadRenderer&) = delete;
  ~ThreadRenderer() {
    if (gl_ && GlInheritedFromFork()) {
      // A fork's copy of the forking thread's renderer (its exit runs this): freeing would
      // wait on the parent's GL threads. The process is ending; its memory goes with it.
      (void)gl_.release();
      return;
    }
    if (!gl_ || targets_.empty()) return;
    const MjApi& mj = Mj();
    try {
      gl_->MakeCurrent();
    } catch (const std::exception&) {
      return;  // the GL resources go with the context
    }
    for (auto& t : targets_) {
      mj.r_freeContext(&t->con);
      mj.v_freeScene(&t->scene);
    }
    gl_->RestorePrevious();
  }

  // This thread's context, made current (created on first use).
  GlContext& Current() {
    if (GlInheritedFromFork()) EnsureGl();  // throws: a fork cannot draw
    if (!gl_) gl_ = GlContext::Create();
    gl_->MakeCurrent();
    return *gl_;
  }

  // This thread's target for `m` and `frame`, or nullptr before Make.
  Target* Find(const mjModel* m, const FrameSpec& frame) {
    const void* key = frame.resources_key ? frame.resources_key : m;
    for (auto& t : targets_) {
      if (t->key == key && t->offwidth == frame.offwidth && t->offheight == frame.offheight &&
          t->maxgeom == frame.maxgeom) {
        return t.get();
      }
    }
    return nullptr;
  }

  // A new target for `m` and `frame` (Find found none); the context must be current.
  Target& Make(const mjModel* m, const FrameSpec& frame) {
    const void* key = frame.resources_key ? frame.resources_key : m;
    const MjApi& mj = Mj();
    auto t = std::make_unique<Target>();
    t->key = key;
    t->offwidth = frame.offwidth;
    t->offheight = frame.offheight;
    t->maxgeom = frame.maxgeom;
    mj.v_defaultScene(&t->scene);
    mj.v_makeScene(m, &t->scene, frame.maxgeom);
    // mjr_makeContext sizes the offscreen buffer from the model's vis.global.offwidth/offheight,
    // which gymnasium grows to the frame size on its own copy of the model. Ours is shared by
    // every env, so the context is made from a shallow copy of the struct with the size changed
    // (mjr_makeContext only reads the model).
    mjModel sized = *m;
    sized.vis.global.offwidth = frame.offwidth;
    sized.vis.global.offheight = frame.offheight;
    mj.r_defaultContext(&t->con);
    mj.r_makeContext(&sized, &t->con, mjFONTSCALE_150);  // gymnasium's MjrContext font scale
    if (t->con.offWidth < frame.width || t->con.offHeight < frame.height) {
      mj.r_freeContext(&t->con);
      mj.v_freeScene(&t->scene);
      throw std::runtime_error("MuJoCo rendering: the offscreen buffer is " + std::to_string(t->con.offWidth) + "x" +
                               std::to_string(t->con.offHeight) + ", smaller than the requested frame");
    }
    targets_.push_back(std::move(t));
    return *targets_.back();
  }

 private:
  std::unique_ptr<GlContext> gl_;
  std::vector<std::unique_ptr<Target>> targets_;
};

thread_local ThreadRenderer t_renderer;

// The GL work of one frame at a time per screen (GlContext::DrawMutex; each thread still has its
// own context). Contexts drawing at once on one screen only compete: on an H200 with NVIDIA's
// EGL, 16 threads drawing HalfCheetah 84x84 at once made 71 frames/s in all, one at a time 400
// (one thread alone: 408); llvmpipe spreads each frame over the cores itself, and gets a second
// screen so that two frames are rasterized at once. The scene update (CPU only, per thread) runs
// outside. Making a target (mjr_makeContext, which also reloads MuJoCo's process-wide GL function
// pointers) holds this lock alone; frames hold it shared.
std::shared_mutex& SetupMutex() {
  static std::shared_mutex m;
  return m;
}

const mjvPerturb& DefaultPerturb() {
  static const mjvPerturb pert = [] {
    mjvPerturb p;
    Mj().v_defaultPerturb(&p);
    return p;
  }();
  return pert;
}

// mjr_readPixels' rows run bottom-up; frames are top row first (gymnasium's rgb_img[::-1]).
void FlipRows(uint8_t* rgb, int width, int height) {
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  thread_local std::vector<uint8_t> scratch;  // grows to the widest frame, then never again
  if (scratch.size() < row) scratch.resize(row);
  for (int top = 0, bottom = height - 1; top < bottom; ++top, --bottom) {
    uint8_t* a = rgb + static_cast<std::size_t>(top) * row;
    uint8_t* b = rgb + static_cast<std::size_t>(bottom) * row;
    std::memcpy(scratch.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, scratch.data(), row);
  }
}

}  // namespace

void DrawFrame(const mjModel* m, mjData* d, const mjvOption& opt, mjvCamera& cam, const FrameSpec& frame,
               uint8_t* rgb) {
  if (frame.width <= 0 || frame.height <= 0) {
    throw std::invalid_argument("frame size must be positive, got " + std::to_string(frame.width) + "x" +
                                std::to_string(frame.height));
  }
  if (frame.width > frame.offwidth || frame.height > frame.offheight) {
    throw std::invalid_argument("frame " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                                " is larger than the offscreen buffer " + std::to_string(frame.offwidth) + "x" +
                                std::to_string(frame.offheight));
  }
  const MjApi& mj = Mj();
  GlContext& gl = t_renderer.Current();
  // Whatever happens below, another renderer's context that was current on this thread is
  // current again afterwards.
  struct Restore {
    GlContext& gl;
    ~Restore() { gl.RestorePrevious(); }
  } restore{gl};
  Target* target = t_renderer.Find(m, frame);
  if (!target) {
    std::unique_lock<std::shared_mutex> setup(SetupMutex());
    target = &t_renderer.Make(m, frame);
  }
  Target& t = *target;
  mj.v_updateScene(m, d, &opt, &DefaultPerturb(), &cam, mjCAT_ALL, &t.scene);
  const mjrRect viewport{0, 0, frame.width, frame.height};
  {
    std::shared_lock<std::shared_mutex> setup(SetupMutex());
    std::lock_guard<std::mutex> draw(gl.DrawMutex());
    // Several targets share the thread's context: bind this one's offscreen buffer each frame.
    mj.r_setBuffer(mjFB_OFFSCREEN, &t.con);
    if (frame.upload_hfields) {
      for (int h = 0; h < m->nhfield; ++h) mj.r_uploadHField(m, &t.con, h);
    }
    mj.r_render(viewport, &t.scene, &t.con);
    mj.r_readPixels(rgb, nullptr, viewport, &t.con);
  }
  FlipRows(rgb, frame.width, frame.height);
}

int DmControlMaxGeom(const mjModel* m) {
  // dm_control's wrapper.core._estimate_max_renderable_geoms, floored at 1000 by its MjvScene.
  const int max_frames = std::max({m->nbody, m->ngeom, m->nsite, m->ncam, m->nlight});
  const int estimate = 3 * max_frames + 4 * m->ngeom + 3 * m->nbody + m->nsite + m->ntendon + m->njnt + m->nu +
                       m->nskin + m->ncam + m->nlight;
  return std::max(1000, estimate);
}

void RenderPhysics(const mjModel* m, mjData* d, int camera_id, int width, int height, uint8_t* rgb,
                   const void* resources_key, bool upload_hfields) {
  // dm_control's Camera.__init__ checks, in its order and words.
  if (width > m->vis.global.offwidth) {
    throw std::invalid_argument("Image width " + std::to_string(width) + " > framebuffer width " +
                                std::to_string(m->vis.global.offwidth) +
                                ". Either reduce the image width or specify a larger offscreen framebuffer in the "
                                "model XML using the clause <visual><global offwidth=\"my_width\"/></visual>");
  }
  if (height > m->vis.global.offheight) {
    throw std::invalid_argument("Image height " + std::to_string(height) + " > framebuffer height " +
                                std::to_string(m->vis.global.offheight) +
                                ". Either reduce the image height or specify a larger offscreen framebuffer in the "
                                "model XML using the clause <visual><global offheight=\"my_height\"/></visual>");
  }
  if (camera_id < -1) throw std::invalid_argument("camera_id cannot be smaller than -1.");
  if (camera_id >= m->ncam) {
    throw std::invalid_argument("model has " + std::to_string(m->ncam) +
                                " fixed cameras. camera_id=" + std::to_string(camera_id) + " is invalid.");
  }
  const MjApi& mj = Mj();
  mjvCamera cam;
  mj.v_defaultCamera(&cam);
  cam.fixedcamid = camera_id;
  if (camera_id == -1) {
    cam.type = mjCAMERA_FREE;
    mj.v_defaultFreeCamera(m, &cam);
  } else {
    cam.type = mjCAMERA_FIXED;
  }
  mjvOption opt;
  mj.v_defaultOption(&opt);
  opt.flags[mjVIS_RANGEFINDER] = 0;  // dm_control's MjvOption hides rangefinder rays by default
  FrameSpec frame;
  frame.width = width;
  frame.height = height;
  frame.offwidth = m->vis.global.offwidth;
  frame.offheight = m->vis.global.offheight;
  frame.maxgeom = DmControlMaxGeom(m);
  frame.resources_key = resources_key;
  frame.upload_hfields = upload_hfields;
  DrawFrame(m, d, opt, cam, frame, rgb);
}

void CheckGlAvailable() { EnsureGl(); }

}  // namespace envpool::mujoco::render
