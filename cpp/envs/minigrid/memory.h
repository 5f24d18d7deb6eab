// MiniGrid-MemoryS*: minigrid.envs.MemoryEnv. A start room on the left with a green key or
// ball (_rand_elem), a hallway (ending at size - 3, or at _rand_int(4, size - 2) with
// random_length) and, at its end, a green key and ball above and below (their order drawn);
// the agent starts in the hallway's row at _rand_int(1, hallway_end + 1), facing right.
// Reaching the cell next to the object matching the start room's ends the episode with the
// success reward, the other with 0. Pickup acts as toggle. Mission "go to the matching object
// at the end of the hallway"; see_through_walls always False.
// kwargs: size (odd, >= 7), random_length, max_steps (0: 5 * size^2), agent_view_size.
#pragma once

#include <string>

#include "envs/minigrid/minigrid_env.h"

namespace envpool::minigrid {

class Memory : public MiniGridEnv {
 public:
  static Config DefaultConfig() {
    // minigrid's default size, 8, fails its own odd-height assert; every id sets the size.
    return {{"size", int64_t{7}}, {"random_length", false}, {"max_steps", int64_t{0}}, {"agent_view_size", int64_t{7}}};
  }
  static EnvSpec Spec(const Config& config) { return CheckedSpec<Memory>(config, kName); }

  explicit Memory(const Config& config)
      : MiniGridEnv(config, kName, Size(config), Size(config), 5 * Size(config) * Size(config), false),
        random_length_(config.Get<bool>("random_length")) {
    SetMission("go to the matching object at the end of the hallway");
  }

  void Step(const Action& action, Rng& /*rng*/, Output& out) override {
    int a = static_cast<int>(action.Get<int64_t>()[0]);
    if (a == kPickup) a = kToggle;
    StepResult r = MiniGridStep(a);
    if (agent_x_ == success_x_ && agent_y_ == success_y_) {
      r.reward = SuccessReward();
      r.terminated = true;
    }
    if (agent_x_ == failure_x_ && agent_y_ == failure_y_) {
      r.reward = 0.0;
      r.terminated = true;
    }
    Finish(r, out);
  }

 protected:
  void GenGrid(Rng& rng) override {
    const int w = grid_.width(), h = grid_.height();
    grid_.OuterWalls();
    const int upper = h / 2 - 2, lower = h / 2 + 2;
    const int hallway_end = random_length_ ? RandInt(rng, 4, w - 2) : w - 3;
    for (int i = 1; i < 5; ++i) {
      grid_.Set(i, upper, Obj::Wall());
      grid_.Set(i, lower, Obj::Wall());
    }
    grid_.Set(4, upper + 1, Obj::Wall());
    grid_.Set(4, lower - 1, Obj::Wall());
    for (int i = 5; i < hallway_end; ++i) {
      grid_.Set(i, upper + 1, Obj::Wall());
      grid_.Set(i, lower - 1, Obj::Wall());
    }
    for (int j = 0; j < h; ++j) {
      if (j != h / 2) grid_.Set(hallway_end, j, Obj::Wall());
      grid_.Set(hallway_end + 2, j, Obj::Wall());
    }
    SetAgent(RandInt(rng, 1, hallway_end + 1), h / 2, 0);
    const Type start = RandInt(rng, 0, 2) == 0 ? kKey : kBall;  // _rand_elem([Key, Ball])
    grid_.Set(1, h / 2 - 1, Obj::Make(start, kGreen));
    const bool ball_first = RandInt(rng, 0, 2) == 0;  // _rand_elem([[Ball, Key], [Key, Ball]])
    const Type first = ball_first ? kBall : kKey, second = ball_first ? kKey : kBall;
    const int x = hallway_end + 1;
    grid_.Set(x, h / 2 - 2, Obj::Make(first, kGreen));
    grid_.Set(x, h / 2 + 2, Obj::Make(second, kGreen));
    const bool upper_matches = start == first;
    success_x_ = failure_x_ = x;
    success_y_ = upper_matches ? h / 2 - 1 : h / 2 + 1;
    failure_y_ = upper_matches ? h / 2 + 1 : h / 2 - 1;
  }

 private:
  static constexpr const char* kName = "MiniGrid Memory";
  static int Size(const Config& config) { return OddIn(config, kName, "size", 7, 1023); }

  bool random_length_;
  int success_x_ = 0;
  int success_y_ = 0;
  int failure_x_ = 0;
  int failure_y_ = 0;
};

}  // namespace envpool::minigrid
