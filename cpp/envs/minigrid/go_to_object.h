// MiniGrid-GoToObject-*: minigrid.envs.GoToObjectEnv. A walled size x size room with numObjs
// distinct objects (_rand_elem of ["key", "ball", "box"], then of COLOR_NAMES, drawn again when
// the pair is taken; place_obj each), the agent (place_agent), and a target drawn among them;
// the agent must stand next to where the target was placed and say done. Toggle ends the
// episode with 0; done ends it, with the success reward next to the target's first place.
// Mission "go to the <colour> <type>"; see_through_walls always True.
// kwargs: size (>= 4), numObjs (1 .. 18, the distinct pairs, and at most (size - 2)^2 - 1),
// max_steps (0: 5 * size^2), agent_view_size.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class GoToObject : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{6}}, {"numObjs", int64_t{2}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) {
    GoToObject check(config);
    return MiniGridSpec(ViewSize(config, kName));
  }

  explicit GoToObject(const Config& config)
      : MiniGridEnv(Size(config), Size(config), MaxSteps(config, kName, 5 * Size(config) * Size(config)),
                    ViewSize(config, kName), true),
        num_objs_(IntIn(config, kName, "numObjs", 1, std::min(18, (Size(config) - 2) * (Size(config) - 2) - 1))) {
    objs_.resize(static_cast<std::size_t>(num_objs_));
    SetMission("go to the red key");  // replaced at every reset
  }

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
  void GenGrid(Rng& rng) override {
    static constexpr Type kTypes[3] = {kKey, kBall, kBox};
    grid_.WallRect(0, 0, grid_.width(), grid_.height());
    for (int n = 0; n < num_objs_;) {
      const Type type = kTypes[RandInt(rng, 0, 3)];
      const Color color = kColorNames[RandInt(rng, 0, 6)];
      bool taken = false;
      for (int k = 0; k < n; ++k) taken = taken || (objs_[k].type == type && objs_[k].color == color);
      if (taken) continue;
      objs_[static_cast<std::size_t>(n)].type = type;
      objs_[static_cast<std::size_t>(n)].color = color;
      const auto [x, y] = PlaceObj(rng, Obj::Make(type, color));
      objs_[static_cast<std::size_t>(n)].x = x;
      objs_[static_cast<std::size_t>(n)].y = y;
      ++n;
    }
    PlaceAgent(rng);
    const Placed& target = objs_[static_cast<std::size_t>(RandInt(rng, 0, num_objs_))];
    target_x_ = target.x;
    target_y_ = target.y;
    const char* type_name = target.type == kKey ? "key" : target.type == kBall ? "ball" : "box";
    SetMission({"go to the ", kColorName[target.color], " ", type_name});
  }

 private:
  static constexpr const char* kName = "MiniGrid GoToObject";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 4, 1024); }

  struct Placed {
    Type type = kKey;
    Color color = kRed;
    int x = 0;
    int y = 0;
  };

  int num_objs_;
  std::vector<Placed> objs_;
  int target_x_ = 0;
  int target_y_ = 0;
};

}  // namespace envpool::minigrid
