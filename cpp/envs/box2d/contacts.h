// gymnasium's ContactDetector, the one listener both Box2D envs use (LunarLander's and
// BipedalWalker's detectors differ only in which bodies they watch): any contact of `body`
// (the lander, the walker's hull) ends the game; each of the two `feet` (the lander's legs, the
// walker's lower legs) sets its ground_contact flag while it touches something.
#pragma once

#include <Box2D/Box2D.h>

#include <array>

namespace envpool::box2d {

class GameContacts : public b2ContactListener {
 public:
  b2Body* body = nullptr;
  std::array<b2Body*, 2> feet{};
  bool game_over = false;
  std::array<bool, 2> ground_contact{};

  void BeginContact(b2Contact* contact) override {
    const b2Body* a = contact->GetFixtureA()->GetBody();
    const b2Body* b = contact->GetFixtureB()->GetBody();
    if (body == a || body == b) game_over = true;
    SetFeet(a, b, true);
  }
  void EndContact(b2Contact* contact) override {
    SetFeet(contact->GetFixtureA()->GetBody(), contact->GetFixtureB()->GetBody(), false);
  }

 private:
  void SetFeet(const b2Body* a, const b2Body* b, bool touching) {
    for (int i = 0; i < 2; ++i) {
      if (feet[i] == a || feet[i] == b) ground_contact[i] = touching;
    }
  }
};

}  // namespace envpool::box2d
