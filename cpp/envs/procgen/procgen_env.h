// A Procgen game (procgen 0.10.7's, run by its own compiled library: game.h) as a pool env.
//
// Episodes: Procgen has no reset call. A game resets itself inside the step that ends a level
// (finished, failed, or its step limit reached), and that step returns the ending reward with
// the next level's first frame; under use_sequential_levels a finished level is not an episode
// end (the next level follows in the same episode). Here:
//   * such a step is terminated (the level was finished or failed) or truncated (the game's
//     own limit, Game::timeout, was reached without finishing the level); its observation is
//     the next episode's first frame, as in Procgen;
//   * Reset() right after it (autoreset, or the user's reset) starts that episode without
//     touching the game: the frame is the one that step showed;
//   * Reset() in the middle of an episode (reset() by the user, a pool time limit shorter than
//     the game's) is Procgen's forced reset, the step with action -1 (Game::step's
//     will_force_reset), which plays one frame with the default action and starts a new level.
// A level that ends by failure on the very step the limit is reached is reported as truncated:
// Procgen sets the same flag for both and tells them apart nowhere.
//
// Seeding: env i of a pool made with `seed` is Procgen's env made with num=1 and
// rand_seed = (seed + i) mod 2**32 (an int32 for Procgen); reset(seed=s) makes the game anew
// with rand_seed s. Procgen's batched env (num=n) seeds its games from a chain of draws of one
// generator instead, so its env i is a different sequence of levels.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "envs/procgen/game.h"
#include "envs/procgen/options.h"
#include "envs/procgen/state.h"

namespace envpool::procgen {

class ProcgenEnv : public Env {
 public:
  static Config DefaultConfig() {
    return {{"env_name", std::string("bigfish")},
            {"distribution_mode", std::string("hard")},
            {"num_levels", int64_t{0}},
            {"start_level", int64_t{0}},
            {"use_sequential_levels", false},
            {"center_agent", true},
            {"use_backgrounds", true},
            {"restrict_themes", false},
            {"use_monochrome_assets", false},
            {"paint_vel_info", false},
            {"use_generated_assets", false},
            {"channel_first", false}};
  }

  static EnvSpec Spec(const Config& config) {
    const Options o(config);  // a bad kwarg is refused at make, before any env is built
    EnvSpec spec;
    const std::vector<int> shape = o.channel_first ? std::vector<int>{3, kRes, kRes} : std::vector<int>{kRes, kRes, 3};
    spec.obs.push_back(ArraySpec::Box("obs", DType::kUInt8, shape, {0}, {255}));
    spec.action.push_back(ArraySpec::Discrete("action", kNumActions));
    // Procgen's info, in its order and dtypes.
    spec.info.push_back(ArraySpec::Box("prev_level_seed", DType::kInt32, {}, {0}, {2147483647}));
    spec.info.push_back(ArraySpec::Box("prev_level_complete", DType::kUInt8, {}, {0}, {1}));
    spec.info.push_back(ArraySpec::Box("level_seed", DType::kInt32, {}, {0}, {2147483647}));
    spec.render_height = kRenderRes;
    spec.render_width = kRenderRes;
    spec.render_fps = 15;  // procgen's own vector env: metadata["video.frames_per_second"]
    // A level's step limit ends the episode (truncated), unless levels follow in one episode.
    spec.env_step_limit = o.use_sequential_levels ? 0 : o.Timeout();
    return spec;
  }

  // Loads the library here, so that a missing one is reported at make.
  explicit ProcgenEnv(const Config& config) : opt_(config), timeout_(opt_.Timeout()) { Procgen(); }

  void Seed(uint64_t seed) override {
    seed_ = static_cast<uint32_t>(seed);
    game_.reset();  // made anew with this seed by the reset that follows
  }

  void Reset(Rng& /*rng*/, Output& out) override {
    if (!game_) {
      MakeGame();
    } else if (!at_start_) {
      game_->Act(-1);
      level_steps_ = 0;
    }
    at_start_ = true;
    Write(out);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    if (!game_) MakeGame();
    game_->Act(static_cast<int32_t>(*action.Get<int64_t>()));
    const bool done = game_->first(), finished = game_->prev_level_complete();
    const bool truncated = done && !finished && level_steps_ + 1 >= timeout_;
    // Procgen started a new level in this step when one ended (sequential levels included).
    level_steps_ = done || finished ? 0 : level_steps_ + 1;
    at_start_ = done;
    out.reward() = static_cast<double>(game_->reward());
    out.terminated() = done && !truncated;
    out.truncated() = truncated;
    Write(out);
  }

  // The 512 x 512 frame of Procgen's render_mode="rgb_array" (its render_human info "rgb"): drawn
  // by a second game of the same options, made on the first call, into which this game's state
  // is loaded (so that stepping never pays for the large frame).
  void Render(uint8_t* rgb) const override {
    RequireSavable("render()");
    if (!game_) MakeGame();
    if (!render_game_) render_game_ = std::make_unique<Game>(opt_, seed_, /*render=*/true);
    render_game_->Load(game_->Save());
    render_game_->Observe();
    std::memcpy(rgb, render_game_->render_frame(), static_cast<std::size_t>(kRenderRes) * kRenderRes * 3);
  }

  std::vector<double> GetState() const override {
    RequireSavable("get_state");
    if (!game_) MakeGame();
    const std::string descriptor = opt_.Describe();
    const std::vector<char> game = game_->Save();
    std::vector<uint8_t> payload;
    payload.reserve(4 + descriptor.size() + 1 + game.size());
    PutLength(payload, descriptor.size());
    payload.insert(payload.end(), descriptor.begin(), descriptor.end());
    payload.push_back(at_start_ ? 1 : 0);
    payload.insert(payload.end(), game.begin(), game.end());
    return StateCodec::Encode(payload);
  }

  void SetState(const std::vector<double>& state) override {
    RequireSavable("set_state");
    const std::vector<uint8_t> payload = StateCodec::Decode(state);  // only what a GetState here made
    const std::size_t n = payload.size() < 4 ? 0 : GetLength(payload);
    if (payload.size() < 4 || n > payload.size() - 5) StateCodec::Fail("malformed");
    const std::string descriptor(payload.begin() + 4, payload.begin() + 4 + static_cast<std::ptrdiff_t>(n));
    if (descriptor != opt_.Describe()) {
      StateCodec::Fail("taken from a game of other options (" + descriptor + "), this env is " + opt_.Describe());
    }
    const bool at_start = payload[4 + n] != 0;
    std::vector<char> game(payload.begin() + 5 + static_cast<std::ptrdiff_t>(n), payload.end());
    const StatePrefix prefix = ReadStatePrefix(game.data(), game.size());
    if (prefix.timeout != timeout_) {  // the state is this game's: then the table above is wrong
      throw std::logic_error("Procgen's " + std::string(opt_.game->name) + " has a step limit of " +
                             std::to_string(prefix.timeout) + ", envpool's table says " + std::to_string(timeout_));
    }
    if (!game_) MakeGame();
    game_->Load(std::move(game));  // Procgen draws the state's frame and info again
    level_steps_ = prefix.cur_time;
    at_start_ = at_start;
  }

 private:
  static void PutLength(std::vector<uint8_t>& out, std::size_t n) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(n >> (8 * i)));
  }
  static std::size_t GetLength(const std::vector<uint8_t>& in) {
    std::size_t n = 0;
    for (int i = 0; i < 4; ++i) n |= static_cast<std::size_t>(in[static_cast<std::size_t>(i)]) << (8 * i);
    return n;
  }

  void MakeGame() const {
    game_ = std::make_unique<Game>(opt_, seed_, /*render=*/false);
    level_steps_ = 0;
    at_start_ = true;
  }

  // Procgen serializes no game with generated assets (BasicAbstractGame::serialize fasserts,
  // which exits the process), and get_state, set_state and render all go through its states.
  void RequireSavable(const char* what) const {
    if (opt_.use_generated_assets) {
      throw std::invalid_argument(std::string(what) +
                                  " is not available with use_generated_assets=True: Procgen cannot save the "
                                  "state of such a game");
    }
  }

  void Write(Output& out) const {
    uint8_t* obs = out.Obs<uint8_t>();
    const uint8_t* frame = game_->frame();
    if (!opt_.channel_first) {
      std::memcpy(obs, frame, static_cast<std::size_t>(kRes) * kRes * 3);
    } else {
      for (int c = 0; c < 3; ++c) {
        for (int p = 0; p < kRes * kRes; ++p) obs[c * kRes * kRes + p] = frame[p * 3 + c];
      }
    }
    *out.Info<int32_t>(0) = game_->prev_level_seed();
    *out.Info<uint8_t>(1) = game_->prev_level_complete() ? 1 : 0;
    *out.Info<int32_t>(2) = game_->level_seed();
  }

  Options opt_;
  int32_t timeout_;  // the game's step limit per level
  uint32_t seed_ = 0;
  // Made lazily (the first reset after Seed), so mutable: GetState and Render may come first.
  mutable std::unique_ptr<Game> game_;
  mutable std::unique_ptr<Game> render_game_;
  mutable int32_t level_steps_ = 0;  // Procgen's cur_time: steps into the current level
  mutable bool at_start_ = true;     // the game shows an episode's first frame, not yet stepped
};

}  // namespace envpool::procgen
