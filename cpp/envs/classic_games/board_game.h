// Two-player, turn-based board games as PettingZoo's classic AEC envs play them (tictactoe_v3,
// connect_four_v3), with their default wrapper stack (TerminateIllegalWrapper(illegal_reward=-1),
// AssertOutOfBoundsWrapper, OrderEnforcingWrapper). A game (tictactoe.h, connect_four.h) gives
// the board and its rules; this class gives the multi-agent convention of core/agents.h.
//
// Agents: two slots, PettingZoo's possible_agents in order; slot 0 moves first and its pieces
// are 1 on the board, slot 1's are 2.
// Observation, a Dict as PettingZoo's (each array leads with the two slots):
//   "observation"  int8 {2, rows, cols, 2}: for slot s, plane 0 marks s's pieces and plane 1
//                  the other's (PettingZoo's observe(agent)), cell (r, c) = board cell r * cols + c.
//   "action_mask"  int8 {2, num_actions}: legal moves (an empty cell / a column with room) for
//                  the agent PettingZoo's agent_selection points at, zeros for the other one.
//                  After a game-ending move that is the agent that would move next, which gets
//                  the legal moves of the final board, as PettingZoo's observe gives them.
// Action: "action" int64 {2}, one Discrete(num_actions) value per slot. Only the agent to move
// (needs_action) is read; the other slot's value is ignored (it must still be in range: the
// pool checks whole rows).
// Steps: one pool step is one move. Both agents are active for the whole game. A move that ends
// the game (a win or a full board) gives both agents PettingZoo's rewards of that move (+1 the
// winner, -1 the loser, 0 both on a draw) and agent_terminated for both; the env's terminated
// is set and its reward is the agents' sum. Rewards are 0 on every other move.
// Illegal moves (a masked-out action of the agent to move: an occupied cell, a full column), as
// TerminateIllegalWrapper handles them: the board is unchanged, the game ends, the mover gets
// -1 and the other agent 0, and both agents are terminated AND truncated (the wrapper sets both
// flags for every agent). The env-level flag is terminated (truncated stays false: no time
// limit cut the game short); the reward is -1. PettingZoo's agent_selection then points at the
// first agent (_deads_step_first), so slot 0 shows the legal moves of the unchanged board in
// its action_mask and slot 1 zeros, whoever moved.
// Reset: an empty board, slot 0 to move. Nothing is random (the Rng is not drawn from).
// Frames (render_mode="rgb_array"): PettingZoo's render() from its own pictures, read from the
// installed pettingzoo package at make (render/boards.h); kwargs as PettingZoo's, screen_height
// (TicTacToe) and screen_scaling (ConnectFour).
//
// State (get_state / set_state): [cell_0 .. cell_{rows*cols-1}, to_move, over]: the board in
// row-major order (0 empty, 1 slot 0's piece, 2 slot 1's), to_move the slot PettingZoo's
// agent_selection points at (0 or 1) and over 1 once the game has ended (0 while it goes on).
// Any board is accepted; the next move follows the rules from there as PettingZoo's would on
// the same board. Stepping an ended game (only reachable by set_state with over = 1) throws:
// the pool cuts that episode short and the next step starts a new game.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/agents.h"
#include "core/env.h"

namespace envpool::classic_games {

// How a move ended: the game goes on, or it is over with these rewards for slots 0 and 1.
struct MoveOutcome {
  bool over = false;
  double reward[2] = {0.0, 0.0};
};

// Game supplies:
//   static constexpr int kRows, kCols, kNumActions;
//   static constexpr const char* kName;                  // for error messages
//   static std::vector<std::string> AgentNames();
//   static MoveOutcome Play(std::array<int8_t, kRows * kCols>& board, int mover, int action);
// and its frames (render/): its PettingZoo render kwargs (AddRenderConfig), the frame's
// (height, width) for a config (FrameSize), PettingZoo's pictures (Pictures, LoadPictures) and
// Draw(board, size, pictures, rgb).
// Play is called with a legal action (board[action] == 0: the top row of connect four and the
// cell of tictactoe, so the action mask of both games is board[a] == 0 for a < kNumActions).
template <class Game>
class BoardGame : public Env {
 public:
  static constexpr int kRows = Game::kRows;
  static constexpr int kCols = Game::kCols;
  static constexpr int kCells = kRows * kCols;
  static constexpr int kNumActions = Game::kNumActions;
  using Board = std::array<int8_t, kCells>;

  // render_mode (set by make(render_mode=...)): "rgb_array" reads PettingZoo's pictures at make.
  static Config DefaultConfig() {
    Config config{{"render_mode", std::string()}};
    Game::AddRenderConfig(config);
    return config;
  }

  static EnvSpec Spec(const Config& config) {
    EnvSpec spec;
    spec.obs = {ArraySpec::Box("observation", DType::kInt8, {2, kRows, kCols, 2}, {0.0}, {1.0}),
                ArraySpec::Box("action_mask", DType::kInt8, {2, kNumActions}, {0.0}, {1.0})};
    spec.action = {ArraySpec{"action", DType::kInt64, {2}, {0.0}, {static_cast<double>(kNumActions - 1)}, true}};
    spec.obs_is_tuple = false;
    MultiAgentSpec(spec, Game::AgentNames(), {}, /*turn_based=*/true);
    std::tie(spec.render_height, spec.render_width) = Game::FrameSize(config);
    spec.render_fps = Game::kRenderFps;
    return spec;
  }

  explicit BoardGame(const Config& config) : frame_(Game::FrameSize(config)) {
    const std::string mode = config.Get<std::string>("render_mode");
    if (mode != "" && mode != "rgb_array") {
      throw std::invalid_argument("render_mode must be None or 'rgb_array', got '" + mode + "'");
    }
    if (mode == "rgb_array") pictures_ = Game::LoadPictures();  // no pettingzoo: the error comes at make
  }

  // PettingZoo's render() with render_mode="rgb_array" (render/boards.h).
  void Render(uint8_t* rgb) const override {
    if (!pictures_) throw std::logic_error("this env was made without render_mode='rgb_array'");
    Game::Draw(board_.data(), frame_, *pictures_, rgb);
  }

  void Reset(Rng& /*rng*/, Output& out) override {
    board_.fill(0);
    to_move_ = 0;
    over_ = false;
    const bool no[2] = {false, false};
    Write(out, MoveOutcome{}, no, no);
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    if (over_) {
      throw std::logic_error(std::string(Game::kName) + ": the game is over; a new one starts with the next step");
    }
    const int mover = to_move_;
    const int a = static_cast<int>(action.Get<int64_t>()[mover]);
    MoveOutcome outcome;
    bool terminated[2] = {false, false}, truncated[2] = {false, false};
    if (board_[static_cast<std::size_t>(a)] != 0) {
      // TerminateIllegalWrapper: the mover loses -1, everyone is terminated and truncated, and
      // agent_selection goes to the first agent (_deads_step_first).
      outcome.over = true;
      outcome.reward[mover] = -1.0;
      terminated[0] = terminated[1] = truncated[0] = truncated[1] = true;
      to_move_ = 0;
    } else {
      outcome = Game::Play(board_, mover, a);
      terminated[0] = terminated[1] = outcome.over;
      to_move_ = 1 - mover;  // PettingZoo's agent selector moves on after every move
    }
    over_ = outcome.over;
    out.reward() = outcome.reward[0] + outcome.reward[1];
    out.terminated() = outcome.over;
    Write(out, outcome, terminated, truncated);
  }

  std::vector<double> GetState() const override {
    std::vector<double> state(board_.begin(), board_.end());
    state.push_back(static_cast<double>(to_move_));
    state.push_back(over_ ? 1.0 : 0.0);
    return state;
  }

  void SetState(const std::vector<double>& state) override {
    CheckStateSize(state, kCells + 2);
    auto whole = [&](std::size_t k, double high, const std::string& what) {
      const double v = state[k];
      if (!(v >= 0.0 && v <= high && v == std::floor(v))) {
        throw std::invalid_argument(std::string(Game::kName) + ": state[" + std::to_string(k) + "] (" + what +
                                    ") must be an integer in [0, " + std::to_string(static_cast<int>(high)) +
                                    "], got " + std::to_string(v));
      }
      return static_cast<int>(v);
    };
    Board board{};
    for (int i = 0; i < kCells; ++i) {
      board[static_cast<std::size_t>(i)] = static_cast<int8_t>(whole(static_cast<std::size_t>(i), 2.0, "a cell"));
    }
    const int to_move = whole(kCells, 1.0, "to_move");
    const bool over = whole(kCells + 1, 1.0, "over") != 0;
    board_ = board;
    to_move_ = to_move;
    over_ = over;
  }

 private:
  void Write(Output& out, const MoveOutcome& outcome, const bool* terminated, const bool* truncated) const {
    int8_t* planes = out.Obs<int8_t>(0);
    int8_t* mask = out.Obs<int8_t>(1);
    for (int s = 0; s < 2; ++s) {
      const int8_t own = static_cast<int8_t>(s + 1), other = static_cast<int8_t>(2 - s);
      int8_t* p = planes + s * kCells * 2;
      for (int i = 0; i < kCells; ++i) {
        const int8_t cell = board_[static_cast<std::size_t>(i)];
        p[2 * i] = cell == own;
        p[2 * i + 1] = cell == other;
      }
      int8_t* m = mask + s * kNumActions;
      for (int a = 0; a < kNumActions; ++a) m[a] = s == to_move_ && board_[static_cast<std::size_t>(a)] == 0;
    }
    AgentRows rows(out);
    for (int s = 0; s < 2; ++s) {
      rows.reward[s] = outcome.reward[s];
      rows.terminated[s] = terminated[s];
      rows.truncated[s] = truncated[s];
      rows.active[s] = true;
      rows.needs_action[s] = !over_ && s == to_move_;
    }
  }

  Board board_{};
  int to_move_ = 0;
  bool over_ = false;
  std::pair<int, int> frame_;                        // (height, width)
  std::optional<typename Game::Pictures> pictures_;  // with render_mode="rgb_array"
};

}  // namespace envpool::classic_games
