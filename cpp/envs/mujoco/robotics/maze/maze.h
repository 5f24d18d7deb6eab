// The maze of gymnasium-robotics' PointMaze and AntMaze (gymnasium_robotics/envs/maze/maze_v4.py,
// Maze and MazeEnv): the map kwarg, the cells goals and resets are drawn from, the walls added to
// the agent's model, and the goal rules (reward, termination, the continuing task's new goals).
//
// maze_map is held as one string per row, a character per cell: '1' wall, '0' free, 'g' goal,
// 'r' reset, 'c' goal or reset (upstream's 1, 0, "g", "r", "c"; envpool.tasks converts the
// nested list gymnasium-robotics takes). Upstream writes the generated model to a temp file; here
// its text is compiled in memory (MuJoCo's VFS).
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/rng.h"
#include "core/spec.h"
#include "envs/mujoco/loader.h"
#include "envs/mujoco/robotics/goal_env.h"
#include "envs/mujoco/state.h"

namespace envpool::mujoco::robotics::maze {

using Xy = std::array<double, 2>;

// Goal radius of the reward, termination and success (maze_v4.py's 0.45).
inline constexpr double kGoalRadius = 0.45;

// update_target_site_pos: the target site (`site`; -1: the model has none) drawn at the goal,
// `z` up.
inline void MoveTargetSite(mjModel* m, int site, const Xy& goal, double z) {
  if (site < 0) return;
  m->site_pos[3 * site] = goal[0];
  m->site_pos[3 * site + 1] = goal[1];
  m->site_pos[3 * site + 2] = z;
}

// A maze env's state (get_state / set_state): envs/mujoco/state.h's full layout, then the goal.
inline std::vector<double> ReadStateWithGoal(const mjModel* m, const mjData* d, const Xy& goal) {
  std::vector<double> s = ReadState(m, d);
  s.insert(s.end(), goal.begin(), goal.end());
  return s;
}
// Writes the MuJoCo part of such a state; returns its goal.
inline Xy WriteStateWithGoal(const mjModel* m, mjData* d, const std::vector<double>& state) {
  CheckStateSize(state, FullStateSize(m) + 2);
  WriteState(m, d, std::vector<double>(state.begin(), state.end() - 2));
  return {state[state.size() - 2], state[state.size() - 1]};
}

// Python's repr of a float: the shortest text that reads back as the same double, which is what
// f"{x}" writes into upstream's XML (so MuJoCo parses the same values).
inline std::string PyFloat(double x) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, res.ptr);
}

class Maze {
 public:
  // Parses and checks maze_map (ValueErrors naming the key): rectangular, cells of "10grc", and
  // goal and reset cells from which upstream's draws end (it loops forever otherwise).
  Maze(const std::vector<std::string>& rows, double scaling, double height)
      : scaling_(scaling), height_(height), rows_(rows) {
    if (rows.empty() || rows[0].empty()) throw std::invalid_argument("maze_map must have at least one row and column");
    length_ = static_cast<int>(rows.size());
    width_ = static_cast<int>(rows[0].size());
    x_center_ = static_cast<double>(width_) / 2 * scaling;
    y_center_ = static_cast<double>(length_) / 2 * scaling;
    std::vector<Xy> combined, empty;
    for (int i = 0; i < length_; ++i) {
      if (static_cast<int>(rows[i].size()) != width_) {
        throw std::invalid_argument("maze_map must be rectangular: row 0 has " + std::to_string(width_) +
                                    " cells, row " + std::to_string(i) + " has " + std::to_string(rows[i].size()));
      }
      for (int j = 0; j < width_; ++j) {
        const Xy xy = CellXy(i, j);
        switch (rows[i][j]) {
          case '1':
            break;
          case 'r':
            resets_.push_back(xy);
            break;
          case 'g':
            goals_.push_back(xy);
            break;
          case 'c':
            combined.push_back(xy);
            break;
          case '0':
            empty.push_back(xy);
            break;
          default:
            throw std::invalid_argument("maze_map[" + std::to_string(i) + "][" + std::to_string(j) + "] is '" +
                                        std::string(1, rows[i][j]) +
                                        "': cells are 1 (wall), 0 (free), 'g' (goal), 'r' (reset) or 'c' (either)");
        }
      }
    }
    // Maze.make_maze: free cells stand in for the kinds the map does not mark.
    if (goals_.empty() && resets_.empty() && combined.empty()) {
      combined = empty;
    } else if (resets_.empty() && combined.empty()) {
      resets_ = empty;
    } else if (goals_.empty() && combined.empty()) {
      goals_ = empty;
    }
    goals_.insert(goals_.end(), combined.begin(), combined.end());
    resets_.insert(resets_.end(), combined.begin(), combined.end());
    if (goals_.empty()) throw std::invalid_argument("maze_map has no cell a goal can be placed in ('g', 'c' or 0)");
    if (resets_.empty()) throw std::invalid_argument("maze_map has no cell the agent can start in ('r', 'c' or 0)");
    // generate_reset_pos redraws while the reset cell is within 0.5 * scaling of the goal, which
    // is only ever its own cell (noise moves a goal at most 0.25 * sqrt(2) * scaling): each goal
    // cell needs a reset cell elsewhere.
    for (const Xy& g : goals_) {
      bool other = false;
      for (const Xy& r : resets_) other = other || r != g;
      if (!other) {
        throw std::invalid_argument(
            "maze_map: a goal can be drawn in a cell that is the only reset cell; the agent would have nowhere to "
            "start (gymnasium-robotics loops forever there)");
      }
    }
  }

  int length() const { return length_; }  // rows (upstream's map_length)
  int width() const { return width_; }
  double scaling() const { return scaling_; }
  double height() const { return height_; }
  const std::vector<Xy>& goals() const { return goals_; }
  const std::vector<Xy>& resets() const { return resets_; }

  // Maze.cell_rowcol_to_xy.
  Xy CellXy(int i, int j) const { return {(j + 0.5) * scaling_ - x_center_, y_center_ - (i + 0.5) * scaling_}; }

  // The elements make_maze appends to the agent's worldbody: a box per wall cell, then the
  // target site.
  std::string WorldbodyXml() const {
    std::string xml;
    const std::string half = PyFloat(0.5 * scaling_), z = PyFloat(height_ / 2 * scaling_);
    for (int i = 0; i < length_; ++i) {
      for (int j = 0; j < width_; ++j) {
        if (rows_[i][j] != '1') continue;
        const Xy xy = CellXy(i, j);
        xml += "<geom name=\"block_" + std::to_string(i) + "_" + std::to_string(j) + "\" pos=\"" + PyFloat(xy[0]) +
               " " + PyFloat(xy[1]) + " " + z + "\" size=\"" + half + " " + half + " " + z +
               "\" type=\"box\" material=\"\" contype=\"1\" conaffinity=\"1\" rgba=\"0.7 0.5 0.3 1.0\" />\n";
      }
    }
    xml += "<site name=\"target\" pos=\"0 0 " + z + "\" size=\"" + PyFloat(0.2 * scaling_) +
           "\" rgba=\"1 0 0 0.7\" type=\"sphere\" />\n";
    return xml;
  }

  // MazeEnv.generate_target_goal + add_xy_position_noise: a goal cell, then x and y noise.
  Xy DrawGoal(Rng& rng, double noise) const { return AddNoise(rng, goals_[rng.Below(goals_.size())], noise); }

  // MazeEnv.generate_reset_pos: reset cells until one is more than `min_distance` from `goal`
  // (maze_v4: 0.5 * scaling; maze.py, AntMaze-v3's: 0.5).
  Xy DrawResetCell(Rng& rng, const Xy& goal, double min_distance) const {
    Xy pos = goal;
    while (GoalDistance(pos.data(), goal.data(), 2) <= min_distance) pos = resets_[rng.Below(resets_.size())];
    return pos;
  }

  Xy AddNoise(Rng& rng, Xy xy, double noise) const {
    const double nx = rng.Uniform(-noise, noise) * scaling_;
    const double ny = rng.Uniform(-noise, noise) * scaling_;
    xy[0] += nx;
    xy[1] += ny;
    return xy;
  }

 private:
  double scaling_, height_;
  std::vector<std::string> rows_;
  int length_ = 0, width_ = 0;
  double x_center_ = 0, y_center_ = 0;
  std::vector<Xy> goals_, resets_;
};

// The agent's model file with the maze's walls and target appended to its worldbody, compiled
// through MuJoCo's VFS; once per process and distinct text, then shared read-only (each env copies
// it: the target site moves with its goal).
inline std::shared_ptr<const mjModel> MazeModel(const std::filesystem::path& path, const Maze& maze) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const mjModel>> cache;
  std::string xml = ReadTextFile(path);
  const std::size_t end = xml.rfind("</worldbody>");
  if (end == std::string::npos) throw std::runtime_error(path.string() + " has no </worldbody>");
  xml.insert(end, maze.WorldbodyXml());
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(xml); it != cache.end()) return it->second;
  const MjApi& mj = Mj();
  mjVFS vfs;
  mj.defaultVFS(&vfs);
  const char* name = "envpool_maze.xml";
  if (mj.addBufferVFS(&vfs, name, xml.data(), static_cast<int>(xml.size())) != 0) {
    mj.deleteVFS(&vfs);
    throw std::runtime_error("MuJoCo could not add the maze model to its virtual file system");
  }
  char error[1024] = "";
  mjModel* m = mj.loadXML(name, &vfs, error, sizeof(error));
  mj.deleteVFS(&vfs);
  if (!m) throw std::invalid_argument("MuJoCo cannot load the maze built on " + path.string() + ": " + error);
  std::shared_ptr<const mjModel> model(m, [](const mjModel* p) { Mj().deleteModel(const_cast<mjModel*>(p)); });
  cache.emplace(std::move(xml), model);
  return model;
}

// maze_v4.MazeEnv's goal rules, shared by the PointMaze and AntMaze classes.
struct GoalRules {
  static RewardType Check(const Config& config) {
    Maze(config.Get<std::vector<std::string>>("maze_map"), 1.0, 1.0);  // throws on a bad map
    return ParseRewardType(config);
  }
  // compute_reward: exp(-d) (dense) or d <= 0.45 (sparse), d = |achieved - desired|.
  static double Reward(RewardType type, const double* achieved, const double* desired) {
    const double d = GoalDistance(achieved, desired, 2);
    return type == RewardType::kDense ? std::exp(-d) : (d <= kGoalRadius ? 1.0 : 0.0);
  }
  static bool Reached(const double* achieved, const double* desired) {
    return GoalDistance(achieved, desired, 2) <= kGoalRadius;
  }

  // The GoalTask<E> functions (core/goals.h).
  static int GoalSize(const Config&) { return 2; }
  static std::vector<std::string> GoalConfigKeys() { return {"reward_type", "continuing_task"}; }
  static void ComputeReward(const Config& config, const double* a, const double* d, std::size_t n, double* out) {
    const RewardType type = ParseRewardType(config);
    for (std::size_t i = 0; i < n; ++i) out[i] = Reward(type, a + 2 * i, d + 2 * i);
  }
  // compute_terminated: reaching the goal ends the episode unless the task is continuing.
  static void ComputeTerminated(const Config& config, const double* a, const double* d, std::size_t n, double* out) {
    const bool continuing = config.Get<bool>("continuing_task");
    for (std::size_t i = 0; i < n; ++i) out[i] = !continuing && Reached(a + 2 * i, d + 2 * i) ? 1.0 : 0.0;
  }
  static void ComputeTruncated(const Config&, const double*, const double*, std::size_t n, double* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = 0.0;
  }
};

}  // namespace envpool::mujoco::robotics::maze
