// MiniGrid-FourRooms-v0: minigrid.envs.FourRoomsEnv. A 19 x 19 grid of four rooms, each inner
// wall with one gap drawn by _rand_int; the agent at agent_pos (its direction drawn) or
// place_agent, then the goal at goal_pos or place_obj. Mission "reach the goal".
// kwargs: agent_pos, goal_pos ([]: minigrid's None, or [x, y] inside the outer wall), max_steps
// (0: 100, the env's default), agent_view_size, see_through_walls.
#pragma once

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class FourRooms : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"agent_pos", std::vector<double>{}},
            {"goal_pos", std::vector<double>{}},
            {"max_steps", int64_t{100}},
            {"agent_view_size", int64_t{7}},
            {"see_through_walls", false}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<FourRooms>(config, kName); }

  explicit FourRooms(const Config& config)
      : MiniGridEnv(config, kName, kSize, kSize, 100, config.Get<bool>("see_through_walls")) {
    fixed_agent_ = OptionalPos(config, kName, "agent_pos", kSize, kSize, &agent_pos_x_, &agent_pos_y_);
    fixed_goal_ = OptionalPos(config, kName, "goal_pos", kSize, kSize, &goal_x_, &goal_y_);
    SetMission("reach the goal");
  }

 protected:
  void GenGrid(Rng& rng) override {
    RoomsWithOpenings(rng, 2, 0, [](Rng&) { return Obj{}; });  // gaps
    if (fixed_agent_) {
      grid_.Set(agent_pos_x_, agent_pos_y_, Obj{});
      SetAgent(agent_pos_x_, agent_pos_y_, RandInt(rng, 0, 4));
    } else {
      PlaceAgent(rng);
    }
    if (fixed_goal_) {
      grid_.Set(goal_x_, goal_y_, Obj::Goal());
    } else {
      PlaceObj(rng, Obj::Goal());
    }
  }

 private:
  static constexpr const char* kName = "MiniGrid FourRooms";
  static constexpr int kSize = 19;

  bool fixed_agent_ = false;
  bool fixed_goal_ = false;
  int agent_pos_x_ = 0;
  int agent_pos_y_ = 0;
  int goal_x_ = 0;
  int goal_y_ = 0;
};

}  // namespace envpool::minigrid
