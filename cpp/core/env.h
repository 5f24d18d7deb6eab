// The interface an environment implements once.
//
// An env sees one action row and one output row at a time; the pool owns batching,
// threads, time limits, autoreset and episode counters. Outputs go straight into the
// pool's batch buffers through `Output`, so stepping allocates nothing.
//
// A new environment is one header in cpp/envs/ defining a class with
//   static Config DefaultConfig();                 // constructor kwargs and their defaults
//   static EnvSpec Spec(const Config& config);     // obs / action / info arrays
//   explicit MyEnv(const Config& config);
//   void Reset(Rng& rng, Output& out) override;
//   void Step(const Action& action, Rng& rng, Output& out) override;
// plus two lines in its family's cpp/envs/<family>/registration.cc: its #include and its Task<> entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/spec.h"

namespace envpool {

// One env's action row, in the dtypes of EnvSpec::action (discrete actions are int64).
class Action {
 public:
  Action(const void* const* fields) : fields_(fields) {}
  template <typename T>
  const T* Get(std::size_t field = 0) const {
    return static_cast<const T*>(fields_[field]);
  }

 private:
  const void* const* fields_;
};

// One env's output row. The env writes its observation(s), reward, terminated and any info
// arrays it declared; it may set truncated (the pool also truncates at max_episode_steps); the
// pool fills env_id and elapsed_step.
class Output {
 public:
  Output(void* const* obs, void* const* info, double* reward, bool* terminated, bool* truncated)
      : obs_(obs), info_(info), reward_(reward), terminated_(terminated), truncated_(truncated) {}

  template <typename T>
  T* Obs(std::size_t field = 0) const {
    return static_cast<T*>(obs_[field]);
  }
  template <typename T>
  T* Info(std::size_t field) const {
    return static_cast<T*>(info_[field]);
  }
  double& reward() const { return *reward_; }
  bool& terminated() const { return *terminated_; }
  bool& truncated() const { return *truncated_; }

 private:
  void* const* obs_;
  void* const* info_;
  double* reward_;
  bool* terminated_;
  bool* truncated_;
};

class Env {
 public:
  virtual ~Env() = default;

  // Start a new episode: draw the initial state from `rng`, write the first observation
  // (and info arrays). Never write reward, terminated or truncated: the pool sets them (0 /
  // false on a reset row); with same-step autoreset the reset shares the row of the step that
  // ended the episode, whose reward and flags it must keep.
  virtual void Reset(Rng& rng, Output& out) = 0;

  // Advance one step with an action already validated against the spec's bounds
  // (discrete actions are in range, continuous ones are finite but may lie outside
  // the box: envs clip as gymnasium does). Write obs, reward and terminated (and truncated if
  // the env itself cuts episodes short).
  virtual void Step(const Action& action, Rng& rng, Output& out) = 0;

  // The seed the pool has just given this env's `rng` (seed + env_id at make, the seeds of
  // reset(seed=...)), before the Reset that follows. Envs that draw everything from `rng` need
  // nothing here; an env wrapping a simulator with its own generator (the ALE) seeds it from
  // this, so trajectories follow the same seeds as that simulator's own vector env.
  virtual void Seed(uint64_t /*seed*/) {}

  // Draws the current state as an RGB image into `rgb` (render_height x render_width x 3
  // bytes, row-major, as EnvSpec says), like gymnasium's render_mode="rgb_array". Called on
  // an env that is not being stepped.
  virtual void Render(uint8_t* /*rgb*/) const { throw std::logic_error("this environment does not render"); }

  // The env's full internal state as doubles (opt-in): lets tests and users put an env in
  // an exact state, e.g. to compare with a reference implementation step by step.
  virtual std::vector<double> GetState() const { throw std::logic_error("this environment does not expose its state"); }
  virtual void SetState(const std::vector<double>& /*state*/) {
    throw std::logic_error("this environment does not expose its state");
  }
};

// Throws a std::invalid_argument naming the key when a state vector has the wrong size.
inline void CheckStateSize(const std::vector<double>& state, std::size_t expected) {
  if (state.size() != expected) {
    throw std::invalid_argument("state must have " + std::to_string(expected) + " values, got " +
                                std::to_string(state.size()));
  }
}

}  // namespace envpool
