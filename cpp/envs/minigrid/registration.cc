// The MiniGrid tasks (minigrid 3.2.0's ids, bit for bit): each id with the kwargs minigrid
// registers it with. minigrid registers no TimeLimit: each env truncates itself at its
// max_steps, so max_episode_steps is 0 here. A new env of this family: its header here, the
// #include and its Task<> entries. Every id also takes AddCommonKwargs's kwargs (minigrid_env.h).
#include <cmath>

#include "core/registry.h"
#include "envs/builtin_tasks.h"
#include "envs/minigrid/babyai_goto.h"
#include "envs/minigrid/babyai_levelgen.h"
#include "envs/minigrid/babyai_open.h"
#include "envs/minigrid/babyai_other.h"
#include "envs/minigrid/babyai_pickup.h"
#include "envs/minigrid/babyai_unlock.h"
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

Config Local(int64_t room_size, int64_t num_dists) { return {{"room_size", room_size}, {"num_dists", num_dists}}; }

Config Dims(int64_t room_size, int64_t num_rows, int64_t num_cols, int64_t num_dists) {
  return {{"room_size", room_size}, {"num_rows", num_rows}, {"num_cols", num_cols}, {"num_dists", num_dists}};
}

Config RedBlue(bool strict) {
  return {{"first_color", std::string("red")}, {"second_color", std::string("blue")}, {"strict", strict}};
}

Config PutNextKw(int64_t room_size, int64_t objs_per_room, bool start_carrying) {
  return {{"room_size", room_size}, {"objs_per_room", objs_per_room}, {"start_carrying", start_carrying}};
}

Config Hidden(bool key_in_box, bool blocked) { return {{"key_in_box", key_in_box}, {"blocked", blocked}}; }

// ObstructedMaze_Full's kwargs: agent_room, key_in_box, blocked, num_quarters, num_rooms_visited.
Config Maze(int64_t room_i, int64_t room_j, bool key_in_box, bool blocked, int64_t quarters, int64_t visited) {
  return {{"agent_room", std::vector<double>{static_cast<double>(room_i), static_cast<double>(room_j)}},
          {"key_in_box", key_in_box},
          {"blocked", blocked},
          {"num_quarters", quarters},
          {"num_rooms_visited", visited}};
}

}  // namespace

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
      Task<BabyAIGoToRedBallGrey>("BabyAI-GoToRedBallGrey-v0", 0),
      Task<BabyAIGoToRedBall>("BabyAI-GoToRedBall-v0", 0),
      Task<BabyAIGoToRedBallNoDists>("BabyAI-GoToRedBallNoDists-v0", 0),
      Task<BabyAIGoToObj>("BabyAI-GoToObj-v0", 0),
      Task<BabyAIGoToObj>("BabyAI-GoToObjS4-v0", 0, NAN, {{"room_size", int64_t{4}}}),
      Task<BabyAIGoToObj>("BabyAI-GoToObjS6-v1", 0, NAN, {{"room_size", int64_t{6}}}),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocal-v0", 0),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS5N2-v0", 0, NAN, Local(5, 2)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS6N2-v0", 0, NAN, Local(6, 2)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS6N3-v0", 0, NAN, Local(6, 3)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS6N4-v0", 0, NAN, Local(6, 4)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS7N4-v0", 0, NAN, Local(7, 4)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS7N5-v0", 0, NAN, Local(7, 5)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS8N2-v0", 0, NAN, Local(8, 2)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS8N3-v0", 0, NAN, Local(8, 3)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS8N4-v0", 0, NAN, Local(8, 4)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS8N5-v0", 0, NAN, Local(8, 5)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS8N6-v0", 0, NAN, Local(8, 6)),
      Task<BabyAIGoToLocal>("BabyAI-GoToLocalS8N7-v0", 0, NAN, Local(8, 7)),
      Task<BabyAIGoToMaze>("BabyAI-GoTo-v0", 0),
      Task<BabyAIGoToMaze>("BabyAI-GoToOpen-v0", 0, NAN, {{"doors_open", true}}),
      Task<BabyAIGoToMaze>("BabyAI-GoToObjMaze-v0", 0, NAN, {{"num_dists", int64_t{1}}}),
      Task<BabyAIGoToMaze>("BabyAI-GoToObjMazeOpen-v0", 0, NAN, {{"num_dists", int64_t{1}}, {"doors_open", true}}),
      Task<BabyAIGoToMaze>(
          "BabyAI-GoToObjMazeS4R2-v0", 0, NAN,
          {{"num_dists", int64_t{1}}, {"room_size", int64_t{4}}, {"num_rows", int64_t{2}}, {"num_cols", int64_t{2}}}),
      Task<BabyAIGoToMaze>("BabyAI-GoToObjMazeS4-v0", 0, NAN, Local(4, 1)),
      Task<BabyAIGoToMaze>("BabyAI-GoToObjMazeS5-v0", 0, NAN, Local(5, 1)),
      Task<BabyAIGoToMaze>("BabyAI-GoToObjMazeS6-v0", 0, NAN, Local(6, 1)),
      Task<BabyAIGoToMaze>("BabyAI-GoToObjMazeS7-v0", 0, NAN, Local(7, 1)),
      Task<BabyAIGoToRedBlueBall>("BabyAI-GoToRedBlueBall-v0", 0),
      Task<BabyAIGoToDoor>("BabyAI-GoToDoor-v0", 0),
      Task<BabyAIGoToObjDoor>("BabyAI-GoToObjDoor-v0", 0),
      Task<BabyAIGoToImpUnlock>("BabyAI-GoToImpUnlock-v0", 0),
      Task<BabyAIGoToSeq>("BabyAI-GoToSeq-v0", 0),
      Task<BabyAIGoToSeq>("BabyAI-GoToSeqS5R2-v0", 0, NAN, Dims(5, 2, 2, 4)),
      Task<BabyAIOpen>("BabyAI-Open-v0", 0),
      Task<BabyAIOpenRedDoor>("BabyAI-OpenRedDoor-v0", 0),
      Task<BabyAIOpenDoor>("BabyAI-OpenDoor-v0", 0),
      Task<BabyAIOpenDoor>("BabyAI-OpenDoorDebug-v0", 0, NAN, {{"debug", true}}),
      Task<BabyAIOpenDoor>("BabyAI-OpenDoorColor-v0", 0, NAN, {{"select_by", std::string("color")}}),
      Task<BabyAIOpenDoor>("BabyAI-OpenDoorLoc-v0", 0, NAN, {{"select_by", std::string("loc")}}),
      Task<BabyAIOpenTwoDoors>("BabyAI-OpenTwoDoors-v0", 0),
      Task<BabyAIOpenTwoDoors>("BabyAI-OpenRedBlueDoors-v0", 0, NAN, RedBlue(false)),
      Task<BabyAIOpenTwoDoors>("BabyAI-OpenRedBlueDoorsDebug-v0", 0, NAN, RedBlue(true)),
      Task<BabyAIOpenDoorsOrder>("BabyAI-OpenDoorsOrderN2-v0", 0, NAN, {{"num_doors", int64_t{2}}}),
      Task<BabyAIOpenDoorsOrder>("BabyAI-OpenDoorsOrderN4-v0", 0, NAN, {{"num_doors", int64_t{4}}}),
      Task<BabyAIOpenDoorsOrder>("BabyAI-OpenDoorsOrderN2Debug-v0", 0, NAN,
                                 {{"num_doors", int64_t{2}}, {"debug", true}}),
      Task<BabyAIOpenDoorsOrder>("BabyAI-OpenDoorsOrderN4Debug-v0", 0, NAN,
                                 {{"num_doors", int64_t{4}}, {"debug", true}}),
      Task<BabyAIPickup>("BabyAI-Pickup-v0", 0),
      Task<BabyAIUnblockPickup>("BabyAI-UnblockPickup-v0", 0),
      Task<BabyAIPickupLoc>("BabyAI-PickupLoc-v0", 0),
      Task<BabyAIPickupDist>("BabyAI-PickupDist-v0", 0),
      Task<BabyAIPickupDist>("BabyAI-PickupDistDebug-v0", 0, NAN, {{"debug", true}}),
      Task<BabyAIPickupAbove>("BabyAI-PickupAbove-v0", 0),
      Task<BabyAIPutNextLocal>("BabyAI-PutNextLocal-v0", 0),
      Task<BabyAIPutNextLocal>("BabyAI-PutNextLocalS5N3-v0", 0, NAN,
                               {{"room_size", int64_t{5}}, {"num_objs", int64_t{3}}}),
      Task<BabyAIPutNextLocal>("BabyAI-PutNextLocalS6N4-v0", 0, NAN,
                               {{"room_size", int64_t{6}}, {"num_objs", int64_t{4}}}),
      Task<BabyAIPutNext>("BabyAI-PutNextS4N1-v0", 0, NAN, PutNextKw(4, 1, false)),
      Task<BabyAIPutNext>("BabyAI-PutNextS5N2-v0", 0, NAN, PutNextKw(5, 2, false)),
      Task<BabyAIPutNext>("BabyAI-PutNextS5N1-v0", 0, NAN, PutNextKw(5, 1, false)),
      Task<BabyAIPutNext>("BabyAI-PutNextS6N3-v0", 0, NAN, PutNextKw(6, 3, false)),
      Task<BabyAIPutNext>("BabyAI-PutNextS7N4-v0", 0, NAN, PutNextKw(7, 4, false)),
      Task<BabyAIPutNext>("BabyAI-PutNextS5N2Carrying-v0", 0, NAN, PutNextKw(5, 2, true)),
      Task<BabyAIPutNext>("BabyAI-PutNextS6N3Carrying-v0", 0, NAN, PutNextKw(6, 3, true)),
      Task<BabyAIPutNext>("BabyAI-PutNextS7N4Carrying-v0", 0, NAN, PutNextKw(7, 4, true)),
      Task<BabyAIUnlock>("BabyAI-Unlock-v0", 0),
      Task<BabyAIUnlockLocal>("BabyAI-UnlockLocal-v0", 0),
      Task<BabyAIUnlockLocal>("BabyAI-UnlockLocalDist-v0", 0, NAN, {{"distractors", true}}),
      Task<BabyAIKeyInBox>("BabyAI-KeyInBox-v0", 0),
      Task<BabyAIUnlockPickup>("BabyAI-UnlockPickup-v0", 0),
      Task<BabyAIUnlockPickup>("BabyAI-UnlockPickupDist-v0", 0, NAN, {{"distractors", true}}),
      Task<BabyAIBlockedUnlockPickup>("BabyAI-BlockedUnlockPickup-v0", 0),
      Task<BabyAIUnlockToUnlock>("BabyAI-UnlockToUnlock-v0", 0),
      Task<BabyAIActionObjDoor>("BabyAI-ActionObjDoor-v0", 0),
      Task<BabyAIFindObj>("BabyAI-FindObjS5-v0", 0),
      Task<BabyAIFindObj>("BabyAI-FindObjS6-v0", 0, NAN, {{"room_size", int64_t{6}}}),
      Task<BabyAIFindObj>("BabyAI-FindObjS7-v0", 0, NAN, {{"room_size", int64_t{7}}}),
      Task<BabyAIKeyCorridor>("BabyAI-KeyCorridor-v0", 0),
      Task<BabyAIKeyCorridor>("BabyAI-KeyCorridorS3R1-v0", 0, NAN, Corridor(3, 1)),
      Task<BabyAIKeyCorridor>("BabyAI-KeyCorridorS3R2-v0", 0, NAN, Corridor(3, 2)),
      Task<BabyAIKeyCorridor>("BabyAI-KeyCorridorS3R3-v0", 0, NAN, Corridor(3, 3)),
      Task<BabyAIKeyCorridor>("BabyAI-KeyCorridorS4R3-v0", 0, NAN, Corridor(4, 3)),
      Task<BabyAIKeyCorridor>("BabyAI-KeyCorridorS5R3-v0", 0, NAN, Corridor(5, 3)),
      Task<BabyAIKeyCorridor>("BabyAI-KeyCorridorS6R3-v0", 0, NAN, Corridor(6, 3)),
      Task<BabyAIOneRoom>("BabyAI-OneRoomS8-v0", 0),
      Task<BabyAIOneRoom>("BabyAI-OneRoomS12-v0", 0, NAN, {{"room_size", int64_t{12}}}),
      Task<BabyAIOneRoom>("BabyAI-OneRoomS16-v0", 0, NAN, {{"room_size", int64_t{16}}}),
      Task<BabyAIOneRoom>("BabyAI-OneRoomS20-v0", 0, NAN, {{"room_size", int64_t{20}}}),
      Task<BabyAIMoveTwoAcross>("BabyAI-MoveTwoAcrossS5N2-v0", 0, NAN,
                                {{"room_size", int64_t{5}}, {"objs_per_room", int64_t{2}}}),
      Task<BabyAIMoveTwoAcross>("BabyAI-MoveTwoAcrossS8N9-v0", 0, NAN,
                                {{"room_size", int64_t{8}}, {"objs_per_room", int64_t{9}}}),
      Task<BabyAISynth>("BabyAI-Synth-v0", 0),
      Task<BabyAISynth>("BabyAI-SynthS5R2-v0", 0, NAN, {{"room_size", int64_t{5}}, {"num_rows", int64_t{2}}}),
      Task<BabyAISynthLoc>("BabyAI-SynthLoc-v0", 0),
      Task<BabyAISynthSeq>("BabyAI-SynthSeq-v0", 0),
      Task<BabyAIMiniBossLevel>("BabyAI-MiniBossLevel-v0", 0),
      Task<BabyAIBossLevel>("BabyAI-BossLevel-v0", 0),
      Task<BabyAIBossLevelNoUnlock>("BabyAI-BossLevelNoUnlock-v0", 0),
  };
  // Every id also takes MiniGridEnv's rendering kwargs and the observation wrappers.
  for (auto& task : tasks) AddCommonKwargs(task.defaults);
  return tasks;
}

}  // namespace envpool::minigrid
