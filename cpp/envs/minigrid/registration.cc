// The MiniGrid tasks (minigrid 3.2.0's ids, bit for bit): each id with the kwargs minigrid
// registers it with. minigrid registers no TimeLimit: each env truncates itself at its
// max_steps, so max_episode_steps is 0 here. A new env of this family: its header here, the
// #include and its Task<> entries. Every id also takes AddCommonKwargs's kwargs (minigrid_env.h).
#include <cmath>
#include <string>
#include <utility>

#include "core/registry.h"
#include "envs/minigrid/crossing.h"
#include "envs/minigrid/dist_shift.h"
#include "envs/minigrid/door_key.h"
#include "envs/minigrid/dynamic_obstacles.h"
#include "envs/minigrid/empty.h"
#include "envs/minigrid/fetch.h"
#include "envs/minigrid/four_rooms.h"
#include "envs/minigrid/go_to_door.h"
#include "envs/minigrid/go_to_object.h"
#include "envs/minigrid/key_corridor.h"
#include "envs/minigrid/lava_gap.h"
#include "envs/minigrid/locked_room.h"
#include "envs/minigrid/memory.h"
#include "envs/minigrid/multi_room.h"
#include "envs/minigrid/obstructed_maze.h"
#include "envs/minigrid/playground.h"
#include "envs/minigrid/put_near.h"
#include "envs/minigrid/red_blue_doors.h"
#include "envs/minigrid/unlock.h"
#include "envs/minigrid/wfc.h"

namespace envpool::minigrid {
namespace {

Config Rooms(int64_t min_rooms, int64_t max_rooms, int64_t max_room_size) {
  return {{"minNumRooms", min_rooms}, {"maxNumRooms", max_rooms}, {"maxRoomSize", max_room_size}};
}

Config Obstacles(int64_t size, int64_t n_obstacles, bool random_start = false) {
  Config c{{"size", size}, {"n_obstacles", n_obstacles}};
  if (random_start) c.Set("agent_start_pos", std::vector<double>{});
  return c;
}

Config Corridor(int64_t room_size, int64_t num_rows) { return {{"room_size", room_size}, {"num_rows", num_rows}}; }

Config Hidden(bool key_in_box, bool blocked) { return {{"key_in_box", key_in_box}, {"blocked", blocked}}; }

// ObstructedMaze_Full's kwargs: agent_room, key_in_box, blocked, num_quarters, num_rooms_visited.
Config Maze(int64_t room_i, int64_t room_j, bool key_in_box, bool blocked, int64_t quarters, int64_t visited) {
  return {{"agent_room", std::vector<double>{static_cast<double>(room_i), static_cast<double>(room_j)}},
          {"key_in_box", key_in_box},
          {"blocked", blocked},
          {"num_quarters", quarters},
          {"num_rooms_visited", visited}};
}

Config Preset(const char* name) { return {{"wfc_config", std::string(name)}}; }

}  // namespace

// The BabyAI-* ids: babyai_registration.cc (their own translation unit, which compiles beside
// this one).
std::vector<TaskSpec> BabyAITasks();

std::vector<TaskSpec> Tasks() {
  const auto random_start = std::vector<double>{};
  std::vector<TaskSpec> tasks = {
      Task<Empty>("MiniGrid-Empty-5x5-v0", 0, NAN, {{"size", int64_t{5}}}),
      Task<Empty>("MiniGrid-Empty-Random-5x5-v0", 0, NAN, {{"size", int64_t{5}}, {"agent_start_pos", random_start}}),
      Task<Empty>("MiniGrid-Empty-6x6-v0", 0, NAN, {{"size", int64_t{6}}}),
      Task<Empty>("MiniGrid-Empty-Random-6x6-v0", 0, NAN, {{"size", int64_t{6}}, {"agent_start_pos", random_start}}),
      Task<Empty>("MiniGrid-Empty-8x8-v0", 0),
      Task<Empty>("MiniGrid-Empty-16x16-v0", 0, NAN, {{"size", int64_t{16}}}),
      Task<DoorKey>("MiniGrid-DoorKey-5x5-v0", 0, NAN, {{"size", int64_t{5}}}),
      Task<DoorKey>("MiniGrid-DoorKey-6x6-v0", 0, NAN, {{"size", int64_t{6}}}),
      Task<DoorKey>("MiniGrid-DoorKey-8x8-v0", 0, NAN, {{"size", int64_t{8}}}),
      Task<DoorKey>("MiniGrid-DoorKey-16x16-v0", 0, NAN, {{"size", int64_t{16}}}),
      Task<FourRooms>("MiniGrid-FourRooms-v0", 0),
      Task<LavaGap>("MiniGrid-LavaGapS5-v0", 0, NAN, {{"size", int64_t{5}}}),
      Task<LavaGap>("MiniGrid-LavaGapS6-v0", 0, NAN, {{"size", int64_t{6}}}),
      Task<LavaGap>("MiniGrid-LavaGapS7-v0", 0, NAN, {{"size", int64_t{7}}}),
      Task<Crossing>("MiniGrid-LavaCrossingS9N1-v0", 0, NAN, {{"size", int64_t{9}}, {"num_crossings", int64_t{1}}}),
      Task<Crossing>("MiniGrid-LavaCrossingS9N2-v0", 0, NAN, {{"size", int64_t{9}}, {"num_crossings", int64_t{2}}}),
      Task<Crossing>("MiniGrid-LavaCrossingS9N3-v0", 0, NAN, {{"size", int64_t{9}}, {"num_crossings", int64_t{3}}}),
      Task<Crossing>("MiniGrid-LavaCrossingS11N5-v0", 0, NAN, {{"size", int64_t{11}}, {"num_crossings", int64_t{5}}}),
      Task<Crossing>("MiniGrid-SimpleCrossingS9N1-v0", 0, NAN,
                     {{"size", int64_t{9}}, {"num_crossings", int64_t{1}}, {"obstacle_type", std::string("wall")}}),
      Task<Crossing>("MiniGrid-SimpleCrossingS9N2-v0", 0, NAN,
                     {{"size", int64_t{9}}, {"num_crossings", int64_t{2}}, {"obstacle_type", std::string("wall")}}),
      Task<Crossing>("MiniGrid-SimpleCrossingS9N3-v0", 0, NAN,
                     {{"size", int64_t{9}}, {"num_crossings", int64_t{3}}, {"obstacle_type", std::string("wall")}}),
      Task<Crossing>("MiniGrid-SimpleCrossingS11N5-v0", 0, NAN,
                     {{"size", int64_t{11}}, {"num_crossings", int64_t{5}}, {"obstacle_type", std::string("wall")}}),
      Task<MultiRoom>("MiniGrid-MultiRoom-N2-S4-v0", 0, NAN, Rooms(2, 2, 4)),
      Task<MultiRoom>("MiniGrid-MultiRoom-N4-S5-v0", 0, NAN, Rooms(6, 6, 5)),  // sic: minigrid's N4-S5-v0 has 6 rooms
      Task<MultiRoom>("MiniGrid-MultiRoom-N4-S5-v1", 0, NAN, Rooms(4, 4, 5)),
      Task<MultiRoom>("MiniGrid-MultiRoom-N6-v0", 0, NAN, Rooms(6, 6, 10)),
      Task<DistShift>("MiniGrid-DistShift1-v0", 0, NAN, {{"strip2_row", int64_t{2}}}),
      Task<DistShift>("MiniGrid-DistShift2-v0", 0, NAN, {{"strip2_row", int64_t{5}}}),
      Task<DynamicObstacles>("MiniGrid-Dynamic-Obstacles-5x5-v0", 0, NAN, Obstacles(5, 2)),
      Task<DynamicObstacles>("MiniGrid-Dynamic-Obstacles-Random-5x5-v0", 0, NAN, Obstacles(5, 2, true)),
      Task<DynamicObstacles>("MiniGrid-Dynamic-Obstacles-6x6-v0", 0, NAN, Obstacles(6, 3)),
      Task<DynamicObstacles>("MiniGrid-Dynamic-Obstacles-Random-6x6-v0", 0, NAN, Obstacles(6, 3, true)),
      Task<DynamicObstacles>("MiniGrid-Dynamic-Obstacles-8x8-v0", 0),
      Task<DynamicObstacles>("MiniGrid-Dynamic-Obstacles-16x16-v0", 0, NAN, Obstacles(16, 8)),
      Task<GoToDoor>("MiniGrid-GoToDoor-5x5-v0", 0),
      Task<GoToDoor>("MiniGrid-GoToDoor-6x6-v0", 0, NAN, {{"size", int64_t{6}}}),
      Task<GoToDoor>("MiniGrid-GoToDoor-8x8-v0", 0, NAN, {{"size", int64_t{8}}}),
      Task<RedBlueDoors>("MiniGrid-RedBlueDoors-6x6-v0", 0, NAN, {{"size", int64_t{6}}}),
      Task<RedBlueDoors>("MiniGrid-RedBlueDoors-8x8-v0", 0),
      Task<Fetch>("MiniGrid-Fetch-5x5-N2-v0", 0, NAN, {{"size", int64_t{5}}, {"numObjs", int64_t{2}}}),
      Task<Fetch>("MiniGrid-Fetch-6x6-N2-v0", 0, NAN, {{"size", int64_t{6}}, {"numObjs", int64_t{2}}}),
      Task<Fetch>("MiniGrid-Fetch-8x8-N3-v0", 0),
      Task<GoToObject>("MiniGrid-GoToObject-6x6-N2-v0", 0),
      Task<GoToObject>("MiniGrid-GoToObject-8x8-N2-v0", 0, NAN, {{"size", int64_t{8}}, {"numObjs", int64_t{2}}}),
      Task<Unlock>("MiniGrid-Unlock-v0", 0),
      Task<UnlockPickup>("MiniGrid-UnlockPickup-v0", 0),
      Task<BlockedUnlockPickup>("MiniGrid-BlockedUnlockPickup-v0", 0),
      Task<KeyCorridor>("MiniGrid-KeyCorridorS3R1-v0", 0, NAN, Corridor(3, 1)),
      Task<KeyCorridor>("MiniGrid-KeyCorridorS3R2-v0", 0, NAN, Corridor(3, 2)),
      Task<KeyCorridor>("MiniGrid-KeyCorridorS3R3-v0", 0, NAN, Corridor(3, 3)),
      Task<KeyCorridor>("MiniGrid-KeyCorridorS4R3-v0", 0, NAN, Corridor(4, 3)),
      Task<KeyCorridor>("MiniGrid-KeyCorridorS5R3-v0", 0, NAN, Corridor(5, 3)),
      Task<KeyCorridor>("MiniGrid-KeyCorridorS6R3-v0", 0, NAN, Corridor(6, 3)),
      Task<Memory>("MiniGrid-MemoryS17Random-v0", 0, NAN, {{"size", int64_t{17}}, {"random_length", true}}),
      Task<Memory>("MiniGrid-MemoryS13Random-v0", 0, NAN, {{"size", int64_t{13}}, {"random_length", true}}),
      Task<Memory>("MiniGrid-MemoryS13-v0", 0, NAN, {{"size", int64_t{13}}}),
      Task<Memory>("MiniGrid-MemoryS11-v0", 0, NAN, {{"size", int64_t{11}}}),
      Task<Memory>("MiniGrid-MemoryS9-v0", 0, NAN, {{"size", int64_t{9}}}),
      Task<Memory>("MiniGrid-MemoryS7-v0", 0, NAN, {{"size", int64_t{7}}}),
      Task<PutNear>("MiniGrid-PutNear-6x6-N2-v0", 0),
      Task<PutNear>("MiniGrid-PutNear-8x8-N3-v0", 0, NAN, {{"size", int64_t{8}}, {"numObjs", int64_t{3}}}),
      Task<LockedRoom>("MiniGrid-LockedRoom-v0", 0),
      Task<Playground>("MiniGrid-Playground-v0", 0),
      Task<ObstructedMaze1Dlhb>("MiniGrid-ObstructedMaze-1Dl-v0", 0, NAN, Hidden(false, false)),
      Task<ObstructedMaze1Dlhb>("MiniGrid-ObstructedMaze-1Dlh-v0", 0, NAN, Hidden(true, false)),
      Task<ObstructedMaze1Dlhb>("MiniGrid-ObstructedMaze-1Dlhb-v0", 0),
      Task<ObstructedMazeFull>("MiniGrid-ObstructedMaze-2Dl-v0", 0, NAN, Maze(2, 1, false, false, 1, 4)),
      Task<ObstructedMazeFull>("MiniGrid-ObstructedMaze-2Dlh-v0", 0, NAN, Maze(2, 1, true, false, 1, 4)),
      Task<ObstructedMazeFull>("MiniGrid-ObstructedMaze-2Dlhb-v0", 0, NAN, Maze(2, 1, true, true, 1, 4)),
      Task<ObstructedMazeFull>("MiniGrid-ObstructedMaze-1Q-v0", 0, NAN, Maze(1, 1, true, true, 1, 5)),
      Task<ObstructedMazeFull>("MiniGrid-ObstructedMaze-2Q-v0", 0, NAN, Maze(2, 1, true, true, 2, 11)),
      Task<ObstructedMazeFull>("MiniGrid-ObstructedMaze-Full-v0", 0),
      Task<ObstructedMazeFullV1>("MiniGrid-ObstructedMaze-2Dlhb-v1", 0, NAN, Maze(2, 1, true, true, 1, 4)),
      Task<ObstructedMazeFullV1>("MiniGrid-ObstructedMaze-1Q-v1", 0, NAN, Maze(1, 1, true, true, 1, 5)),
      Task<ObstructedMazeFullV1>("MiniGrid-ObstructedMaze-2Q-v1", 0, NAN, Maze(2, 1, true, true, 2, 11)),
      Task<ObstructedMazeFullV1>("MiniGrid-ObstructedMaze-Full-v1", 0),
      Task<WFC>("MiniGrid-WFC-MazeSimple-v0", 0, NAN, Preset("MazeSimple")),
      Task<WFC>("MiniGrid-WFC-DungeonMazeScaled-v0", 0, NAN, Preset("DungeonMazeScaled")),
      Task<WFC>("MiniGrid-WFC-RoomsFabric-v0", 0, NAN, Preset("RoomsFabric")),
      Task<WFC>("MiniGrid-WFC-ObstaclesBlackdots-v0", 0, NAN, Preset("ObstaclesBlackdots")),
      Task<WFC>("MiniGrid-WFC-ObstaclesAngular-v0", 0, NAN, Preset("ObstaclesAngular")),
      Task<WFC>("MiniGrid-WFC-ObstaclesHogs3-v0", 0, NAN, Preset("ObstaclesHogs3")),
  };
  for (auto& task : BabyAITasks()) tasks.push_back(std::move(task));
  // Every id also takes MiniGridEnv's rendering kwargs and the observation wrappers.
  for (auto& task : tasks) AddCommonKwargs(task.defaults);
  return tasks;
}

}  // namespace envpool::minigrid
