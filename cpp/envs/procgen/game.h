// One Procgen game: a libenv instance made with num=1 and Procgen's own stepping threads off
// (num_threads=0: libenv_act then steps the game in the calling thread, one of the pool's), and
// the buffers it writes into.
//
// Why the frame is copied into the pool's row instead of written there: libenv_set_buffers may
// be called once per instance (Procgen fasserts that the game has not been reset yet: a second
// call exits the process), so the addresses it writes to are fixed for the instance's life,
// while the row an env's step lands in changes from batch to batch. The 12,288-byte copy is a
// small part of a step, which draws the frame with Qt.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/procgen/loader.h"
#include "envs/procgen/options.h"

namespace envpool::procgen {

inline constexpr int kRes = 64;                // Procgen's RES_W, RES_H
inline constexpr int kRenderRes = 512;         // Procgen's RENDER_RES (render_human's "rgb" info)
inline constexpr int kNumActions = 15;         // the 15 button combos of procgen/env.py's get_combos
inline constexpr int kMaxStateSize = 1 << 20;  // procgen/env.py's MAX_STATE_SIZE

// The fields of Procgen's Game::serialize that the env needs, read from the front of a state
// (the base class writes first; the layout of Procgen 0.10.7's game.cpp).
struct StatePrefix {
  int32_t timeout = 0;   // the game's step limit per level
  int32_t cur_time = 0;  // steps taken in the current level
};

class StateCursor {
 public:
  StateCursor(const char* data, std::size_t size) : data_(data), size_(size) {}
  int32_t Int() {
    int32_t v;
    Need(sizeof v);
    std::memcpy(&v, data_ + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  void Skip(std::size_t n) {
    Need(n);
    pos_ += n;
  }
  void SkipString() {
    const int32_t n = Int();
    if (n < 0) Bad();
    Skip(static_cast<std::size_t>(n));
  }

 private:
  void Need(std::size_t n) const {
    if (n > size_ - pos_) Bad();
  }
  [[noreturn]] static void Bad() {
    throw std::runtime_error("Procgen state of an unexpected layout (a procgen version other than 0.10.x?)");
  }
  const char* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

inline StatePrefix ReadStatePrefix(const char* data, std::size_t size) {
  StateCursor c(data, size);
  c.Int();                             // SERIALIZE_VERSION
  c.SkipString();                      // game_name
  c.Skip(4 * (9 + 3 + 5));             // options (9), coinrun_old's (3), grid_step, level seed range, game_type, game_n
  for (int rng = 0; rng < 2; ++rng) {  // level_seed_rand_gen, rand_gen: is_seeded, the mt19937 as text
    c.Int();
    c.SkipString();
  }
  c.Skip(4 * 4);  // reward, done, level_complete, action
  StatePrefix p;
  p.timeout = c.Int();
  c.Skip(4 * 8);  // current and previous level seed, episodes_remaining, episode_done, last reward
                  // timer and value, default_action, fixed_asset_seed
  p.cur_time = c.Int();
  return p;
}

class Game {
 public:
  // Makes the game; Procgen resets it and draws its first frame here (libenv_set_buffers).
  // `render`: also draw the 512 x 512 frame at every libenv_observe (Procgen's render_human).
  Game(const Options& o, uint32_t rand_seed, bool render) : api_(Procgen()) {
    AddString("env_name", o.game->name);
    AddInt("num_levels", o.num_levels);
    AddInt("start_level", o.start_level);
    AddInt("num_actions", kNumActions);
    AddBool("use_sequential_levels", o.use_sequential_levels);
    AddInt("debug_mode", 0);
    AddInt("rand_seed", static_cast<int32_t>(rand_seed));  // Procgen seeds an mt19937 with it: mod 2**32
    AddInt("num_threads", 0);
    AddBool("render_human", render);
    AddString("resource_root", api_.resource_root);
    AddBool("center_agent", o.center_agent);
    AddBool("use_generated_assets", o.use_generated_assets);
    AddBool("use_monochrome_assets", o.use_monochrome_assets);
    AddBool("restrict_themes", o.restrict_themes);
    AddBool("use_backgrounds", o.use_backgrounds);
    AddBool("paint_vel_info", o.paint_vel_info);
    AddInt("distribution_mode", ModeCode(o.mode));
    std::vector<LibenvOption> items;
    for (auto& opt : options_) {
      opt.option.data = opt.bytes.data();
      items.push_back(opt.option);
    }
    {
      // Making and closing games is rare (make, reset(seed=...)); one at a time, so that no two
      // threads are inside the library's set-up code together.
      std::lock_guard<std::mutex> lock(Mutex());
      handle_ = api_.make(1, LibenvOptions{items.data(), static_cast<int>(items.size())});
    }
    if (!handle_) throw std::runtime_error("libenv_make returned no game (" + api_.library_path + ")");
    try {
      BindBuffers(render);
    } catch (...) {
      Close();
      throw;
    }
  }
  ~Game() { Close(); }
  Game(const Game&) = delete;
  Game& operator=(const Game&) = delete;

  // One step (-1: Procgen's forced reset, Game::step's will_force_reset). Procgen resets the
  // game inside the step that ends a level, so the frame is then the next level's first.
  void Act(int32_t action) {
    action_ = action;
    api_.act(handle_);
  }
  // Draws the 512 x 512 frame (games made with render=true).
  void Observe() { api_.observe(handle_); }

  std::vector<char> Save() const {
    std::vector<char> buf(kMaxStateSize);
    const int n = api_.get_state(handle_, 0, buf.data(), kMaxStateSize);
    buf.resize(static_cast<std::size_t>(n));
    return buf;
  }
  // Only states Save() produced for a game of the same options: Procgen's loader trusts them.
  void Load(std::vector<char> state) { api_.set_state(handle_, 0, state.data(), static_cast<int>(state.size())); }

  const uint8_t* frame() const { return frame_; }
  const uint8_t* render_frame() const { return rgb_.data(); }
  float reward() const { return reward_; }
  bool first() const { return first_ != 0; }
  int32_t level_seed() const { return level_seed_; }
  int32_t prev_level_seed() const { return prev_level_seed_; }
  bool prev_level_complete() const { return prev_level_complete_ != 0; }

 private:
  struct OwnedOption {
    LibenvOption option;
    std::vector<char> bytes;  // kept for the life of the instance, as libenv.h asks
  };

  static std::mutex& Mutex() {
    static std::mutex m;
    return m;
  }

  void Add(const char* name, int dtype, int count, const void* data, std::size_t bytes) {
    OwnedOption o{};
    std::strncpy(o.option.name, name, kLibenvMaxNameLen - 1);
    o.option.dtype = dtype;
    o.option.count = count;
    o.bytes.assign(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
    options_.push_back(std::move(o));
  }
  void AddString(const char* name, const std::string& v) {
    Add(name, kDtypeUInt8, static_cast<int>(v.size()), v.data(), v.size());
  }
  void AddInt(const char* name, int32_t v) { Add(name, kDtypeInt32, 1, &v, sizeof v); }
  void AddBool(const char* name, bool b) {
    const uint8_t v = b ? 1 : 0;
    Add(name, kDtypeUInt8, 1, &v, 1);
  }

  std::vector<LibenvTensorType> Types(int space) const {
    std::vector<LibenvTensorType> t(static_cast<std::size_t>(api_.get_tensortypes(handle_, space, nullptr)));
    if (!t.empty()) api_.get_tensortypes(handle_, space, t.data());
    return t;
  }

  // Checks that the library's spaces are the ones this env was written for, then hands it the
  // buffers (after which the game is reset and its first frame drawn).
  void BindBuffers(bool render) {
    auto bad = [&](const std::string& what) {
      return std::runtime_error(api_.library_path + ": unexpected libenv spaces (" + what +
                                "); envpool's Procgen tasks are written for procgen 0.10.7");
    };
    const auto ob = Types(kSpaceObservation), ac = Types(kSpaceAction), info = Types(kSpaceInfo);
    if (ob.size() != 1 || ob[0].dtype != kDtypeUInt8 || ob[0].ndim != 3 || ob[0].shape[0] != kRes ||
        ob[0].shape[1] != kRes || ob[0].shape[2] != 3) {
      throw bad("observation");
    }
    if (ac.size() != 1 || ac[0].dtype != kDtypeInt32 || ac[0].ndim != 0 || ac[0].high.int32 != kNumActions - 1) {
      throw bad("action");
    }
    std::vector<void*> info_ptrs(info.size(), nullptr);
    for (std::size_t i = 0; i < info.size(); ++i) {
      const std::string name = info[i].name;
      const int dtype = info[i].dtype;
      if (name == "prev_level_seed" && dtype == kDtypeInt32) info_ptrs[i] = &prev_level_seed_;
      if (name == "level_seed" && dtype == kDtypeInt32) info_ptrs[i] = &level_seed_;
      if (name == "prev_level_complete" && dtype == kDtypeUInt8) info_ptrs[i] = &prev_level_complete_;
      if (name == "rgb" && render && dtype == kDtypeUInt8) {
        rgb_.assign(static_cast<std::size_t>(kRenderRes) * kRenderRes * 3, 0);
        info_ptrs[i] = rgb_.data();
      }
      if (!info_ptrs[i]) throw bad("info '" + name + "'");
    }
    if (info.size() != (render ? 4u : 3u)) throw bad("info count");
    void* ob_ptrs[1] = {frame_};
    void* ac_ptrs[1] = {&action_};
    LibenvBuffers buffers{ob_ptrs, &reward_, &first_, info_ptrs.data(), ac_ptrs};
    api_.set_buffers(handle_, &buffers);  // copies the pointers; resets the game, draws frame 0
  }

  void Close() {
    if (!handle_) return;
    std::lock_guard<std::mutex> lock(Mutex());
    api_.close(handle_);
    handle_ = nullptr;
  }

  const ProcgenApi& api_;
  LibenvHandle* handle_ = nullptr;
  std::vector<OwnedOption> options_;
  alignas(64) uint8_t frame_[kRes * kRes * 3] = {};
  std::vector<uint8_t> rgb_;
  int32_t action_ = 0;
  float reward_ = 0.0f;
  uint8_t first_ = 0;
  int32_t prev_level_seed_ = 0;
  uint8_t prev_level_complete_ = 0;
  int32_t level_seed_ = 0;
};

}  // namespace envpool::procgen
