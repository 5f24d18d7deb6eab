// gymnasium's MujocoRenderer for render_mode="rgb_array" (gymnasium/envs/mujoco/
// mujoco_rendering.py, 1.x): the kwargs MujocoEnv takes for it, and its camera.
//
//  * width, height (480): the frame; the offscreen buffer is the model's grown to them (as
//    MujocoEnv grows model.vis.global_.offwidth/offheight).
//  * camera_id (-1) / camera_name (""): a fixed camera of the model, by number or name; neither
//    (or -1): the free camera. gymnasium's default looks up a camera named "track" and then
//    uses the free camera anyway, so the free camera is every task's default view. Unlike
//    gymnasium, a camera_name the model lacks is an error (gymnasium silently shows the free
//    camera).
//  * default_camera_config: gymnasium's dict of mjvCamera attributes (type, fixedcamid,
//    trackbodyid, lookat, distance, azimuth, elevation, orthographic), given in Python as the
//    dict and held here as "key=value" strings (envpool.tasks.pack_env_kwargs converts dicts);
//    each task's default is its DEFAULT_CAMERA_CONFIG.
//  * max_geom (1000): the scene's capacity; visual_options: {mjtVisFlag: bool} as "flag=0/1".
//
// The camera is set up at the first frame of the env, as gymnasium creates its viewer at the
// first render(): mjv_defaultCamera, then the free camera looking at the median of the geoms'
// positions from model.stat.extent away (OffScreenViewer._init_camera), then
// default_camera_config. Every frame then sets the camera's type and fixedcamid from camera_id,
// as OffScreenViewer.render(camera_id=...) does (so a "type" in default_camera_config is
// overridden, as in gymnasium).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/render/renderer.h"

namespace envpool::mujoco::gym {

// The largest frame side accepted: MuJoCo exits the process when it cannot make the offscreen
// buffer, so sizes beyond what GL implementations commonly allow are refused up front.
inline constexpr int64_t kMaxFrameSide = 8192;

// Adds the render kwargs, with `camera` as default_camera_config (gymnasium's
// DEFAULT_CAMERA_CONFIG of the task, as "key=value" strings).
inline void AddRenderConfig(Config& c, std::vector<std::string> camera) {
  c.Set("render_mode", std::string());  // set by make(render_mode=...): "" or "rgb_array"
  c.Set("width", int64_t{480});
  c.Set("height", int64_t{480});
  c.Set("camera_id", int64_t{-1});
  c.Set("camera_name", std::string());
  c.Set("default_camera_config", std::move(camera));
  c.Set("max_geom", int64_t{1000});
  c.Set("visual_options", std::vector<std::string>{});
}

// The frame size of a config: (height, width); throws std::invalid_argument when out of range.
inline std::pair<int, int> FrameSize(const Config& config) {
  const auto side = [&](const char* key) {
    const int64_t v = config.Get<int64_t>(key);
    if (v < 1 || v > kMaxFrameSide) {
      throw std::invalid_argument(std::string(key) + " must be in [1, " + std::to_string(kMaxFrameSide) + "], got " +
                                  std::to_string(v));
    }
    return static_cast<int>(v);
  };
  return {side("height"), side("width")};
}

class GymRenderer {
 public:
  // Checks every render kwarg (as gymnasium's constructor does, whether or not the env renders);
  // with render_mode="rgb_array" also that a GL context can be made (render::CheckGlAvailable).
  GymRenderer(const Config& config, const mjModel* m) {
    const std::string mode = config.Get<std::string>("render_mode");
    if (mode != "" && mode != "rgb_array") {
      throw std::invalid_argument("render_mode must be None or 'rgb_array', got '" + mode + "'");
    }
    enabled_ = mode == "rgb_array";
    const auto [height, width] = FrameSize(config);
    frame_.width = width;
    frame_.height = height;
    frame_.offwidth = std::max(m->vis.global.offwidth, width);
    frame_.offheight = std::max(m->vis.global.offheight, height);
    const int64_t max_geom = config.Get<int64_t>("max_geom");
    if (max_geom < 1 || max_geom > (1 << 24)) {
      throw std::invalid_argument("max_geom must be in [1, 16777216], got " + std::to_string(max_geom));
    }
    frame_.maxgeom = static_cast<int>(max_geom);
    camera_id_ = CameraId(config, m);
    const MjApi& mj = Mj();
    mj.v_defaultOption(&opt_);
    for (const auto& [key, value] : Pairs(config, "visual_options")) {
      const double flag = Number(key, "visual_options", key);
      if (flag != std::floor(flag) || flag < 0 || flag >= static_cast<double>(mjNVISFLAG)) {
        throw std::invalid_argument("visual_options: " + key + " is not an mjtVisFlag (0.." +
                                    std::to_string(mjNVISFLAG - 1) + ")");
      }
      opt_.flags[static_cast<int>(flag)] = Number(value, "visual_options", key) != 0.0 ? 1 : 0;
    }
    camera_config_ = Pairs(config, "default_camera_config");
    mjvCamera probe;  // the keys and values are checked now, applied at the first frame
    ApplyCameraConfig(probe);
    if (enabled_) render::CheckGlAvailable();
  }

  bool enabled() const { return enabled_; }

  // The frame of `d` (gymnasium's env.render()), height x width x 3 bytes.
  void Draw(const mjModel* m, mjData* d, uint8_t* rgb) {
    if (!enabled_) throw std::logic_error("this env was made without render_mode='rgb_array'");
    if (!camera_ready_) {
      // OffScreenViewer._init_camera, then MujocoRenderer._set_cam_config.
      Mj().v_defaultCamera(&cam_);
      cam_.type = mjCAMERA_FREE;
      cam_.fixedcamid = -1;
      for (int i = 0; i < 3; ++i) cam_.lookat[i] = MedianGeomPosition(m, d, i);
      cam_.distance = m->stat.extent;
      ApplyCameraConfig(cam_);
      camera_ready_ = true;
    }
    cam_.type = camera_id_ == -1 ? mjCAMERA_FREE : mjCAMERA_FIXED;
    cam_.fixedcamid = camera_id_;
    render::DrawFrame(m, d, opt_, cam_, frame_, rgb);
  }

 private:
  using Pair = std::pair<std::string, std::string>;

  static std::vector<Pair> Pairs(const Config& config, const char* kwarg) {
    std::vector<Pair> out;
    for (const auto& item : config.Get<std::vector<std::string>>(kwarg)) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw std::invalid_argument(std::string(kwarg) + " entries are 'key=value' (from a dict), got '" + item + "'");
      }
      out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return out;
  }

  // A number as Python's repr wrote it (exact: strtod reads back the same double).
  static double Number(const std::string& text, const std::string& kwarg, const std::string& key) {
    const char* begin = text.c_str();
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin || *end != '\0') {
      throw std::invalid_argument(kwarg + "['" + key + "'] must be a number, got '" + text + "'");
    }
    return v;
  }

  static int Integer(const std::string& text, const std::string& key) {
    const double v = Number(text, "default_camera_config", key);
    if (v != static_cast<double>(static_cast<int>(v))) {
      throw std::invalid_argument("default_camera_config['" + key + "'] must be an integer, got '" + text + "'");
    }
    return static_cast<int>(v);
  }

  // gymnasium's setattr(cam, key, value) for each entry, in order.
  void ApplyCameraConfig(mjvCamera& cam) const {
    for (const auto& [key, value] : camera_config_) {
      if (key == "type") {
        cam.type = Integer(value, key);
      } else if (key == "fixedcamid") {
        cam.fixedcamid = Integer(value, key);
      } else if (key == "trackbodyid") {
        cam.trackbodyid = Integer(value, key);
      } else if (key == "orthographic") {
        cam.orthographic = Integer(value, key);
      } else if (key == "distance") {
        cam.distance = Number(value, "default_camera_config", key);
      } else if (key == "azimuth") {
        cam.azimuth = Number(value, "default_camera_config", key);
      } else if (key == "elevation") {
        cam.elevation = Number(value, "default_camera_config", key);
      } else if (key == "lookat") {
        std::vector<double> xyz;
        const char* p = value.c_str();
        for (;;) {
          char* end = nullptr;
          const double v = std::strtod(p, &end);
          if (end == p) break;
          xyz.push_back(v);
          p = end;
        }
        while (*p == ' ') ++p;
        if (xyz.size() != 3 || *p != '\0') {
          throw std::invalid_argument("default_camera_config['lookat'] must be 3 numbers, got '" + value + "'");
        }
        std::copy(xyz.begin(), xyz.end(), cam.lookat);
      } else {
        throw std::invalid_argument("default_camera_config: mjvCamera has no attribute '" + key +
                                    "' (type, fixedcamid, trackbodyid, lookat, distance, azimuth, elevation, "
                                    "orthographic)");
      }
    }
  }

  // gymnasium's camera_id / camera_name resolution (MujocoRenderer.__init__).
  static int CameraId(const Config& config, const mjModel* m) {
    const int64_t id = config.Get<int64_t>("camera_id");
    const std::string name = config.Get<std::string>("camera_name");
    if (id != -1 && !name.empty()) {
      throw std::invalid_argument("Both `camera_id` and `camera_name` cannot be specified at the same time.");
    }
    if (!name.empty()) {
      const int found = Mj().name2id(m, mjOBJ_CAMERA, name.c_str());
      if (found < 0) {
        std::string names;
        for (int i = 0; i < m->ncam; ++i) {
          names += std::string(names.empty() ? "" : ", ") + "'" + (m->names + m->name_camadr[i]) + "'";
        }
        throw std::invalid_argument("camera_name='" + name + "': the model has no such camera (its cameras: " +
                                    (names.empty() ? "none" : names) + ")");
      }
      return found;
    }
    if (id < -1 || id >= m->ncam) {
      throw std::invalid_argument("camera_id must be -1 (the free camera) or a camera of the model, 0.." +
                                  std::to_string(m->ncam - 1) + ", got " + std::to_string(id));
    }
    return static_cast<int>(id);
  }

  // np.median(data.geom_xpos[:, axis]): the middle value, or the mean of the two middle ones.
  double MedianGeomPosition(const mjModel* m, const mjData* d, int axis) {
    scratch_.resize(static_cast<std::size_t>(m->ngeom));
    for (int g = 0; g < m->ngeom; ++g) scratch_[static_cast<std::size_t>(g)] = d->geom_xpos[3 * g + axis];
    std::sort(scratch_.begin(), scratch_.end());
    const std::size_t n = scratch_.size();
    if (n == 0) return 0.0;
    return n % 2 ? scratch_[n / 2] : (scratch_[n / 2 - 1] + scratch_[n / 2]) / 2.0;
  }

  bool enabled_ = false;
  render::FrameSpec frame_;
  int camera_id_ = -1;
  mjvOption opt_;
  std::vector<Pair> camera_config_;
  mjvCamera cam_;
  bool camera_ready_ = false;
  std::vector<double> scratch_;
};

}  // namespace envpool::mujoco::gym
