// What one physics step of a Box2D env gives besides the observation: Step writes it into the
// row; Reset, which ends with gymnasium's no-op step, drops it (the row's reward and flags are
// the pool's there: with same-step autoreset they still hold the ending step's).
#pragma once

namespace envpool::box2d {

struct StepResult {
  double reward;
  bool terminated;
};

}  // namespace envpool::box2d
