// Base class of dm_control's suite tasks (dm_control.rl.control.Environment around a
// dm_control.suite.base.Task), native.
//
// Model files are read at run time from the installed dm-control package (its suite/ folder,
// found with importlib without importing it). Each env owns a copy of its compiled model
// because suite tasks move targets and change sizes in the model at every episode (reacher,
// finger, fish, ...); the compiled original is shared read-only, as for the gym tasks.
//
// Semantics follow control.Environment with the suite's defaults:
//   reset: mj_resetData, the task's initialize_episode (random draws from the env's own
//     numpy RandomState, core/legacy_random.h), then mj_forward with actuation disabled
//     (Physics.after_reset); the first observation.
//   step: ctrl = action, `frame_skip` physics steps as dm_control's legacy step (mj_step2, then
//     frame_skip - 1 mj_steps, then mj_step1; mj_step then mj_step1 for RK4), reward and
//     observation, then the time limit: the episode is cut (truncated, discount 1) once
//     step_count >= time_limit / (timestep * frame_skip), or ends (terminated, discount 0)
//     where the task terminates.
// Env i of a pool is dm_control's task with `random = seed + i` (mod 2**32, as RandomState
// takes 32-bit seeds); its RandomState runs on across episodes, as dm_control's does.
//
// State (GetState/SetState): the layout of ../state.h, as the gym tasks;
// SetState also takes dm_control's physics.get_state() (qpos, qvel, act) or (qpos, qvel).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/legacy_random.h"
#include "envs/mujoco/gym/mujoco_env.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/render/renderer.h"
#include "envs/mujoco/state.h"
#include "envs/package_dirs.h"

namespace envpool::mujoco::dmc {

using gym::Norm;
using gym::NumpyPow2;
using gym::NumpySum;

// The installed dm_control's suite/ folder; throws naming the extra when it is not installed.
inline std::string SuiteDir() {
  const std::string dir = InterpreterPackageDir("dm_control");
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(std::filesystem::path(dir) / "suite", ec)) {
    throw std::runtime_error(
        "dm_control suite tasks read their model files from the dm-control package, which is not installed: "
        "pip install \"envpool-ng[dmc]\" (dm-control==1.0.50)");
  }
  return (std::filesystem::path(dir) / "suite").string();
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Compiles suite XML text `xml` (named `file` in errors) with the suite's common assets in a
// virtual file system, as dm_control's Physics.from_xml_string(xml, common.ASSETS). The caller
// owns the model.
inline mjModel* CompileSuiteXml(const std::string& file, const std::string& xml, const std::string& asset_dir = "") {
  const MjApi& mj = Mj();
  const std::string dir = SuiteDir();
  mjVFS vfs;
  mj.defaultVFS(&vfs);
  const char* kCommon[] = {"./common/materials.xml", "./common/skybox.xml", "./common/visual.xml"};
  std::vector<std::string> buffers;
  for (const char* name : kCommon) buffers.push_back(ReadFile(dir + "/" + std::string(name + 2)));
  const std::string main_name = "envpool_dmc_" + file;
  bool ok = mj.addBufferVFS(&vfs, main_name.c_str(), xml.data(), static_cast<int>(xml.size())) == 0;
  for (std::size_t i = 0; i < 3 && ok; ++i) {
    ok = mj.addBufferVFS(&vfs, kCommon[i], buffers[i].data(), static_cast<int>(buffers[i].size())) == 0;
  }
  // A domain's own asset folder (dog's meshes and textures), under the names its XML gives them
  // (compiler meshdir / texturedir = "<folder>/").
  if (!asset_dir.empty()) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(dir) / asset_dir, ec)) {
      if (!ok) break;
      const std::string name = asset_dir + "/" + entry.path().filename().string();
      const std::string data = ReadFile(entry.path().string());
      ok = mj.addBufferVFS(&vfs, name.c_str(), data.data(), static_cast<int>(data.size())) == 0;
    }
    if (ec) ok = false;
  }
  if (!ok) {
    mj.deleteVFS(&vfs);
    throw std::runtime_error("MuJoCo could not add " + file + " to its virtual file system");
  }
  char error[1024] = "";
  mjModel* m = mj.loadXML(main_name.c_str(), &vfs, error, sizeof(error));
  mj.deleteVFS(&vfs);
  if (!m) throw std::invalid_argument("MuJoCo cannot load " + dir + "/" + file + ": " + error);
  return m;
}

// The compiled model of suite file `file` (e.g. "cheetah.xml"), after `edit` (a function of the
// XML text, as the domains that build their XML in Python change it; `variant` names the edit
// for the cache). Compiled once per process and variant.
inline std::shared_ptr<const mjModel> SuiteModel(const std::string& file, const std::string& variant = "",
                                                 const std::function<std::string(const std::string&)>& edit = {},
                                                 const std::string& asset_dir = "") {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const mjModel>> cache;
  const std::string key = file + "#" + variant;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::string xml = ReadFile(SuiteDir() + "/" + file);
  if (edit) xml = edit(xml);
  std::shared_ptr<const mjModel> model(CompileSuiteXml(file, xml, asset_dir),
                                       [](const mjModel*) { /* kept until exit */ });
  cache.emplace(key, model);
  return model;
}

// An object's id by name (mjOBJ_BODY, mjOBJ_JOINT, ...); throws when the model has none.
inline int Id(const mjModel* m, int type, const char* name) {
  const int id = Mj().name2id(m, type, name);
  if (id < 0) throw std::runtime_error(std::string("the dm_control model has no object named ") + name);
  return id;
}

// dm_control.utils.rewards.tolerance. `scalar`: x was a scalar in dm_control (a numpy scalar
// squares with pow(), an array with x * x).
enum class Sigmoid { kGaussian, kHyperbolic, kLongTail, kReciprocal, kCosine, kLinear, kQuadratic, kTanhSquared };

inline double Tolerance(double x, double lower, double upper, double margin = 0.0, Sigmoid sigmoid = Sigmoid::kGaussian,
                        double value_at_margin = 0.1, bool scalar = true) {
  const bool in_bounds = lower <= x && x <= upper;
  if (in_bounds) return 1.0;
  if (margin == 0) return 0.0;
  const double d = (x < lower ? lower - x : x - upper) / margin;
  const double v = value_at_margin;
  const auto square = [scalar](double y) { return scalar ? NumpyPow2(y) : y * y; };
  switch (sigmoid) {
    case Sigmoid::kGaussian: {
      const double scale = std::sqrt(-2 * std::log(v));
      return std::exp(-0.5 * square(d * scale));
    }
    case Sigmoid::kHyperbolic: {
      const double scale = std::acosh(1 / v);
      return 1 / std::cosh(d * scale);
    }
    case Sigmoid::kLongTail: {
      const double scale = std::sqrt(1 / v - 1);
      return 1 / (square(d * scale) + 1);
    }
    case Sigmoid::kReciprocal: {
      const double scale = 1 / v - 1;
      return 1 / (std::abs(d) * scale + 1);
    }
    case Sigmoid::kCosine: {
      const double scale = std::acos(2 * v - 1) / M_PI;
      const double sx = d * scale;
      return std::abs(sx) < 1 ? (1 + std::cos(M_PI * sx)) / 2 : 0.0;
    }
    case Sigmoid::kLinear: {
      const double scale = 1 - v;
      const double sx = d * scale;
      return std::abs(sx) < 1 ? 1 - sx : 0.0;
    }
    case Sigmoid::kQuadratic: {
      const double scale = std::sqrt(1 - v);
      const double sx = d * scale;
      return std::abs(sx) < 1 ? 1 - square(sx) : 0.0;
    }
    case Sigmoid::kTanhSquared: {
      const double scale = std::atanh(std::sqrt(1 - v));
      return 1 - square(std::tanh(d * scale));
    }
  }
  return 0.0;
}

// One observation entry of a task: dm_control's key and shape ({} for a scalar).
struct ObsField {
  ObsField(std::string n, std::initializer_list<int64_t> s) : name(std::move(n)) {
    for (int64_t d : s) shape.push_back(static_cast<int>(d));  // MuJoCo's sizes are 64-bit
  }
  std::string name;
  std::vector<int> shape;
};

// Writes a task's observation entries in order: into one array each, or, with
// flat_observation, one after the other into dm_control's single "observations" array.
class ObsWriter {
 public:
  ObsWriter(const Output& out, bool flat) : out_(out), flat_(flat) {}
  double* Next(std::size_t n) {
    double* p = flat_ ? out_.Obs<double>(0) + offset_ : out_.Obs<double>(field_);
    if (field_ < kMaxArraysPerKind) sizes_[field_] = n;
    offset_ += n;
    ++field_;
    return p;
  }
  // The size of each array written (flat: the one vector's total).
  std::size_t Size(std::size_t array) const { return flat_ ? offset_ : sizes_[array]; }
  void Put(const double* src, std::size_t n) { std::copy(src, src + n, Next(n)); }
  void Put(double v) { *Next(1) = v; }
  // The obs arrays written so far (1 with flat_observation).
  std::size_t Arrays() const { return flat_ ? (field_ > 0 ? 1 : 0) : field_; }

 private:
  const Output& out_;
  bool flat_;
  std::size_t field_ = 0, offset_ = 0;
  std::size_t sizes_[kMaxArraysPerKind] = {};
};

class DmcEnv : public Env {
 public:
  ~DmcEnv() override {
    if (data_) Mj().deleteData(data_);
    if (m_) Mj().deleteModel(m_);
  }
  DmcEnv(const DmcEnv&) = delete;
  DmcEnv& operator=(const DmcEnv&) = delete;

  void Seed(uint64_t seed) override { random_.Seed(static_cast<uint32_t>(seed)); }

  void Reset(Rng& /*rng*/, Output& out) final {
    step_count_ = 0;
    Mj().resetData(m_, data_);  // Physics.reset_context: reset() is mj_resetData and after_reset()
    AfterReset();
    InitializeEpisode();
    AfterReset();
    Observe(out, true);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) final {
    BeforeStep(action.Get<double>());
    PhysicsStep(n_sub_steps_);
    AfterStep();
    out.reward() = Reward();
    Observe(out, false);
    ++step_count_;
    if (static_cast<double>(step_count_) >= step_limit_) {
      out.truncated() = true;
    } else {
      out.terminated() = Terminated();
    }
  }

  std::vector<double> GetState() const override { return ReadState(m_, data_); }

  // render() with render_mode="rgb_array": physics.render(render_height, render_width,
  // camera_id), MuJoCo's own renderer as for from_pixels (with from_pixels and no render size,
  // the frame the observation holds).
  void Render(uint8_t* rgb) const override {
    if (!render_enabled_) throw std::logic_error("this env was made without render_mode='rgb_array'");
    render::RenderPhysics(m_, data_, camera_id_, render_width_, render_height_, rgb, model_.get(), upload_hfields_);
  }

  void SetState(const std::vector<double>& state) override {
    const std::size_t nq = m_->nq, nv = m_->nv, na = m_->na;
    const std::size_t n = state.size();
    if (n != nq + nv && n != nq + nv + na && n != FullStateSize(m_)) {
      throw std::invalid_argument("state must have nq + nv = " + std::to_string(nq + nv) +
                                  " values (qpos, qvel), nq + nv + na = " + std::to_string(nq + nv + na) +
                                  " (dm_control's physics.get_state()) or " + std::to_string(FullStateSize(m_)) +
                                  " (qpos, qvel, act, qacc_warmstart, time), got " + std::to_string(n));
    }
    WriteState(m_, data_, state);
    // dm_control's step starts with mj_step2, which expects mj_step1's results: mj_forward
    // computes them (and more) from the new state.
    Mj().forward(m_, data_);
  }

 protected:
  // The common kwargs: dm_control's task and environment kwargs, with the reference EnvPool's
  // name frame_skip for the physics steps per control step.
  // from_pixels, pixels_only, height, width, camera_id: dm_control's pixels.Wrapper with
  // render_kwargs {height, width, camera_id} (84 x 84 and the free camera by default, as the
  // reference EnvPool's from_pixels).
  // render_mode ("rgb_array" from make(render_mode=...)), render_height, render_width: render()
  // frames, physics.render(render_height, render_width, camera_id); a size of 0 is the
  // from_pixels frame's with from_pixels, else physics.render's default 240 x 320.
  static Config BaseConfig(const std::string& task_name, int64_t frame_skip, double time_limit) {
    return {{"task_name", task_name},       {"frame_skip", frame_skip},    {"time_limit", time_limit},
            {"control_timestep", 0.0},      {"n_sub_steps", int64_t{0}},   {"flat_observation", false},
            {"from_pixels", false},         {"pixels_only", true},         {"height", int64_t{84}},
            {"width", int64_t{84}},         {"camera_id", int64_t{-1}},    {"frame_stack", int64_t{1}},
            {"render_mode", std::string()}, {"render_height", int64_t{0}}, {"render_width", int64_t{0}}};
  }

  static EnvSpec MakeSpec(const mjModel* m, const Config& config, const std::vector<ObsField>& fields) {
    EnvSpec spec;
    const bool pixels = config.Get<bool>("from_pixels");
    if (pixels && config.Get<bool>("pixels_only")) {
      // no state entries
    } else if (config.Get<bool>("flat_observation")) {
      int total = 0;
      for (const auto& f : fields) {
        int n = 1;
        for (int d : f.shape) n *= d;
        total += n;
      }
      spec.obs.push_back(ArraySpec::Box("observations", DType::kFloat64, {total}, {-INFINITY}, {INFINITY}));
    } else {
      for (const auto& f : fields) {
        spec.obs.push_back(ArraySpec::Box(f.name, DType::kFloat64, f.shape, {-INFINITY}, {INFINITY}));
      }
    }
    // frame_stack k (the reference EnvPool's): each state entry gets a leading axis of the last
    // k values, oldest first; frames stack on the channel axis, (H, W, 3k).
    const int k = FrameStack(config);
    if (k > 1) {
      for (auto& a : spec.obs) a.shape.insert(a.shape.begin(), k);
    }
    if (pixels) {
      const auto [height, width, camera_id] = PixelKwargs(config);
      (void)camera_id;
      spec.obs.push_back(ArraySpec::Box("pixels", DType::kUInt8, {height, width, 3 * k}, {0}, {255}));
    }
    std::tie(spec.render_height, spec.render_width) = RenderSize(config);
    std::vector<double> lo, hi;
    for (int i = 0; i < m->nu; ++i) {
      const bool limited = m->actuator_ctrllimited[i] != 0;
      // dm_control's action_spec: the control range where limited, else +-mjMAXVAL.
      lo.push_back(limited ? m->actuator_ctrlrange[2 * i] : -mjMAXVAL);
      hi.push_back(limited ? m->actuator_ctrlrange[2 * i + 1] : mjMAXVAL);
    }
    spec.action.push_back(ArraySpec::Box("action", DType::kFloat64, {static_cast<int>(m->nu)}, lo, hi));
    return spec;
  }

  DmcEnv(const Config& config, const std::shared_ptr<const mjModel>& model)
      : model_(model),
        flat_(config.Get<bool>("flat_observation")),
        from_pixels_(config.Get<bool>("from_pixels")),
        pixels_only_(config.Get<bool>("pixels_only")),
        frame_stack_(FrameStack(config)) {
    const double timestep = model->opt.timestep;
    n_sub_steps_ = SubSteps(config, timestep);
    const double time_limit = config.Get<double>("time_limit");
    if (!(time_limit > 0))
      throw std::invalid_argument("time_limit must be > 0 (seconds), got " + std::to_string(time_limit));
    step_limit_ = std::isinf(time_limit) ? INFINITY : time_limit / (timestep * n_sub_steps_);
    const std::string render_mode = config.Get<std::string>("render_mode");
    if (render_mode != "" && render_mode != "rgb_array") {
      throw std::invalid_argument("render_mode must be None or 'rgb_array', got '" + render_mode + "'");
    }
    render_enabled_ = render_mode == "rgb_array";
    if (from_pixels_) std::tie(height_, width_, std::ignore) = PixelKwargs(config);
    std::tie(render_height_, render_width_) = RenderSize(config);
    if (from_pixels_ || render_enabled_) {
      const int64_t camera_id = config.Get<int64_t>("camera_id");
      if (camera_id < -1 || camera_id >= model->ncam) {
        throw std::invalid_argument("camera_id must be -1 (the free camera) or a camera of the model (0.." +
                                    std::to_string(model->ncam - 1) + "), got " + std::to_string(camera_id));
      }
      camera_id_ = static_cast<int>(camera_id);
      if (from_pixels_) CheckFitsOffscreen(model.get(), height_, width_, "height x width");
      if (render_enabled_)
        CheckFitsOffscreen(model.get(), render_height_, render_width_, "render_height x render_width");
      render::CheckGlAvailable();  // no GL: the error comes at make, naming what to install
      if (from_pixels_ && frame_stack_ > 1) {
        pixel_history_.assign(static_cast<std::size_t>(height_) * width_ * 3 * frame_stack_, 0);
      }
    }
    const MjApi& mj = Mj();
    m_ = mj.copyModel(nullptr, model.get());
    if (!m_) throw std::runtime_error("MuJoCo could not copy the model");
    data_ = mj.makeData(m_);
    if (!data_) {
      mj.deleteModel(m_);
      m_ = nullptr;
      throw std::runtime_error("MuJoCo could not allocate mjData");
    }
  }

  static int FrameStack(const Config& config) {
    const int64_t k = config.Get<int64_t>("frame_stack");
    if (k < 1 || k > 64) throw std::invalid_argument("frame_stack must be in 1..64, got " + std::to_string(k));
    return static_cast<int>(k);
  }

  // The render() frame's (height, width): render_height / render_width, 0 meaning the from_pixels
  // frame's side with from_pixels and physics.render's default (240 x 320) without.
  static std::pair<int, int> RenderSize(const Config& config) {
    const bool pixels = config.Get<bool>("from_pixels");
    const auto side = [&](const char* key, const char* pixel_key, int fallback) {
      const int64_t v = config.Get<int64_t>(key);
      if (v < 0 || v > 8192) {
        throw std::invalid_argument(std::string(key) + " must be in [0, 8192] (0: the from_pixels " + pixel_key +
                                    ", else " + std::to_string(fallback) + "), got " + std::to_string(v));
      }
      if (v > 0) return static_cast<int>(v);
      if (!pixels) return fallback;
      // PixelKwargs refuses a from_pixels side out of [1, 8192]; until then keep it in range
      return static_cast<int>(std::clamp<int64_t>(config.Get<int64_t>(pixel_key), 1, 8192));
    };
    return {side("render_height", "height", 240), side("render_width", "width", 320)};
  }

  // dm_control's physics.render refuses frames larger than the model's offscreen buffer.
  static void CheckFitsOffscreen(const mjModel* m, int height, int width, const char* what) {
    if (width > m->vis.global.offwidth || height > m->vis.global.offheight) {
      throw std::invalid_argument(std::string(what) + " " + std::to_string(height) + " x " + std::to_string(width) +
                                  " is larger than the model's offscreen buffer " +
                                  std::to_string(m->vis.global.offheight) + " x " +
                                  std::to_string(m->vis.global.offwidth) + " (dm_control refuses it too)");
    }
  }

  static std::tuple<int, int, int> PixelKwargs(const Config& config) {
    const int64_t height = config.Get<int64_t>("height"), width = config.Get<int64_t>("width");
    if (height < 1 || width < 1 || height > 8192 || width > 8192) {
      throw std::invalid_argument("from_pixels needs 1 <= height, width <= 8192, got " + std::to_string(height) +
                                  " x " + std::to_string(width));
    }
    return {static_cast<int>(height), static_cast<int>(width), static_cast<int>(config.Get<int64_t>("camera_id"))};
  }

  // The observation of the current state: the task's entries, then with from_pixels the frame
  // (dm_control's pixels.Wrapper: physics.render(height, width, camera_id) after the step).
  void Observe(const Output& out, bool reset) {
    std::size_t pixels_at = 0;
    if (!from_pixels_ || !pixels_only_) {
      ObsWriter w(out, flat_);
      WriteObservation(w);
      pixels_at = w.Arrays();
      if (frame_stack_ > 1) {
        // The task wrote its newest values at the start of each (k times larger) row: keep them
        // in the history (all k slots after a reset) and write the history over the row.
        if (state_history_.empty()) state_history_.resize(pixels_at);  // the first reset
        for (std::size_t a = 0; a < pixels_at; ++a) {
          const std::size_t n = w.Size(a);
          std::vector<double>& h = state_history_[a];
          if (h.size() != n * frame_stack_) h.assign(n * frame_stack_, 0.0);
          double* row = out.Obs<double>(a);
          if (reset) {
            for (int f = 0; f < frame_stack_; ++f) std::copy(row, row + n, h.begin() + f * n);
          } else {
            std::copy(h.begin() + n, h.end(), h.begin());
            std::copy(row, row + n, h.end() - n);
          }
          std::copy(h.begin(), h.end(), row);
        }
      }
    }
    if (from_pixels_) {
      // GL resources are shared by the envs of one compiled model (the copies differ only in
      // what is not uploaded: positions, sizes, colours).
      uint8_t* rgb = out.Obs<uint8_t>(pixels_at);
      if (frame_stack_ == 1) {
        render::RenderPhysics(m_, data_, camera_id_, width_, height_, rgb, model_.get(), upload_hfields_);
        return;
      }
      const std::size_t frame = static_cast<std::size_t>(height_) * width_ * 3;
      if (reset) {
        render::RenderPhysics(m_, data_, camera_id_, width_, height_, pixel_history_.data(), model_.get(),
                              upload_hfields_);
        for (int f = 1; f < frame_stack_; ++f) {
          std::copy(pixel_history_.begin(), pixel_history_.begin() + frame, pixel_history_.begin() + f * frame);
        }
      } else {
        std::copy(pixel_history_.begin() + frame, pixel_history_.end(), pixel_history_.begin());
        render::RenderPhysics(m_, data_, camera_id_, width_, height_,
                              pixel_history_.data() + (frame_stack_ - 1) * frame, model_.get(), upload_hfields_);
      }
      // (H, W, 3k): each pixel's 3 channels of every frame, oldest first.
      const std::size_t pixels = static_cast<std::size_t>(height_) * width_;
      for (std::size_t p = 0; p < pixels; ++p) {
        for (int f = 0; f < frame_stack_; ++f) {
          const uint8_t* src = pixel_history_.data() + f * frame + 3 * p;
          uint8_t* dst = rgb + (p * frame_stack_ + f) * 3;
          dst[0] = src[0];
          dst[1] = src[1];
          dst[2] = src[2];
        }
      }
    }
  }

  // dm_control's physics steps per control step: n_sub_steps, or control_timestep / timestep
  // (control.compute_n_steps), else frame_skip.
  static int SubSteps(const Config& config, double timestep) {
    const int64_t n = config.Get<int64_t>("n_sub_steps");
    const double control_timestep = config.Get<double>("control_timestep");
    if (n != 0 && control_timestep != 0)
      throw std::invalid_argument("Both n_sub_steps and control_timestep were supplied.");
    if (n < 0) throw std::invalid_argument("n_sub_steps must be >= 1, got " + std::to_string(n));
    if (n > 0) return static_cast<int>(n);
    if (control_timestep != 0) {
      if (control_timestep < timestep) {
        throw std::invalid_argument("control_timestep (" + std::to_string(control_timestep) +
                                    ") cannot be smaller than the physics timestep (" + std::to_string(timestep) + ")");
      }
      const double ratio = control_timestep / timestep;
      if (std::abs(ratio - std::round(ratio)) > 1e-8) {
        throw std::invalid_argument("control_timestep must be an integer multiple of the physics timestep (" +
                                    std::to_string(timestep) + ")");
      }
      return static_cast<int>(std::round(ratio));
    }
    const int64_t skip = config.Get<int64_t>("frame_skip");
    if (skip < 1) throw std::invalid_argument("frame_skip must be >= 1, got " + std::to_string(skip));
    return static_cast<int>(skip);
  }

  // The task: initialize_episode (inside dm_control's reset_context), get_observation,
  // get_reward, get_termination (true: the episode ends with discount 0).
  virtual void InitializeEpisode() = 0;
  virtual void WriteObservation(ObsWriter& w) const = 0;
  virtual double Reward() const = 0;
  virtual bool Terminated() const { return false; }
  virtual void BeforeStep(const double* action) { std::copy(action, action + m_->nu, data_->ctrl); }
  virtual void AfterStep() {}

  // Puts `model` (owned, compiled by the caller) in place of the env's model, with fresh data.
  void ReplaceModel(mjModel* model) {
    const MjApi& mj = Mj();
    mjData* data = mj.makeData(model);
    if (!data) {
      mj.deleteModel(model);
      throw std::runtime_error("MuJoCo could not allocate mjData");
    }
    mj.deleteData(data_);
    mj.deleteModel(m_);
    m_ = model;
    data_ = data;
  }

  // Physics.step(nstep) with legacy_step (dm_control's default).
  void PhysicsStep(int nstep) {
    const MjApi& mj = Mj();
    if (m_->opt.integrator != mjINT_RK4) {
      mj.step2(m_, data_);
      for (int i = 1; i < nstep; ++i) mj.step(m_, data_);
    } else {
      for (int i = 0; i < nstep; ++i) mj.step(m_, data_);
    }
    mj.step1(m_, data_);
  }

  // Physics.after_reset: mj_forward with actuation disabled.
  void AfterReset() {
    const int flags = m_->opt.disableflags;
    m_->opt.disableflags = flags | mjDSBL_ACTUATION;
    Mj().forward(m_, data_);
    m_->opt.disableflags = flags;
  }

  // randomizers.randomize_limited_and_rotational_joints(physics, random).
  void RandomizeLimitedAndRotationalJoints() {
    for (int j = 0; j < m_->njnt; ++j) {
      const int type = m_->jnt_type[j];
      const bool limited = m_->jnt_limited[j] != 0;
      const double lo = m_->jnt_range[2 * j], hi = m_->jnt_range[2 * j + 1];
      double* q = data_->qpos + m_->jnt_qposadr[j];
      if (limited) {
        if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
          q[0] = random_.Uniform(lo, hi);
        } else if (type == mjJNT_BALL) {
          double axis[3];
          for (double& a : axis) a = random_.Normal();
          const double norm = Norm(axis, 3);
          for (double& a : axis) a /= norm;
          const double angle = random_.Uniform() * hi;
          Mj().axisAngle2Quat(q, axis, angle);
        }
      } else if (type == mjJNT_HINGE) {
        q[0] = random_.Uniform(-M_PI, M_PI);
      } else if (type == mjJNT_BALL) {
        double quat[4];
        for (double& a : quat) a = random_.Normal();
        const double norm = Norm(quat, 4);
        for (int i = 0; i < 4; ++i) q[i] = quat[i] / norm;
      } else if (type == mjJNT_FREE) {
        double quat[4];
        for (double& a : quat) a = random_.Uniform();
        const double norm = Norm(quat, 4);
        for (int i = 0; i < 4; ++i) q[3 + i] = quat[i] / norm;
      }
    }
  }

  // Named views (dm_control's physics.named.*), resolved once at construction.
  int BodyId(const char* name) const { return Id(m_, mjOBJ_BODY, name); }
  int JointQpos(const char* name) const { return m_->jnt_qposadr[Id(m_, mjOBJ_JOINT, name)]; }
  int JointDof(const char* name) const { return m_->jnt_dofadr[Id(m_, mjOBJ_JOINT, name)]; }
  int SensorAdr(const char* name) const { return m_->sensor_adr[Id(m_, mjOBJ_SENSOR, name)]; }
  int GeomId(const char* name) const { return Id(m_, mjOBJ_GEOM, name); }
  int SiteId(const char* name) const { return Id(m_, mjOBJ_SITE, name); }
  // xmat entries: xx xy xz / yx yy yz / zx zy zz.
  double Xmat(int body, int entry) const { return data_->xmat[9 * body + entry]; }
  static constexpr int kXX = 0, kXZ = 2, kZZ = 8;

  std::shared_ptr<const mjModel> model_;  // the compiled original (kept for the GL resources' key)
  mjModel* m_ = nullptr;
  mjData* data_ = nullptr;
  LegacyRandomState random_;
  bool flat_, from_pixels_, pixels_only_;
  int frame_stack_;
  std::vector<std::vector<double>> state_history_;  // frame_stack > 1: per state array, k x size
  std::vector<uint8_t> pixel_history_;              // frame_stack > 1: k frames, oldest first
  int height_ = 0, width_ = 0, camera_id_ = -1;
  bool render_enabled_ = false;
  bool upload_hfields_ = false;  // a task that rewrites its height fields each episode (escape)
  int render_height_ = 0, render_width_ = 0;
  int n_sub_steps_ = 1;
  double step_limit_ = INFINITY;
  int64_t step_count_ = 0;
};

// The task_name kwarg, checked against a domain's tasks.
inline std::string TaskName(const Config& config, const std::vector<std::string>& tasks, const char* domain) {
  const std::string name = config.Get<std::string>("task_name");
  if (std::find(tasks.begin(), tasks.end(), name) == tasks.end()) {
    std::string all;
    for (const auto& t : tasks) all += (all.empty() ? "" : ", ") + t;
    throw std::invalid_argument(std::string("dm_control's ") + domain + " has no task '" + name + "' (" + all + ")");
  }
  return name;
}

}  // namespace envpool::mujoco::dmc
