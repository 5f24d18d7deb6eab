// The BabyAI tasks (minigrid 3.2.0's BabyAI-* ids, bit for bit): each id with the kwargs minigrid
// registers it with; registration.cc lists them with the MiniGrid ids (and adds the kwargs every
// id takes). A file of their own so that the family's two halves compile side by side.
#include <cmath>
#include <string>
#include <vector>

#include "core/registry.h"
#include "envs/minigrid/babyai_goto.h"
#include "envs/minigrid/babyai_levelgen.h"
#include "envs/minigrid/babyai_open.h"
#include "envs/minigrid/babyai_other.h"
#include "envs/minigrid/babyai_pickup.h"
#include "envs/minigrid/babyai_unlock.h"

namespace envpool::minigrid {
namespace {

Config Local(int64_t room_size, int64_t num_dists) { return {{"room_size", room_size}, {"num_dists", num_dists}}; }

Config Corridor(int64_t room_size, int64_t num_rows) { return {{"room_size", room_size}, {"num_rows", num_rows}}; }

Config Dims(int64_t room_size, int64_t num_rows, int64_t num_cols, int64_t num_dists) {
  return {{"room_size", room_size}, {"num_rows", num_rows}, {"num_cols", num_cols}, {"num_dists", num_dists}};
}

Config RedBlue(bool strict) {
  return {{"first_color", std::string("red")}, {"second_color", std::string("blue")}, {"strict", strict}};
}

Config PutNextKw(int64_t room_size, int64_t objs_per_room, bool start_carrying) {
  return {{"room_size", room_size}, {"objs_per_room", objs_per_room}, {"start_carrying", start_carrying}};
}

}  // namespace

std::vector<TaskSpec> BabyAITasks() {
  return {
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
}

}  // namespace envpool::minigrid
