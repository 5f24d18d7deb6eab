// MiniGridEnv (minigrid 3.2.0, minigrid/minigrid_env.py): what every MiniGrid env shares. A
// concrete env builds its grid in GenGrid (its _gen_grid) from the same np_random draws, in
// the same order, as its Python twin; this class does the rest as MiniGridEnv does:
//  - reset: agent_pos = (-1, -1), GenGrid, no carried object, step_count = 0, the observation;
//  - step (Step below): left / right / forward / pickup / drop / toggle / done, the reward
//    1 - 0.9 * step_count / max_steps on reaching the goal, termination on the goal or lava,
//    truncation once step_count >= max_steps (the env's own limit: the ids register no
//    TimeLimit);
//  - the observation, gen_obs: "image" the agent_view_size^2 cells ahead of the agent, rotated
//    so that the agent looks up from the bottom row's middle, hidden cells zero unless
//    see_through_walls (process_vis), each cell (OBJECT_TO_IDX, COLOR_TO_IDX, state), the
//    agent's own cell showing what it carries; "direction" agent_dir; "mission" the mission's
//    UTF-8 bytes, zero-padded to kMissionBytes (gymnasium's Text space has no fixed-width
//    array form; docs/tasks.md, MiniGrid);
//  - obs_wrappers: minigrid.wrappers' observation wrappers, done here (ObsOptions, WriteObs);
//  - render() (rgb_array): get_frame(highlight, tile_size, agent_pov), tiles from render/tiles.h. The
//    highlight and the RGB views use the visibility mask of the last observation, which is the
//    current state's: every reset and step ends with WriteObs.
// Randomness (docs/seeding.md): _rand_int is np_random.integers(low, high) = low +
// Rng::Below(high - low); place_obj draws x then y until the cell is empty and not the agent's;
// place_agent draws a direction after its position; np_random.shuffle (the crossing envs) is
// numpy's random_interval Fisher-Yates, RandomInterval below.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/env.h"
#include "envs/minigrid/grid.h"
#include "envs/minigrid/kwargs.h"
#include "envs/minigrid/obs_options.h"
#include "envs/minigrid/render/tiles.h"

namespace envpool::minigrid {

// Actions (minigrid.core.actions.Actions).
enum ActionId : int { kLeft = 0, kRight = 1, kForward = 2, kPickup = 3, kDrop = 4, kToggle = 5, kDone = 6 };

// The mission array's width: the reference EnvPool's, 96 bytes for MiniGrid-* ids and 512 for
// BabyAI-* ids (whose missions chain clauses).
inline constexpr int kMissionBytes = 96;
inline constexpr int kBabyAIMissionBytes = 512;

// An env's Spec: its spaces, after the kwargs checks of a constructed env (which draws nothing).
template <typename E>
EnvSpec CheckedSpec(const Config& config, const std::string& /*env*/, int num_actions = 7) {
  const E check(config);
  return check.MakeSpec(num_actions);
}

class MiniGridEnv : public Env {
 public:
  // The spaces: Dict(direction Discrete(4), image Box(0, 255, (v, v, 3), uint8), mission
  // Box(0, 255, (mission_bytes_,), uint8): a Text array), the image and the form as obs_wrappers make them;
  // Discrete(num_actions) actions (7; Dynamic-Obstacles: 3). Frames: the grid at tile_size
  // (agent_pov: the agent's view).
  EnvSpec MakeSpec(int num_actions) const {
    const auto [h, w, c] = ImageShape();
    EnvSpec spec{{}, {ArraySpec::Discrete("action", num_actions)}, {}};
    if (obs_.form == ObsOptions::kFlat) {
      spec.obs.push_back(
          ArraySpec::Box("obs", DType::kUInt8, {h * w * c + kFlatMissionChars * kFlatCharCodes}, {0}, {255}));
    } else {
      ArraySpec image = ArraySpec::Box("image", DType::kUInt8, {h, w, c}, {0}, {255});
      if (obs_.form == ObsOptions::kImageOnly) {
        spec.obs.push_back(std::move(image));
      } else {
        spec.obs = {ArraySpec::Discrete("direction", 4), std::move(image), ArraySpec::Text("mission", mission_bytes_)};
      }
    }
    const int t = render_tiles_->tile();
    spec.render_height = (agent_pov_ ? view_ : grid_.height()) * t;
    spec.render_width = (agent_pov_ ? view_ : grid_.width()) * t;
    spec.render_fps = 10;                                            // MiniGridEnv.metadata
    spec.env_step_limit = max_steps_per_episode_ ? -1 : max_steps_;  // max_steps 0: the env's default
    return spec;
  }

  // MiniGridEnv.render() with render_mode "rgb_array": get_frame(highlight, tile_size, agent_pov).
  void Render(uint8_t* rgb) const override {
    if (agent_pov_) {
      DrawPov(rgb, *render_tiles_);
    } else {
      DrawFull(rgb, *render_tiles_, highlight_);
    }
  }

  void Reset(Rng& rng, Output& out) final {
    grid_.Clear();
    carrying_ = Obj{};
    agent_x_ = -1;
    agent_y_ = -1;
    agent_dir_ = -1;
    GenGrid(rng);
    step_count_ = 0;
    WriteObs(out);
    AfterResetObs();
  }

  // MiniGridEnv.step; envs that add rules (rewards for doors, moving obstacles) override it
  // around MiniGridStep and Finish.
  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    Finish(MiniGridStep(static_cast<int>(action.Get<int64_t>()[0])), out);
  }

 protected:
  struct StepResult {
    double reward = 0.0;
    bool terminated = false;
    bool truncated = false;
  };

  // The dynamics of MiniGridEnv.step for one action (its observation is Finish's).
  StepResult MiniGridStep(int action) {
    ++step_count_;
    StepResult r;
    const int fx = agent_x_ + kDirX[agent_dir_];
    const int fy = agent_y_ + kDirY[agent_dir_];
    // Agents stay inside the outer wall, so the cell ahead is always on the grid.
    const Obj fwd = grid_.Get(fx, fy);
    switch (action) {
      case kLeft:
        agent_dir_ = (agent_dir_ + 3) % 4;
        break;
      case kRight:
        agent_dir_ = (agent_dir_ + 1) % 4;
        break;
      case kForward:
        if (fwd.empty() || fwd.CanOverlap()) {
          agent_x_ = fx;
          agent_y_ = fy;
        }
        if (fwd.type == kGoal) {
          r.terminated = true;
          r.reward = SuccessReward();
        }
        if (fwd.type == kLava) r.terminated = true;
        break;
      case kPickup:
        if (fwd.CanPickup() && carrying_.empty()) {
          carrying_ = fwd;
          grid_.Set(fx, fy, Obj{});
        }
        break;
      case kDrop:
        if (fwd.empty() && !carrying_.empty()) {
          grid_.Set(fx, fy, carrying_);
          carrying_ = Obj{};
        }
        break;
      case kToggle:
        Toggle(fx, fy);
        break;
      default:  // done
        break;
    }
    r.truncated = step_count_ >= max_steps_;
    return r;
  }

  // Writes a step's reward, flags and observation.
  void Finish(const StepResult& r, Output& out) {
    out.reward() = r.reward;
    out.terminated() = r.terminated;
    if (r.truncated) out.truncated() = true;
    WriteObs(out);
  }

  // What the agent carries (kEmpty: nothing).
  const Obj& Carrying() const { return carrying_; }
  void SetCarrying(const Obj& obj) { carrying_ = obj; }

  // After reset's observation is written: a change to the state that the first observation
  // does not show (BabyAI's PutNext*Carrying hands the agent its object after minigrid's reset
  // returned the observation).
  virtual void AfterResetObs() {}

  // _reward(): 1 - 0.9 * (step_count / max_steps).
  double SuccessReward() const {
    return 1.0 - 0.9 * (static_cast<double>(step_count_) / static_cast<double>(max_steps_));
  }

  // With the kwargs every env takes: max_steps (0: default_max_steps), agent_view_size and
  // AddCommonKwargs's (each at minigrid's default where a config lacks it).
  MiniGridEnv(const Config& config, const std::string& env, int width, int height, int64_t default_max_steps,
              bool see_through_walls)
      : grid_(width, height),
        max_steps_(MaxSteps(config, env, default_max_steps)),
        view_(ViewSize(config, env)),
        see_through_walls_(see_through_walls),
        view_cells_(static_cast<std::size_t>(view_ * view_)),
        visible_(static_cast<std::size_t>(view_ * view_)) {
    Config common;
    AddCommonKwargs(common);
    for (const auto& [key, value] : common.values()) {
      if (!config.Has(key)) continue;
      common.Set(key, config.values().at(key));
    }
    render_tiles_ = &TileSet::Of(IntIn(common, env, "tile_size", 1, 256));
    highlight_ = common.Get<bool>("highlight");
    agent_pov_ = common.Get<bool>("agent_pov");
    obs_ = ObsOptions::Parse(common.Get<std::vector<std::string>>("obs_wrappers"), env);
    const int obs_tile = IntIn(common, env, "obs_tile_size", 1, 256);
    if (obs_.image == ObsOptions::kRgbFull || obs_.image == ObsOptions::kRgbPov) obs_tiles_ = &TileSet::Of(obs_tile);
  }

  // _gen_grid: the grid is empty, agent_pos (-1, -1); place the agent and set the mission.
  virtual void GenGrid(Rng& rng) = 0;

  // The mission text (its pieces joined), as UTF-8, zero-padded; refused if it does not fit.
  void SetMission(std::initializer_list<std::string_view> pieces) {
    std::size_t n = 0;
    for (auto piece : pieces) n += piece.size();
    if (n > static_cast<std::size_t>(mission_bytes_)) {
      throw std::length_error("MiniGrid: mission longer than " + std::to_string(mission_bytes_) + " bytes");
    }
    mission_.fill(0);
    n = 0;
    for (auto piece : pieces) {
      std::memcpy(mission_.data() + n, piece.data(), piece.size());
      n += piece.size();
    }
    if (obs_.form == ObsOptions::kFlat) EncodeFlatMission(n);
  }
  void SetMission(std::string_view mission) { SetMission({mission}); }

  // BabyAI's levels: the wider mission array (set once, by the constructor), and max_steps
  // set per episode (from the instruction, at reset).
  void UseBabyAIMissionBytes() { mission_bytes_ = kBabyAIMissionBytes; }
  void SetMaxSteps(int max_steps) { max_steps_ = max_steps; }
  // Called by a level whose max_steps SetMaxSteps sets at each reset (the spec then says so).
  void SetsMaxStepsPerEpisode() { max_steps_per_episode_ = true; }

  // _rand_int(low, high): np_random.integers(low, high), high > low.
  static int RandInt(Rng& rng, int low, int high) {
    return low + static_cast<int>(rng.Below(static_cast<uint64_t>(high - low)));
  }
  // _rand_color(), i.e. _rand_elem(COLOR_NAMES).
  static Color RandColor(Rng& rng) { return kColorNames[RandInt(rng, 0, 6)]; }
  // _rand_elem(["key", "ball", "box"]).
  static Type RandKind(Rng& rng) { return kObjectKinds[RandInt(rng, 0, 3)]; }

  // An object of GoToObject / PutNear and where it was placed.
  struct Placed {
    Type type = kKey;
    Color color = kRed;
    int x = 0;
    int y = 0;
  };
  // Their next object: _rand_elem(["key", "ball", "box"]), then _rand_elem(COLOR_NAMES), both
  // drawn again while one of the n objects before has that pair. Its place is the caller's.
  static Placed RandDistinctObj(Rng& rng, const std::vector<Placed>& objs, int n) {
    for (;;) {
      const Type type = RandKind(rng);
      const Color color = RandColor(rng);
      bool taken = false;
      for (int k = 0; k < n; ++k) taken = taken || (objs[k].type == type && objs[k].color == color);
      if (!taken) return Placed{type, color, 0, 0};
    }
  }

  // numpy's random_interval(max): a value in [0, max] by masked rejection, as Generator.shuffle
  // draws each swap partner.
  static uint64_t RandomInterval(Rng& rng, uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    for (int s = 1; s <= 32; s *= 2) mask |= mask >> s;
    uint64_t value;
    if (max <= 0xFFFFFFFFull) {
      while ((value = (rng.NextU32() & mask)) > max) {
      }
    } else {
      while ((value = (rng.NextU64() & mask)) > max) {
      }
    }
    return value;
  }

  // np_random.shuffle(list): for i = n-1 .. 1, swap i with random_interval(i).
  template <typename T>
  static void Shuffle(Rng& rng, T* items, int n) {
    for (int i = n - 1; i >= 1; --i) std::swap(items[i], items[RandomInterval(rng, static_cast<uint64_t>(i))]);
  }

  // place_obj(obj, top, size, max_tries): draws until the cell is empty and not the agent's;
  // obj may be none (place_agent). size -1: the grid's extent; max_tries -1: no limit, else
  // after max_tries + 1 draws it gives up (minigrid's RecursionError) and returns (-1, -1).
  std::pair<int, int> PlaceObj(Rng& rng, const Obj& obj, int top_x = 0, int top_y = 0, int size_w = -1, int size_h = -1,
                               int max_tries = -1) {
    top_x = std::max(top_x, 0);
    top_y = std::max(top_y, 0);
    if (size_w < 0) size_w = grid_.width();
    if (size_h < 0) size_h = grid_.height();
    for (int tries = 0;; ++tries) {
      if (max_tries >= 0 && tries > max_tries) return {-1, -1};
      const int x = RandInt(rng, top_x, std::min(top_x + size_w, grid_.width()));
      const int y = RandInt(rng, top_y, std::min(top_y + size_h, grid_.height()));
      if (!grid_.Get(x, y).empty()) continue;
      if (x == agent_x_ && y == agent_y_) continue;
      grid_.Set(x, y, obj);
      return {x, y};
    }
  }

  // The walled room most envs start from: wall_rect(0, 0, width, height), the goal in the bottom
  // right corner (put_obj(Goal(), width - 2, height - 2)).
  void WallsAndCornerGoal() {
    grid_.OuterWalls();
    grid_.Set(grid_.width() - 2, grid_.height() - 2, Obj::Goal());
  }

  // FourRooms / Playground: the outer wall split into rooms x rooms rooms of width // rooms x
  // height // rooms cells; row by row, each room's right wall (vert_wall) then bottom wall
  // (horz_wall), unless on the grid's edge, each with one opening drawn at _rand_int(start + 1,
  // end - end_margin) along it, then filled with opening(rng) (a draw of its own, or none).
  template <typename Opening>
  void RoomsWithOpenings(Rng& rng, int rooms, int end_margin, Opening opening) {
    grid_.OuterWalls();
    const int room_w = grid_.width() / rooms, room_h = grid_.height() / rooms;
    for (int j = 0; j < rooms; ++j) {
      for (int i = 0; i < rooms; ++i) {
        const int left = i * room_w, top = j * room_h;
        const int right = left + room_w, bottom = top + room_h;
        if (i + 1 < rooms) {
          grid_.VertWall(right, top, room_h);
          const int y = RandInt(rng, top + 1, bottom - end_margin);
          grid_.Set(right, y, opening(rng));
        }
        if (j + 1 < rooms) {
          grid_.HorzWall(left, bottom, room_w);
          const int x = RandInt(rng, left + 1, right - end_margin);
          grid_.Set(x, bottom, opening(rng));
        }
      }
    }
  }

  // The agent at (x, y) facing dir (no draws).
  void SetAgent(int x, int y, int dir) {
    agent_x_ = x;
    agent_y_ = y;
    agent_dir_ = dir;
  }

  // The agent at its fixed start, or place_agent's.
  void PlaceAgentAt(Rng& rng, const AgentStart& start) {
    if (start.random) {
      PlaceAgent(rng);
    } else {
      SetAgent(start.x, start.y, start.dir);
    }
  }

  // place_agent(top, size, rand_dir=True).
  void PlaceAgent(Rng& rng, int top_x = 0, int top_y = 0, int size_w = -1, int size_h = -1) {
    agent_x_ = -1;
    agent_y_ = -1;
    const auto [x, y] = PlaceObj(rng, Obj{}, top_x, top_y, size_w, size_h);
    agent_x_ = x;
    agent_y_ = y;
    agent_dir_ = RandInt(rng, 0, 4);
  }

  Grid grid_;
  int agent_x_ = -1;
  int agent_y_ = -1;
  int agent_dir_ = -1;

 private:
  // WorldObj.toggle on the cell ahead: a locked door opens for a key of its colour, another
  // door opens or closes; a box turns into its contents.
  void Toggle(int x, int y) {
    Obj cell = grid_.Get(x, y);
    if (cell.type == kDoor) {
      if (cell.state == kLocked) {
        if (carrying_.type == kKey && carrying_.color == cell.color) cell.state = kOpen;
      } else {
        cell.state = cell.state == kOpen ? kClosed : kOpen;
      }
      grid_.Set(x, y, cell);
    } else if (cell.type == kBox) {
      grid_.Set(x, y, cell.Contents());
    }
  }

  // The observation: gen_obs, then the wrappers of obs_wrappers.
  void WriteObs(Output& out) {
    GenObsGrid();
    uint8_t* image = out.Obs<uint8_t>(obs_.form == ObsOptions::kDict ? 1 : 0);
    switch (obs_.image) {
      case ObsOptions::kEncoded:
        WriteEncoded(image);
        break;
      case ObsOptions::kFull:
        WriteFullEncoding(image);
        break;
      case ObsOptions::kOneHot:
        WriteOneHot(image);
        break;
      case ObsOptions::kRgbFull:
        DrawFull(image, *obs_tiles_, highlight_);  // RGBImgObsWrapper passes the env's highlight
        break;
      case ObsOptions::kRgbPov:
        DrawPov(image, *obs_tiles_);
        break;
    }
    if (obs_.form == ObsOptions::kDict) {
      out.Obs<int64_t>(0)[0] = agent_dir_;
      std::memcpy(out.Obs<uint8_t>(2), mission_.data(), static_cast<std::size_t>(mission_bytes_));
    } else if (obs_.form == ObsOptions::kFlat) {
      const auto [h, w, c] = ImageShape();
      std::memcpy(image + static_cast<std::size_t>(h) * w * c, flat_mission_.data(), flat_mission_.size());
    }
  }

  // The image's shape (rows, columns, channels).
  std::array<int, 3> ImageShape() const {
    const int t = obs_tiles_ == nullptr ? 0 : obs_tiles_->tile();
    switch (obs_.image) {
      case ObsOptions::kFull:
        return {grid_.width(), grid_.height(), 3};
      case ObsOptions::kOneHot:
        return {view_, view_, 11 + 6 + 3};  // OBJECT_TO_IDX, COLOR_TO_IDX, STATE_TO_IDX bits
      case ObsOptions::kRgbFull:
        return {grid_.height() * t, grid_.width() * t, 3};
      case ObsOptions::kRgbPov:
        return {view_ * t, view_ * t, 3};
      default:
        return {view_, view_, 3};
    }
  }

  // gen_obs_grid. View cell (i, j) (i across, j from the far row to the agent's row) is the world
  // cell agent + dir * (v - 1 - j) + right * (i - v / 2), right = (-dir_y, dir_x): the slice
  // get_view_exts cuts, rotated left agent_dir + 1 times. Cells off the grid are walls. Then
  // the visibility mask, and the agent's cell holds what it carries.
  void GenObsGrid() {
    const int v = view_, half = v / 2;
    const int dx = kDirX[agent_dir_], dy = kDirY[agent_dir_];
    const int rx = -dy, ry = dx;
    for (int i = 0; i < v; ++i) {
      for (int j = 0; j < v; ++j) {
        const int wx = agent_x_ + dx * (v - 1 - j) + rx * (i - half);
        const int wy = agent_y_ + dy * (v - 1 - j) + ry * (i - half);
        ViewCell(i, j) = grid_.Contains(wx, wy) ? grid_.Get(wx, wy) : Obj::Wall();
      }
    }
    if (see_through_walls_) {
      std::fill(visible_.begin(), visible_.end(), uint8_t{1});
    } else {
      ProcessVis(half, v - 1);
    }
    ViewCell(half, v - 1) = carrying_;  // the agent's cell shows what it carries, or nothing
  }

  // gen_obs's image: the view's encoding, hidden cells zero.
  void WriteEncoded(uint8_t* image) const {
    const int v = view_;
    for (int i = 0; i < v; ++i) {
      for (int j = 0; j < v; ++j) {
        uint8_t* px = image + (static_cast<std::size_t>(i) * v + j) * 3;
        if (!visible_[static_cast<std::size_t>(i * v + j)]) {
          px[0] = px[1] = px[2] = 0;  // unseen
          continue;
        }
        const Obj& c = ViewCell(i, j);
        px[0] = c.type;
        px[1] = c.empty() ? 0 : c.color;
        px[2] = c.empty() ? 0 : c.state;
      }
    }
  }

  // FullyObsWrapper: grid.encode() (width, height, 3), the agent's cell (agent, red, agent_dir).
  void WriteFullEncoding(uint8_t* image) const {
    const int w = grid_.width(), h = grid_.height();
    for (int i = 0; i < w; ++i) {
      for (int j = 0; j < h; ++j) {
        uint8_t* px = image + (static_cast<std::size_t>(i) * h + j) * 3;
        const Obj& c = grid_.Get(i, j);
        px[0] = c.type;
        px[1] = c.empty() ? 0 : c.color;
        px[2] = c.empty() ? 0 : c.state;
      }
    }
    uint8_t* agent = image + (static_cast<std::size_t>(agent_x_) * h + agent_y_) * 3;
    agent[0] = kAgent;
    agent[1] = kRed;
    agent[2] = static_cast<uint8_t>(agent_dir_);
  }

  // OneHotPartialObsWrapper: each view cell's (type, colour, state) as three set bits of 20
  // (hidden cells: unseen, red, open, as their zero encoding reads).
  void WriteOneHot(uint8_t* image) const {
    const int v = view_;
    constexpr int kBits = 11 + 6 + 3;
    std::memset(image, 0, static_cast<std::size_t>(v) * v * kBits);
    for (int i = 0; i < v; ++i) {
      for (int j = 0; j < v; ++j) {
        uint8_t* bits = image + (static_cast<std::size_t>(i) * v + j) * kBits;
        const Obj& c = ViewCell(i, j);
        const bool shown = visible_[static_cast<std::size_t>(i * v + j)] != 0;
        bits[shown ? c.type : 0] = 1;
        bits[11 + (shown && !c.empty() ? c.color : 0)] = 1;
        bits[17 + (shown && !c.empty() ? c.state : 0)] = 1;
      }
    }
  }

  // Grid.render of the whole grid (get_full_render): the agent's triangle on its cell, and with
  // `highlight` the cells of the last observation's visibility mask lightened (a world cell is
  // view cell (i, j) with i = right . (cell - agent) + v / 2, j = v - 1 - dir . (cell - agent)).
  void DrawFull(uint8_t* rgb, const TileSet& tiles, bool highlight) const {
    const int w = grid_.width(), h = grid_.height(), v = view_, half = v / 2;
    const std::size_t row_bytes = static_cast<std::size_t>(w) * tiles.tile() * 3;
    const bool placed = agent_dir_ >= 0;  // before the first reset: no agent, no view
    const int dx = placed ? kDirX[agent_dir_] : 0, dy = placed ? kDirY[agent_dir_] : 0;
    for (int j = 0; j < h; ++j) {
      for (int i = 0; i < w; ++i) {
        bool lit = false;
        if (highlight && placed) {
          const int rel_x = i - agent_x_, rel_y = j - agent_y_;
          const int vi = -dy * rel_x + dx * rel_y + half;
          const int vj = v - 1 - (dx * rel_x + dy * rel_y);
          lit = vi >= 0 && vi < v && vj >= 0 && vj < v && visible_[static_cast<std::size_t>(vi * v + vj)] != 0;
        }
        const bool agent_here = placed && i == agent_x_ && j == agent_y_;
        tiles.Put(rgb, row_bytes, i, j, grid_.Get(i, j), agent_here ? agent_dir_ : -1, lit);
      }
    }
  }

  // get_pov_render: the view grid (hidden cells emptied by process_vis, the agent's cell holding
  // what it carries), visible cells highlighted, the agent at the bottom middle facing up.
  void DrawPov(uint8_t* rgb, const TileSet& tiles) const {
    const int v = view_;
    const std::size_t row_bytes = static_cast<std::size_t>(v) * tiles.tile() * 3;
    const bool placed = agent_dir_ >= 0;
    for (int j = 0; j < v; ++j) {
      for (int i = 0; i < v; ++i) {
        const bool shown = placed && visible_[static_cast<std::size_t>(i * v + j)] != 0;
        const bool agent_here = placed && i == v / 2 && j == v - 1;
        tiles.Put(rgb, row_bytes, i, j, shown ? ViewCell(i, j) : Obj{}, agent_here ? 3 : -1, shown);
      }
    }
  }

  // FlatObsWrapper's one-hot mission (its first n bytes): a-z, space, comma after lower().
  void EncodeFlatMission(std::size_t n) {
    flat_mission_.fill(0);
    for (std::size_t k = 0; k < n; ++k) {
      char ch = static_cast<char>(mission_[k]);
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
      int code;
      if (ch >= 'a' && ch <= 'z') {
        code = ch - 'a';
      } else if (ch == ' ') {
        code = 26;
      } else if (ch == ',') {
        code = 27;
      } else {
        throw std::invalid_argument(std::string("MiniGrid: FlatObsWrapper: character '") + ch +
                                    "' is not available in mission string");
      }
      flat_mission_[k * kFlatCharCodes + static_cast<std::size_t>(code)] = 1;
    }
  }

  // Grid.process_vis(agent_pos = (ax, ay)) on the view: light spreads from the agent's cell
  // row by row toward the far row, left to right then right to left, and stops behind
  // cells one cannot see through.
  void ProcessVis(int ax, int ay) {
    const int v = view_;
    std::fill(visible_.begin(), visible_.end(), uint8_t{0});
    Visible(ax, ay) = 1;
    for (int j = v - 1; j >= 0; --j) {
      for (int i = 0; i < v - 1; ++i) {
        if (!Visible(i, j) || !ViewCell(i, j).SeeBehind()) continue;
        Visible(i + 1, j) = 1;
        if (j > 0) {
          Visible(i + 1, j - 1) = 1;
          Visible(i, j - 1) = 1;
        }
      }
      for (int i = v - 1; i >= 1; --i) {
        if (!Visible(i, j) || !ViewCell(i, j).SeeBehind()) continue;
        Visible(i - 1, j) = 1;
        if (j > 0) {
          Visible(i - 1, j - 1) = 1;
          Visible(i, j - 1) = 1;
        }
      }
    }
  }

  Obj& ViewCell(int i, int j) { return view_cells_[static_cast<std::size_t>(i * view_ + j)]; }
  const Obj& ViewCell(int i, int j) const { return view_cells_[static_cast<std::size_t>(i * view_ + j)]; }
  uint8_t& Visible(int i, int j) { return visible_[static_cast<std::size_t>(i * view_ + j)]; }

  int max_steps_;
  bool max_steps_per_episode_ = false;
  int view_;
  bool see_through_walls_;
  Obj carrying_{};
  int step_count_ = 0;
  int mission_bytes_ = kMissionBytes;  // the spec's width: kMissionBytes or kBabyAIMissionBytes
  std::array<uint8_t, kBabyAIMissionBytes> mission_{};
  std::vector<Obj> view_cells_;
  std::vector<uint8_t> visible_;
  ObsOptions obs_;
  const TileSet* render_tiles_ = nullptr;  // render()'s, at tile_size
  const TileSet* obs_tiles_ = nullptr;     // the RGB wrappers', at obs_tile_size
  bool highlight_ = true;
  bool agent_pov_ = false;
  std::array<uint8_t, kFlatMissionChars * kFlatCharCodes> flat_mission_{};
};

}  // namespace envpool::minigrid
