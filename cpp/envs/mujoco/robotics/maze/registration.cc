// gymnasium-robotics 1.4.2's PointMaze and AntMaze ids: ten maps (gymnasium_robotics/envs/maze/
// maps.py), each sparse and Dense (reward_type), AntMaze as v3, v4 and v5, with the registry's
// time limits (PointMaze 300 / 600 / 800 steps for the open and U mazes / medium / large; AntMaze
// 700 / 1000 / 1000).
#include "envs/mujoco/robotics/registration.h"

#include "core/goals.h"
#include "envs/mujoco/robotics/maze/ant_maze.h"
#include "envs/mujoco/robotics/maze/point_maze.h"

namespace envpool::mujoco::robotics::maze {

namespace {

struct MazeMap {
  const char* name;
  int max_episode_steps;  // PointMaze's; AntMaze's: AntSteps
  std::vector<std::string> rows;
};

// maps.py, a character per cell (see maze.h).
const std::vector<MazeMap>& Maps() {
  static const std::vector<MazeMap> maps = {
      {"UMaze", 300, {"11111", "10001", "11101", "10001", "11111"}},
      {"Open", 300, {"1111111", "1000001", "1000001", "1000001", "1111111"}},
      {"Open_Diverse_G", 300, {"1111111", "1rgggg1", "1ggggg1", "1ggggg1", "1111111"}},
      {"Open_Diverse_GR", 300, {"1111111", "1ccccc1", "1ccccc1", "1ccccc1", "1111111"}},
      {"Medium", 600, {"11111111", "10011001", "10010001", "11000111", "10010001", "10100101", "10001001", "11111111"}},
      {"Medium_Diverse_G",
       600,
       {"11111111", "1r011001", "100100g1", "11000111", "10010001", "1g100101", "10001g01", "11111111"}},
      {"Medium_Diverse_GR",
       600,
       {"11111111", "1c011001", "100100c1", "11000111", "10010001", "1c100101", "10001c01", "11111111"}},
      {"Large",
       800,
       {"111111111111", "100001000001", "101101010101", "100000010001", "101111011101", "100101000001", "110101010111",
        "100100010001", "111111111111"}},
      {"Large_Diverse_G",
       800,
       {"111111111111", "1r0001g00001", "101101010101", "10000g0100g1", "101111011101", "10g101000001", "110101010111",
        "1001g0g10g01", "111111111111"}},
      {"Large_Diverse_GR",
       800,
       {"111111111111", "1c0001c00001", "101101010101", "10000c0100c1", "101111011101", "10c101000001", "110101010111",
        "1001c0c10c01", "111111111111"}},
  };
  return maps;
}

int AntSteps(const MazeMap& map) { return map.max_episode_steps == 300 ? 700 : 1000; }

}  // namespace

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> tasks;
  for (const char* reward_type : {"sparse", "dense"}) {
    const std::string suffix = std::string(reward_type) == "dense" ? "Dense" : "";
    for (const MazeMap& map : Maps()) {
      tasks.push_back(GoalTask<PointMaze>("PointMaze_" + std::string(map.name) + suffix + "-v3", map.max_episode_steps,
                                          NAN,
                                          Config{{"maze_map", map.rows}, {"reward_type", std::string(reward_type)}}));
    }
  }
  for (const char* reward_type : {"sparse", "dense"}) {
    const std::string suffix = std::string(reward_type) == "dense" ? "Dense" : "";
    for (const MazeMap& map : Maps()) {
      const std::string id = "AntMaze_" + std::string(map.name) + suffix;
      const Config kwargs{{"maze_map", map.rows}, {"reward_type", std::string(reward_type)}};
      tasks.push_back(GoalTask<AntMaze<AntMazeVersion::kV3>>(id + "-v3", AntSteps(map), NAN, kwargs));
      tasks.push_back(GoalTask<AntMaze<AntMazeVersion::kV4>>(id + "-v4", AntSteps(map), NAN, kwargs));
      tasks.push_back(GoalTask<AntMaze<AntMazeVersion::kV5>>(id + "-v5", AntSteps(map), NAN, kwargs));
    }
  }
  return tasks;
}

}  // namespace envpool::mujoco::robotics::maze
