// MiniGrid-Fetch-*: minigrid.envs.FetchEnv. A walled size x size room with numObjs keys and
// balls (each: _rand_elem of ["key", "ball"], then of COLOR_NAMES, then place_obj), the agent
// (place_agent), a target drawn among the objects and one of five phrasings. Picking anything
// up ends the episode, with the success reward if it has the target's type and colour, else 0.
// Mission "<get a | go get a | fetch a | go fetch a | you must fetch a> <colour> <type>";
// see_through_walls always True.
// kwargs: size (>= 4), numObjs (1 .. (size - 2)^2 - 1, so that they and the agent fit),
// max_steps (0: 5 * size^2), agent_view_size.
#pragma once

#include <string>
#include <vector>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class Fetch : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    return {{"size", int64_t{8}}, {"numObjs", int64_t{3}}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<Fetch>(config, kName); }

  explicit Fetch(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 5 * Size(config) * Size(config), true),
        num_objs_(IntIn(config, kName, "numObjs", 1, (Size(config) - 2) * (Size(config) - 2) - 1)) {
    objs_.resize(static_cast<std::size_t>(num_objs_));
    SetMission("get a red key");  // replaced at every reset
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    StepResult r = MiniGridStep(static_cast<int>(action.Get<int64_t>()[0]));
    if (!Carrying().empty()) {
      const bool target = Carrying().type == target_.type && Carrying().color == target_.color;
      r.reward = target ? SuccessReward() : 0.0;
      r.terminated = true;
    }
    Finish(r, out);
  }

 protected:
  void GenGrid(Rng& rng) override {
    grid_.OuterWalls();
    for (auto& obj : objs_) {
      const Type type = RandInt(rng, 0, 2) == 0 ? kKey : kBall;
      obj = Obj::Make(type, RandColor(rng));
      PlaceObj(rng, obj);
    }
    PlaceAgent(rng);
    target_ = objs_[static_cast<std::size_t>(RandInt(rng, 0, num_objs_))];
    static constexpr const char* kSyntax[5] = {"get a ", "go get a ", "fetch a ", "go fetch a ", "you must fetch a "};
    SetMission({kSyntax[RandInt(rng, 0, 5)], kColorName[target_.color], " ", kTypeName[target_.type]});
  }

 private:
  static constexpr const char* kName = "MiniGrid Fetch";
  static int Size(const Config& config) { return IntIn(config, kName, "size", 4, 1024); }

  int num_objs_;
  std::vector<Obj> objs_;
  Obj target_{};
};

}  // namespace envpool::minigrid
