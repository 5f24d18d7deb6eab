// What GoToDoorEnv and GoToObjectEnv (minigrid 3.2.0) share: their step. The agent must stand
// next to a target (a cell at Manhattan distance 1) and say done: toggle ends the episode with
// 0; done ends it, with the success reward when next to the target, else 0.
#pragma once

#include <cstdlib>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class GoToTargetEnv : public MiniGridEnv {
 public:
  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    StepResult r = MiniGridStep(a);
    if (a == kToggle) r.terminated = true;
    if (a == kDone) {
      const bool next_to = (agent_x_ == target_x_ && std::abs(agent_y_ - target_y_) == 1) ||
                           (agent_y_ == target_y_ && std::abs(agent_x_ - target_x_) == 1);
      if (next_to) r.reward = SuccessReward();
      r.terminated = true;
    }
    Finish(r, out);
  }

 protected:
  using MiniGridEnv::MiniGridEnv;

  // The target's cell, set by GenGrid.
  int target_x_ = 0;
  int target_y_ = 0;
};

}  // namespace envpool::minigrid
