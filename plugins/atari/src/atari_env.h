// One Atari 2600 game (the ALE emulator) with the standard preprocessing, as an envpool env.
//
// The step, reset and seeding rules are ale-py's AtariVectorEnv's (ale-py 0.12.1,
// src/ale/vector/preprocessed_env.cpp), so that the same seed gives the same trajectory; the
// option names and defaults are the reference EnvPool's. docs/atari.md lists every option, the
// seeding and what differs from the reference EnvPool and from gymnasium's AtariPreprocessing.
//
// Per step: the action is repeated `frame_skip` frames; the last two frames are max-pooled
// (gray or RGB), shrunk to img_height x img_width by pixel-area averaging (equal to OpenCV's
// INTER_AREA) and pushed onto a stack of the last `stack_num` frames.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ale_interface.hpp"
#include "area_resize.h"
#include "core/plugin.h"
#include "gray_lookup.h"
#include "rom.h"

namespace envpool_atari {

// The env's kwargs, read and checked once per env (DefaultConfig lists them with defaults).
struct AtariOptions {
  std::string task;  // the ROM id, "pong"
  int stack_num, frame_skip, noop_max, img_height, img_width, mode, difficulty, max_num_frames_per_episode;
  bool episodic_life, terminal_on_life_loss, zero_discount_on_life_loss, reward_clip, use_fire_reset, gray_scale,
      use_inter_area_resize, maxpool, full_action_space;
  float repeat_action_probability;
  bool zero_stack_padding;  // frame_stack_padding == "zero" (else "reset": copies of the first frame)

  static AtariOptions Read(const envpool::Config& config);
  // Every option as "name=value" lines, in a fixed order: what a state records of the options
  // it was taken under (set_state compares it with the env's own).
  std::string Describe() const;
};

class AtariEnv : public envpool::Env {
 public:
  static envpool::Config DefaultConfig();
  static envpool::EnvSpec Spec(const envpool::Config& config);

  explicit AtariEnv(const envpool::Config& config);

  void Seed(uint64_t seed) override;
  void Reset(envpool::Rng& rng, envpool::Output& out) override;
  void Step(const envpool::Action& action, envpool::Rng& rng, envpool::Output& out) override;
  void Render(uint8_t* rgb) const override;
  // The game and options it was taken under, the emulator's state (with its RNG: sticky
  // actions replay) and the preprocessing state (frame buffers, counters, the no-op RNG), one
  // byte per value (state_bytes.h). SetState takes only what a GetState under the same state
  // key (state_key.h: this user's processes on this machine, or ENVPOOL_ATARI_STATE_KEY) returned
  // for the same game and options, and checks all of it before it changes anything: a refused
  // state (std::invalid_argument naming what differs) leaves the env as it was.
  std::vector<double> GetState() const override;
  void SetState(const std::vector<double>& state) override;

 private:
  void LoadRom();
  void RequireRom(const char* what) const;  // throws std::logic_error before the first reset
  void CaptureScreen(uint8_t* dst) const;
  void PushFrame(bool fill_stack);
  // The observation stack and the info fields (not the reward and flags).
  void Write(envpool::Output& out, int unclipped_reward) const;
  bool EpisodeOver() const;

  AtariOptions opt_;
  std::shared_ptr<const RomImage> rom_;  // read and checked at make; every ROM load reads this copy
  std::unique_ptr<ale::ALEInterface> ale_;
  ale::ActionVect action_set_;
  bool fire_on_reset_ = false;
  bool rom_loaded_ = false;  // by the first reset (or a set_state before it)

  int raw_h_ = 0, raw_w_ = 0, channels_ = 1;
  std::size_t raw_size_ = 0, frame_size_ = 0;
  AreaResizer resize_;
  GrayLookup gray_;              // the palette's gray values (built when the ROM is loaded)
  std::vector<uint8_t> raw_[2];  // the last two frames of a step (raw_[0] the last)
  std::vector<uint8_t> stack_;   // stack_num frames, a ring starting at stack_pos_
  int stack_pos_ = 0;

  std::mt19937 noop_rng_;  // the reset no-ops, as AtariVectorEnv draws them
  std::uniform_int_distribution<int> noop_dist_;
  std::optional<uint32_t> pending_seed_;

  int elapsed_frames_ = 0;  // frames since the game's reset (no-ops excluded)
  int lives_ = 0;
  bool game_over_ = false;
  bool life_lost_ = false;  // in the last step (AtariVectorEnv's rule: to a count above 0)
  double discount_ = 1.0;   // info "discount" with zero_discount_on_life_loss
};

}  // namespace envpool_atari
