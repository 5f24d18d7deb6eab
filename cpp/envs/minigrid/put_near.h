// MiniGrid-PutNear-*: minigrid.envs.PutNearEnv. A walled size x size room with numObjs
// distinct objects (_rand_elem of ["key", "ball", "box"], then of COLOR_NAMES, drawn again when
// the pair is taken; place_obj away from the 3 x 3 blocks around those placed), the agent
// (place_agent), the object to move and a different target drawn among them. Picking up
// anything else than the object to move ends the episode (0); dropping what the agent carries
// ends it, with the success reward when the drop landed within one cell (both ways) of the
// target's first place. Mission "put the <colour> <type> near the <colour> <type>";
// see_through_walls always True.
// kwargs: size (>= 5), numObjs (2 .. min(18, ceil((size - 2) / 3)^2): always room for the
// next object), max_steps (0: 5 * size), agent_view_size.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class PutNear : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{6}}, {"numObjs", int64_t{2}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<PutNear>(config, kName); }

  explicit PutNear(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 5 * Size(config), true),
        num_objs_(IntIn(config, kName, "numObjs", 2, MaxObjs(Size(config)))) {
    objs_.resize(static_cast<std::size_t>(num_objs_));
    SetMission("put the red key near the red ball");  // replaced at every reset
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    const int a = static_cast<int>(action.Get<int64_t>()[0]);
    const bool was_carrying = !Carrying().empty();
    StepResult r = MiniGridStep(a);
    const int ox = agent_x_ + kDirX[agent_dir_], oy = agent_y_ + kDirY[agent_dir_];
    if (a == kPickup && !Carrying().empty()) {
      if (Carrying().type != move_.type || Carrying().color != move_.color) r.terminated = true;
    }
    if (a == kDrop && was_carrying) {
      // minigrid: the cell ahead is the object carried before, i.e. the drop happened.
      if (Carrying().empty() && std::abs(ox - target_.x) <= 1 && std::abs(oy - target_.y) <= 1) {
        r.reward = SuccessReward();
      }
      r.terminated = true;
    }
    Finish(r, out);
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width(), h = grid_.height();
    grid_.OuterWalls();
    for (int n = 0; n < num_objs_; ++n) {
      Placed& obj = objs_[static_cast<std::size_t>(n)];
      obj = RandDistinctObj(rng, objs_, n);
      int x, y;
      for (;;) {  // place_obj(obj, reject_fn=near_obj)
        x = RandInt(rng, 0, w);
        y = RandInt(rng, 0, h);
        if (!grid_.Get(x, y).empty() || (x == agent_x_ && y == agent_y_)) continue;
        bool near = false;
        for (int k = 0; k < n; ++k) near = near || (std::abs(x - objs_[k].x) <= 1 && std::abs(y - objs_[k].y) <= 1);
        if (!near) break;
      }
      grid_.Set(x, y, Obj::Make(obj.type, obj.color));
      obj.x = x;
      obj.y = y;
    }
    PlaceAgent(rng);
    const int move = RandInt(rng, 0, num_objs_);
    int target;
    do {
      target = RandInt(rng, 0, num_objs_);
    } while (target == move);
    move_ = objs_[static_cast<std::size_t>(move)];
    target_ = objs_[static_cast<std::size_t>(target)];
    SetMission({"put the ", kColorName[move_.color], " ", kTypeName[move_.type], " near the ",
                kColorName[target_.color], " ", kTypeName[target_.type]});
  }

 private:
  static constexpr const char* kName = "MiniGrid PutNear";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 5, 1024); }
  // Objects never closer than one cell apart: ceil(n / 3)^2 of them can fill an n x n room, so
  // with fewer there is always a free place for the next (and for the agent).
  static int MaxObjs(int size) {
    const int blocks = (size - 2 + 2) / 3;
    return std::min(18, blocks * blocks);
  }

  int num_objs_;
  std::vector<Placed> objs_;
  Placed move_{};
  Placed target_{};
};

}  // namespace envpool::minigrid
