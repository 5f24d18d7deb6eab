#include "atari_env.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "games.h"
#include "state_bytes.h"

namespace envpool_atari {

using envpool::ArraySpec;
using envpool::Config;
using envpool::DType;
using envpool::EnvSpec;

namespace {

// The 2600's RAM (ale::ALERAM holds exactly this much).
constexpr int kRamBytes = 128;

void Require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("Atari: " + what);
}

int IntOption(const Config& c, const char* key) {
  const int64_t v = c.Get<int64_t>(key);
  Require(v >= INT32_MIN && v <= INT32_MAX, std::string(key) + " is out of range: " + std::to_string(v));
  return static_cast<int>(v);
}

void ApplyModeAndDifficulty(ale::ALEInterface& ale, const AtariOptions& o) {
  if (o.mode >= 0) {
    const auto modes = ale.getAvailableModes();
    Require(std::find(modes.begin(), modes.end(), static_cast<ale::game_mode_t>(o.mode)) != modes.end(),
            "mode=" + std::to_string(o.mode) + " is not a mode of " + o.task);
    ale.setMode(static_cast<ale::game_mode_t>(o.mode));
  }
  if (o.difficulty >= 0) {
    const auto levels = ale.getAvailableDifficulties();
    Require(std::find(levels.begin(), levels.end(), static_cast<ale::difficulty_t>(o.difficulty)) != levels.end(),
            "difficulty=" + std::to_string(o.difficulty) + " is not a difficulty of " + o.task);
    ale.setDifficulty(static_cast<ale::difficulty_t>(o.difficulty));
  }
}

// What a spec and a new env need from the ROM (its action set and screen), loaded once per kind
// of env: a new env need not load the ROM before its first (seeded) reset loads it, and each
// ROM load costs tens of milliseconds (the ALE builds its colour-averaging tables).
struct RomFacts {
  ale::ActionVect actions;
  int num_actions, height, width;
};

RomFacts LoadRomFacts(const AtariOptions& o, const RomImage& image) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, bool, int, int>, RomFacts> cache;
  const auto key = std::make_tuple(o.task, o.full_action_space, o.mode, o.difficulty);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  ale::ALEInterface ale;
  ale.setInt("random_seed", 0);
  ale.loadROM(image.path());
  ApplyModeAndDifficulty(ale, o);
  const auto actions = o.full_action_space ? ale.getLegalActionSet() : ale.getMinimalActionSet();
  const RomFacts facts{actions, static_cast<int>(actions.size()), static_cast<int>(ale.getScreen().height()),
                       static_cast<int>(ale.getScreen().width())};
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, facts);
  return facts;
}

// A state's text before its checksum is checked may be anything: messages show at most `limit`
// characters of it, and '?' for what is not printable ASCII.
std::string Shown(const std::string& text, std::size_t limit) {
  std::string out = text.substr(0, limit);
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return text.size() > limit ? out + "..." : out;
}

// "mode=0 there, 1 here, ..." for the options two Describe() texts give differently.
std::string OptionsDiff(const std::string& theirs, const std::string& ours) {
  auto lines = [](const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      const auto eq = line.find('=');
      out.emplace_back(line.substr(0, eq), eq == std::string::npos ? "" : line.substr(eq + 1));
    }
    return out;
  };
  const auto a = lines(theirs), b = lines(ours);
  bool same_names = a.size() == b.size();
  for (std::size_t i = 0; same_names && i < a.size(); ++i) same_names = a[i].first == b[i].first;
  if (!same_names) return "it lists the options of another version of the plugin";
  std::string diff;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].second == b[i].second) continue;
    if (!diff.empty()) diff += ", ";
    diff += Shown(a[i].first, 40) + "=" + Shown(a[i].second, 40) + " there, " + b[i].second + " here";
  }
  return diff.empty() ? "its list of options is malformed" : diff;
}

}  // namespace

AtariOptions AtariOptions::Read(const Config& c) {
  AtariOptions o;
  o.task = c.Get<std::string>("task");
  o.stack_num = IntOption(c, "stack_num");
  o.frame_skip = IntOption(c, "frame_skip");
  o.noop_max = IntOption(c, "noop_max");
  o.img_height = IntOption(c, "img_height");
  o.img_width = IntOption(c, "img_width");
  o.mode = IntOption(c, "mode");
  o.difficulty = IntOption(c, "difficulty");
  o.max_num_frames_per_episode = IntOption(c, "max_num_frames_per_episode");
  o.episodic_life = c.Get<bool>("episodic_life");
  o.terminal_on_life_loss = c.Get<bool>("terminal_on_life_loss");
  o.zero_discount_on_life_loss = c.Get<bool>("zero_discount_on_life_loss");
  o.reward_clip = c.Get<bool>("reward_clip");
  o.use_fire_reset = c.Get<bool>("use_fire_reset");
  o.gray_scale = c.Get<bool>("gray_scale");
  o.use_inter_area_resize = c.Get<bool>("use_inter_area_resize");
  o.maxpool = c.Get<bool>("maxpool");
  o.full_action_space = c.Get<bool>("full_action_space");
  const double p = c.Get<double>("repeat_action_probability");
  o.repeat_action_probability = static_cast<float>(p);
  const auto padding = c.Get<std::string>("frame_stack_padding");

  // The ROM name: one of the games this plugin registers (anything else would only fail later,
  // at the ROM lookup, as a RuntimeError about a missing file).
  Require(
      std::any_of(std::begin(kGames), std::end(kGames), [&](const GameName& g) { return o.task == g.rom; }),
      "task must be the ROM name of a game this plugin knows (e.g. 'pong', 'space_invaders'), got '" + o.task + "'");
  Require(o.stack_num >= 1 && o.stack_num <= 64, "stack_num must be in [1, 64], got " + std::to_string(o.stack_num));
  Require(o.frame_skip >= 1, "frame_skip must be >= 1, got " + std::to_string(o.frame_skip));
  Require(o.noop_max >= 0, "noop_max must be >= 0, got " + std::to_string(o.noop_max));
  Require(o.max_num_frames_per_episode >= 0,
          "max_num_frames_per_episode must be >= 0 (0: no limit), got " + std::to_string(o.max_num_frames_per_episode));
  Require(p >= 0.0 && p <= 1.0, "repeat_action_probability must be in [0, 1], got " + std::to_string(p));
  Require(o.mode >= -1 && o.difficulty >= -1, "mode and difficulty are -1 (the game's default) or a valid value");
  Require(!(o.episodic_life && o.terminal_on_life_loss),
          "episodic_life and terminal_on_life_loss exclude each other (the next reset either continues the game "
          "or restarts it)");
  Require(padding == "zero" || padding == "reset",
          "frame_stack_padding must be 'zero' or 'reset', got '" + padding + "'");
  o.zero_stack_padding = padding == "zero";
  return o;
}

std::string AtariOptions::Describe() const {
  std::ostringstream out;
  auto flag = [](bool b) { return b ? "True" : "False"; };
  char prob[32];
  const auto end = std::to_chars(prob, prob + sizeof prob, repeat_action_probability).ptr;
  out << "stack_num=" << stack_num << "\nframe_skip=" << frame_skip << "\nnoop_max=" << noop_max
      << "\nimg_height=" << img_height << "\nimg_width=" << img_width << "\nmode=" << mode
      << "\ndifficulty=" << difficulty << "\nmax_num_frames_per_episode=" << max_num_frames_per_episode
      << "\nepisodic_life=" << flag(episodic_life) << "\nterminal_on_life_loss=" << flag(terminal_on_life_loss)
      << "\nzero_discount_on_life_loss=" << flag(zero_discount_on_life_loss) << "\nreward_clip=" << flag(reward_clip)
      << "\nuse_fire_reset=" << flag(use_fire_reset) << "\ngray_scale=" << flag(gray_scale)
      << "\nuse_inter_area_resize=" << flag(use_inter_area_resize) << "\nmaxpool=" << flag(maxpool)
      << "\nfull_action_space=" << flag(full_action_space)
      << "\nrepeat_action_probability=" << std::string_view(prob, static_cast<std::size_t>(end - prob))
      << "\nframe_stack_padding=" << (zero_stack_padding ? "zero" : "reset") << "\n";
  return out.str();
}

Config AtariEnv::DefaultConfig() {
  return {{"task", std::string("pong")},
          {"stack_num", int64_t{4}},
          {"frame_skip", int64_t{4}},
          {"noop_max", int64_t{30}},
          {"episodic_life", false},
          {"terminal_on_life_loss", false},
          {"zero_discount_on_life_loss", false},
          {"reward_clip", false},
          {"use_fire_reset", true},
          {"img_height", int64_t{84}},
          {"img_width", int64_t{84}},
          {"gray_scale", true},
          {"use_inter_area_resize", true},
          {"maxpool", true},
          {"frame_stack_padding", std::string("zero")},
          {"repeat_action_probability", 0.0},
          {"full_action_space", false},
          {"mode", int64_t{-1}},
          {"difficulty", int64_t{-1}},
          {"max_num_frames_per_episode", int64_t{108000}}};
}

EnvSpec AtariEnv::Spec(const Config& config) {
  const AtariOptions o = AtariOptions::Read(config);
  const RomFacts rom = LoadRomFacts(o, *RomImage::Load(o.task));
  Require(o.img_height <= rom.height && o.img_width <= rom.width && o.img_height >= 1 && o.img_width >= 1,
          "img_height x img_width must be within the screen (" + std::to_string(rom.height) + " x " +
              std::to_string(rom.width) + "), got " + std::to_string(o.img_height) + " x " +
              std::to_string(o.img_width));
  Require(o.use_inter_area_resize || (o.img_height == rom.height && o.img_width == rom.width),
          "use_inter_area_resize=False (bilinear shrinking) is not implemented; keep True or use the full "
          "screen size");
  std::vector<int> shape{o.stack_num, o.img_height, o.img_width};
  if (!o.gray_scale) shape.push_back(3);
  EnvSpec spec{
      {ArraySpec::Box("obs", DType::kUInt8, shape, {0.0}, {255.0})},
      {ArraySpec::Discrete("action", rom.num_actions)},
      {ArraySpec::Box("lives", DType::kInt32, {}, {}, {}), ArraySpec::Box("reward", DType::kFloat64, {}, {}, {}),
       ArraySpec::Box("terminated", DType::kInt32, {}, {0.0}, {1.0}),
       ArraySpec::Box("frame_number", DType::kInt32, {}, {}, {}),
       ArraySpec::Box("episode_frame_number", DType::kInt32, {}, {}, {}),
       // The console's 128 bytes of RAM after the step (the reference's info "ram", ale-py's getRAM()).
       ArraySpec::Box("ram", DType::kUInt8, {kRamBytes}, {0.0}, {255.0})}};
  // The reference's dm discount: 0 at a step that lost a life (the dm front end reads it).
  if (o.zero_discount_on_life_loss) spec.info.push_back(ArraySpec::Box("discount", DType::kFloat64, {}, {0.0}, {1.0}));
  spec.render_height = rom.height;
  spec.render_width = rom.width;
  spec.render_fps = 30;  // ale-py's AtariEnv.metadata (the same for every game)
  return spec;
}

AtariEnv::AtariEnv(const Config& config)
    : opt_(AtariOptions::Read(config)),
      rom_(RomImage::Load(opt_.task)),
      ale_(std::make_unique<ale::ALEInterface>()),
      noop_dist_(0, opt_.noop_max > 0 ? opt_.noop_max - 1 : 0) {
  ale_->setFloat("repeat_action_probability", opt_.repeat_action_probability);
  // The ROM is loaded by the first reset (with the seed the pool gives first: see Seed).
  const RomFacts rom = LoadRomFacts(opt_, *rom_);
  action_set_ = rom.actions;
  fire_on_reset_ =
      opt_.use_fire_reset && std::find(action_set_.begin(), action_set_.end(), ale::PLAYER_A_FIRE) != action_set_.end();
  raw_h_ = rom.height;
  raw_w_ = rom.width;
  channels_ = opt_.gray_scale ? 1 : 3;
  raw_size_ = static_cast<std::size_t>(raw_h_ * raw_w_ * channels_);
  frame_size_ = static_cast<std::size_t>(opt_.img_height * opt_.img_width * channels_);
  if (opt_.img_height != raw_h_ || opt_.img_width != raw_w_) {
    resize_ = AreaResizer(raw_h_, raw_w_, opt_.img_height, opt_.img_width, channels_);
  }
  for (auto& frame : raw_) frame.assign(raw_size_, 0);
  stack_.assign(frame_size_ * static_cast<std::size_t>(opt_.stack_num), 0);
}

void AtariEnv::LoadRom() {
  ale_->loadROM(rom_->path());
  ApplyModeAndDifficulty(*ale_, opt_);
  const auto& palette = ale_->theOSystem->colourPalette();
  gray_.Build([&palette](int index) { return palette.getGrayscale(index); });
  rom_loaded_ = true;
}

void AtariEnv::RequireRom(const char* what) const {
  if (!rom_loaded_) throw std::logic_error(std::string("Atari: reset the env before ") + what);
}

void AtariEnv::Seed(uint64_t seed) {
  // The ALE takes a non-negative int32 seed; seeds below 2^31 are used as they are (as
  // AtariVectorEnv's reset(seed=s) does for env i: s + i).
  pending_seed_ = static_cast<uint32_t>(seed & 0x7fffffffu);
}

bool AtariEnv::EpisodeOver() const {
  const bool time_up = opt_.max_num_frames_per_episode > 0 && elapsed_frames_ >= opt_.max_num_frames_per_episode;
  return game_over_ || time_up || ((opt_.episodic_life || opt_.terminal_on_life_loss) && life_lost_);
}

void AtariEnv::Reset(envpool::Rng& /*rng*/, envpool::Output& out) {
  // episodic_life: an episode that ended at a life loss goes on in the same game.
  bool continue_game = opt_.episodic_life && life_lost_ && !game_over_ &&
                       !(opt_.max_num_frames_per_episode > 0 && elapsed_frames_ >= opt_.max_num_frames_per_episode);
  if (pending_seed_ || !rom_loaded_) {
    const uint32_t seed = pending_seed_.value_or(0);
    ale_->setInt("random_seed", static_cast<int>(seed));
    if (pending_seed_) noop_rng_.seed(seed);
    LoadRom();
    pending_seed_.reset();
    continue_game = false;
  }
  if (!continue_game) {
    ale_->reset_game();
    elapsed_frames_ = 0;
  }
  if (fire_on_reset_) ale_->act(ale::PLAYER_A_FIRE);
  for (int noops = noop_dist_(noop_rng_) - static_cast<int>(fire_on_reset_); noops > 0; --noops) {
    ale_->act(ale::PLAYER_A_NOOP);
    if (ale_->game_over()) {
      ale_->reset_game();
      elapsed_frames_ = 0;
    }
  }
  CaptureScreen(raw_[0].data());
  std::fill(raw_[1].begin(), raw_[1].end(), 0);
  if (opt_.zero_stack_padding) std::fill(stack_.begin(), stack_.end(), 0);
  stack_pos_ = 0;
  PushFrame(!opt_.zero_stack_padding);
  game_over_ = false;
  life_lost_ = false;
  discount_ = 1.0;
  lives_ = ale_->lives();
  // Only obs and info: in same-step autoreset the row still holds the ended step's reward and flags.
  Write(out, 0);
}

void AtariEnv::Step(const envpool::Action& action, envpool::Rng& /*rng*/, envpool::Output& out) {
  // The pool has checked the index against the action space.
  const ale::Action a = action_set_[static_cast<std::size_t>(action.Get<int64_t>()[0])];
  const int lives_at_start = lives_;
  int reward = 0;
  for (int skip = opt_.frame_skip; skip > 0; --skip) {
    reward += ale_->act(a, 1.0f);
    game_over_ = ale_->game_over();
    ++elapsed_frames_;
    const int lives = ale_->lives();
    life_lost_ = lives < lives_ && lives > 0;
    // As AtariVectorEnv (and gymnasium's AtariPreprocessing): an ending frame is not captured,
    // so the last observation pools the frames captured before it.
    if (EpisodeOver()) break;
    if (skip <= 2) CaptureScreen(raw_[skip - 1].data());
  }
  PushFrame(false);
  lives_ = ale_->lives();
  discount_ = lives_ < lives_at_start ? 0.0 : 1.0;
  const bool terminated = game_over_ || ((opt_.episodic_life || opt_.terminal_on_life_loss) && life_lost_);
  out.terminated() = terminated;
  out.truncated() = !terminated && EpisodeOver();
  out.reward() = opt_.reward_clip ? static_cast<double>(std::clamp(reward, -1, 1)) : static_cast<double>(reward);
  Write(out, reward);
}

void AtariEnv::CaptureScreen(uint8_t* dst) const {
  uint8_t* screen = ale_->getScreen().getArray();
  const auto pixels = static_cast<std::size_t>(raw_h_ * raw_w_);
  if (opt_.gray_scale) {
    if (!gray_(screen, dst, pixels)) ale_->theOSystem->colourPalette().applyPaletteGrayscale(dst, screen, pixels);
  } else {
    ale_->theOSystem->colourPalette().applyPaletteRGB(dst, screen, pixels);
  }
}

void AtariEnv::PushFrame(bool fill_stack) {
  uint8_t* last = raw_[0].data();
  if (opt_.maxpool) {
    // Local bound and __restrict: else every byte store might change raw_size_ (a uint8_t
    // store may alias anything) and the loop stays scalar.
    const std::size_t n = raw_size_;
    uint8_t* __restrict newer = last;
    const uint8_t* __restrict before = raw_[1].data();
    for (std::size_t i = 0; i < n; ++i) newer[i] = std::max(newer[i], before[i]);
  }
  uint8_t* slot = stack_.data() + static_cast<std::size_t>(stack_pos_) * frame_size_;
  if (frame_size_ == raw_size_) {
    std::memcpy(slot, last, raw_size_);
  } else {
    resize_(last, slot);
  }
  if (fill_stack) {
    for (int i = 0; i < opt_.stack_num; ++i) {
      if (i != stack_pos_) std::memcpy(stack_.data() + static_cast<std::size_t>(i) * frame_size_, slot, frame_size_);
    }
  }
  stack_pos_ = (stack_pos_ + 1) % opt_.stack_num;
}

void AtariEnv::Write(envpool::Output& out, int unclipped_reward) const {
  // Oldest frame first: the ring from stack_pos_ on.
  auto* obs = out.Obs<uint8_t>();
  const std::size_t tail = static_cast<std::size_t>(opt_.stack_num - stack_pos_) * frame_size_;
  std::memcpy(obs, stack_.data() + static_cast<std::size_t>(stack_pos_) * frame_size_, tail);
  std::memcpy(obs + tail, stack_.data(), stack_.size() - tail);
  *out.Info<int32_t>(0) = lives_;
  *out.Info<double>(1) = static_cast<double>(unclipped_reward);
  *out.Info<int32_t>(2) = game_over_ ? 1 : 0;
  *out.Info<int32_t>(3) = ale_->getFrameNumber();
  *out.Info<int32_t>(4) = ale_->getEpisodeFrameNumber();
  const ale::ALERAM& ram = ale_->getRAM();  // the ALE's copy, refreshed after every frame
  std::memcpy(out.Info<uint8_t>(5), ram.array(), kRamBytes);
  if (opt_.zero_discount_on_life_loss) *out.Info<double>(6) = discount_;
}

void AtariEnv::Render(uint8_t* rgb) const {
  RequireRom("rendering it");
  ale_->theOSystem->colourPalette().applyPaletteRGB(rgb, ale_->getScreen().getArray(),
                                                    static_cast<std::size_t>(raw_h_ * raw_w_));
}

std::vector<double> AtariEnv::GetState() const {
  RequireRom("taking its state");
  StateWriter w;
  w.Text(opt_.task);
  w.Text(opt_.Describe());
  w.Text(ale_->cloneState(/*include_rng=*/true).serialize());
  std::ostringstream rng;
  rng << noop_rng_;
  w.Text(rng.str());
  w.Int(pending_seed_ ? static_cast<int64_t>(*pending_seed_) : -1);
  w.Int(elapsed_frames_);
  w.Int(lives_);
  w.Int(game_over_);
  w.Int(life_lost_);
  w.Int(stack_pos_);
  w.Bytes(raw_[0]);
  w.Bytes(raw_[1]);
  w.Bytes(stack_);
  return w.Finish();
}

void AtariEnv::SetState(const std::vector<double>& state) {
  // Everything is read and checked into locals first; the env changes only after the last check.
  StateReader r(state);
  // The descriptor first, so that a state of another game or options is named as such.
  const std::string game = r.Text();
  if (game != opt_.task) {
    const std::string shown = Shown(game, 40);
    StateReader::Fail("this state was taken from a " + TaskOfRom(shown) + " env (ROM '" + shown +
                      "'), and this env is " + TaskOfRom(opt_.task) + " (ROM '" + opt_.task +
                      "'); set_state takes states of the same game only");
  }
  if (const std::string options = r.Text(); options != opt_.Describe()) {
    StateReader::Fail("this state was taken under another configuration of " + TaskOfRom(game) + ": " +
                      OptionsDiff(options, opt_.Describe()) + "; set_state takes states of the same options only");
  }
  r.Authenticate();
  const std::string ale_state = r.Text();
  std::istringstream rng(r.Text());
  std::mt19937 noop_rng;
  rng >> noop_rng;
  if (!rng) StateReader::Fail("the no-op RNG state is malformed");
  const int64_t pending = r.Int();
  const int64_t elapsed = r.Int(), lives = r.Int(), game_over = r.Int(), life_lost = r.Int(), pos = r.Int();
  auto raw0 = r.Bytes(raw_size_), raw1 = r.Bytes(raw_size_), stack = r.Bytes(stack_.size());
  r.End();
  if (pos < 0 || pos >= opt_.stack_num || pending < -1 || pending > INT32_MAX || elapsed < 0 || elapsed > INT32_MAX ||
      lives < INT32_MIN || lives > INT32_MAX) {
    StateReader::Fail("counters out of range");
  }
  if (!rom_loaded_) {  // a state put into an env never reset: its emulator needs the ROM first
    ale_->setInt("random_seed", 0);
    LoadRom();
  }
  // The ALE state is one a GetState under this process's key serialized for this game and
  // options (the keyed checksum says so), so the ALE's loader, which checks nothing, can take it.
  ale_->restoreState(ale::ALEState(ale_state));
  noop_rng_ = noop_rng;
  pending_seed_ = pending < 0 ? std::nullopt : std::optional<uint32_t>(static_cast<uint32_t>(pending));
  elapsed_frames_ = static_cast<int>(elapsed);
  lives_ = static_cast<int>(lives);
  game_over_ = game_over != 0;
  life_lost_ = life_lost != 0;
  stack_pos_ = static_cast<int>(pos);
  raw_[0] = std::move(raw0);
  raw_[1] = std::move(raw1);
  stack_ = std::move(stack);
}

}  // namespace envpool_atari
