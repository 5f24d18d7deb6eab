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
#include <tuple>
#include <vector>

#include "envs/minigrid/go_to_target.h"

namespace envpool::minigrid {

class GoToObject : public GoToTargetEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{6}}, {"numObjs", int64_t{2}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<GoToObject>(config, kName); }

  explicit GoToObject(const Config& config)
      : GoToTargetEnv(config, kName, Size(config), Size(config), 5 * Size(config) * Size(config), true),
        num_objs_(IntIn(config, kName, "numObjs", 1, std::min(18, (Size(config) - 2) * (Size(config) - 2) - 1))) {
    objs_.resize(static_cast<std::size_t>(num_objs_));
    SetMission("go to the red key");  // replaced at every reset
  }

 protected:
  void GenGrid(Rng& rng) override {
    grid_.OuterWalls();
    for (int n = 0; n < num_objs_; ++n) {
      Placed& obj = objs_[static_cast<std::size_t>(n)];
      obj = RandDistinctObj(rng, objs_, n);
      std::tie(obj.x, obj.y) = PlaceObj(rng, Obj::Make(obj.type, obj.color));
    }
    PlaceAgent(rng);
    const Placed& target = objs_[static_cast<std::size_t>(RandInt(rng, 0, num_objs_))];
    target_x_ = target.x;
    target_y_ = target.y;
    SetMission({"go to the ", kColorName[target.color], " ", kTypeName[target.type]});
  }

 private:
  static constexpr const char* kName = "MiniGrid GoToObject";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 4, 1024); }

  int num_objs_;
  std::vector<Placed> objs_;
};

}  // namespace envpool::minigrid
