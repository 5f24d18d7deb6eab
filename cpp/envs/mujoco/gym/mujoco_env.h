// Base class of the MuJoCo tasks (gymnasium.envs.mujoco.MujocoEnv, which gymnasium's v4 and
// v5 classes share).
//
// Each env owns one mjData; the compiled mjModel is shared read-only by all envs using the
// same model file (see loader.h). GetState/SetState use the layout of state.h; SetState also
// accepts just concat(qpos, qvel), which is what gymnasium's env.set_state(qpos, qvel) sets (the
// rest is left as it is), followed by mj_forward as in gymnasium.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/env.h"
#include "envs/mujoco/gym/mujoco_renderer.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/state.h"

namespace envpool::mujoco::gym {

// numpy's sum of n floating values f(0) .. f(n-1) (pairwise summation, as np.sum and
// ndarray.sum do for contiguous arrays), so that costs round exactly as gymnasium's.
template <typename T, typename F>
T NumpySum(std::size_t n, const F& f, std::size_t begin = 0) {
  if (n < 8) {
    T res = -0.0;
    for (std::size_t i = 0; i < n; ++i) res += f(begin + i);
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = f(begin + j);
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += f(begin + i + j);
    }
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += f(begin + i);
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return NumpySum<T>(n2, f, begin) + NumpySum<T>(n - n2, f, begin + n2);
}

// gymnasium's `weight * np.sum(np.square(action))` for a float32 action: float32 throughout
// (numpy keeps the float32 dtype when multiplying by a Python float).
inline float ControlCost(const float* action, int n, double weight) {
  const float s =
      NumpySum<float>(static_cast<std::size_t>(n), [action](std::size_t i) { return action[i] * action[i]; });
  return static_cast<float>(weight) * s;
}

// sum of squares of n doubles (np.sum(np.square(x))).
inline double SquaredSum(const double* x, std::size_t n) {
  return NumpySum<double>(n, [x](std::size_t i) { return x[i] * x[i]; });
}

inline double Clip(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

// np.linalg.norm of a short vector: sqrt(x.dot(x)), where numpy's dot goes to BLAS. OpenBLAS'
// ddot adds the products of fewer than 16 elements one by one, each product rounded: measured
// bit for bit against numpy 2.4 (scipy-openblas 0.3.31) on x86-64 for 2..7 elements (a BLAS
// built to fuse the multiply-adds would differ in the last bit; tests/frontends/test_seeding.py checks).
inline double Norm(const double* x, int n) {
  double s = x[0] * x[0];
  for (int i = 1; i < n; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

// A numpy float64 scalar's x ** 2, which numpy computes with libm's pow (not always x * x).
inline double NumpyPow2(double x) {
  volatile double two = 2.0;  // keeps the compiler from turning pow(x, 2) into x * x
  return std::pow(x, two);
}

// A [low, high] pair given as a list kwarg (gymnasium's tuple[float, float] ranges).
inline std::pair<double, double> Range(const Config& config, const std::string& key) {
  const auto v = config.Get<std::vector<double>>(key);
  if (v.size() != 2)
    throw std::invalid_argument(key + " must have 2 values (low, high), got " + std::to_string(v.size()));
  return {v[0], v[1]};
}

// Which of gymnasium's classes a task follows: its v5 class or its v4 one (gymnasium 1.x still
// ships the *_v4.py classes, with their own observations, rewards, info and kwargs). Each task
// is one class template over it; the v3 / v2 ids are v4 configurations (registration.cc).
enum class Version { kV4, kV5 };

// The healthy reward: v5 pays it only while healthy; v4 also pays it on the unhealthy step when
// terminate_when_unhealthy is set (`float(is_healthy or terminate_when_unhealthy) * reward`).
inline double HealthyReward(Version v, bool healthy, bool terminate_when_unhealthy, double reward) {
  const bool paid = v == Version::kV4 ? healthy || terminate_when_unhealthy : healthy;
  return paid ? reward : 0.0;
}

class MujocoEnv : public Env {
 public:
  ~MujocoEnv() override {
    if (data_) Mj().deleteData(data_);
  }
  MujocoEnv(const MujocoEnv&) = delete;
  MujocoEnv& operator=(const MujocoEnv&) = delete;

  std::vector<double> GetState() const override { return ReadState(m_, data_); }

  // gymnasium's set_state(qpos, qvel) or the full layout, then mj_forward as in gymnasium.
  void SetState(const std::vector<double>& state) override { SetMujocoEnvState(m_, data_, state); }

  // gymnasium's env.render() with render_mode="rgb_array" (gym/mujoco_renderer.h).
  void Render(uint8_t* rgb) const override { renderer_.Draw(m_, data_, rgb); }

 protected:
  explicit MujocoEnv(const Config& config)
      : model_(LoadModel(config.Get<std::string>("xml_file"))),
        m_(model_.get()),
        frame_skip_(static_cast<int>(config.Get<int64_t>("frame_skip"))),
        renderer_(config, m_) {
    if (frame_skip_ < 1) throw std::invalid_argument("frame_skip must be >= 1");
    data_ = Mj().makeData(m_);
    if (!data_) throw std::runtime_error("MuJoCo could not allocate mjData");
    // gymnasium's init_qpos / init_qvel: the state of a fresh MjData.
    init_qpos_.assign(data_->qpos, data_->qpos + m_->nq);
    init_qvel_.assign(data_->qvel, data_->qvel + m_->nv);
  }

  // The common kwargs of every MuJoCo task; `camera` is the task's DEFAULT_CAMERA_CONFIG
  // ("key=value" strings, see gym/mujoco_renderer.h).
  static Config BaseConfig(const std::string& xml_file, int64_t frame_skip, std::vector<std::string> camera = {}) {
    Config c{{"xml_file", xml_file}, {"frame_skip", frame_skip}};
    AddRenderConfig(c, std::move(camera));
    return c;
  }

  // The model named by the config (compiled once per process, see loader.h).
  static std::shared_ptr<const mjModel> SpecModel(const Config& config) {
    return LoadModel(config.Get<std::string>("xml_file"));
  }

  // obs: float64 Box(-inf, inf, (obs_size,)); action: float32 Box from actuator_ctrlrange;
  // info: one float64 scalar per name, then `extra` arrays; frames of the config's size.
  static EnvSpec MakeSpec(const Config& config, const mjModel* m, int obs_size, const std::vector<std::string>& info,
                          std::vector<ArraySpec> extra = {}) {
    std::vector<double> lo, hi;
    for (int i = 0; i < m->nu; ++i) {
      lo.push_back(static_cast<float>(m->actuator_ctrlrange[2 * i]));
      hi.push_back(static_cast<float>(m->actuator_ctrlrange[2 * i + 1]));
    }
    EnvSpec spec;
    spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat64, {obs_size}, {-INFINITY}, {INFINITY}));
    spec.action.push_back(ArraySpec::Box("action", DType::kFloat32, {static_cast<int>(m->nu)}, lo, hi));
    for (const auto& name : info) spec.info.push_back(ArraySpec::Box(name, DType::kFloat64, {}, {}, {}));
    for (auto& a : extra) spec.info.push_back(std::move(a));
    std::tie(spec.render_height, spec.render_width) = FrameSize(config);
    // MujocoEnv's metadata["render_fps"]: int(np.round(1 / dt)), dt = the model's timestep times
    // frame_skip (round half to even, as nearbyint in the default rounding mode); a frame_skip
    // the env refuses, or a rate beyond int, declares none.
    const double fps = 1.0 / (m->opt.timestep * static_cast<double>(config.Get<int64_t>("frame_skip")));
    if (fps > 0 && fps < static_cast<double>(std::numeric_limits<int>::max())) {
      spec.render_fps = static_cast<int>(std::nearbyint(fps));
    }
    return spec;
  }

  double Dt() const { return m_->opt.timestep * frame_skip_; }

  // gymnasium's do_simulation: ctrl = action, frame_skip mj_steps, then mj_rnePostConstraint
  // (which fills cacc, cfrc_int and cfrc_ext).
  void DoSimulation(const float* action) {
    for (int i = 0; i < m_->nu; ++i) data_->ctrl[i] = static_cast<double>(action[i]);
    const MjApi& mj = Mj();
    for (int k = 0; k < frame_skip_; ++k) mj.step(m_, data_);
    mj.rnePostConstraint(m_, data_);
  }

  // mj_resetData; the caller then writes qpos / qvel and calls Forward() (gymnasium's reset:
  // mj_resetData, reset_model's set_state).
  void ResetData() { Mj().resetData(m_, data_); }
  void Forward() { Mj().forward(m_, data_); }

  // qpos = init_qpos + U(-scale, scale) (or + scale * N(0, 1) for qvel as some tasks do).
  void UniformNoise(Rng& rng, double* dst, const std::vector<double>& base, double low, double high) const {
    for (std::size_t i = 0; i < base.size(); ++i) dst[i] = base[i] + rng.Uniform(low, high);
  }
  void NormalNoise(Rng& rng, double* dst, const std::vector<double>& base, double scale) const {
    for (std::size_t i = 0; i < base.size(); ++i) dst[i] = base[i] + scale * rng.Normal();
  }

  // Writes the float64 scalars of the info arrays, in declaration order.
  static void WriteInfo(Output& out, std::initializer_list<double> values) {
    std::size_t i = 0;
    for (double v : values) *out.Info<double>(i++) = v;
  }

  std::shared_ptr<const mjModel> model_;
  const mjModel* m_;
  mjData* data_ = nullptr;
  int frame_skip_;
  std::vector<double> init_qpos_, init_qvel_;
  // Its camera is set up at the first frame (gymnasium's viewer is made at the first render()).
  mutable GymRenderer renderer_;
};

}  // namespace envpool::mujoco::gym
