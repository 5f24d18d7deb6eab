// Hopper-v5 and -v4: gymnasium.envs.mujoco.hopper_v5 / hopper_v4.HopperEnv (the planar walker of
// planar_walker.h with its own model, camera and health ranges, every state entry bounded too;
// both versions take the same model and defaults).
#pragma once

#include <cmath>
#include <vector>

#include "envs/mujoco/gym/planar_walker.h"

namespace envpool::mujoco::gym {

template <Version V>
class HopperEnv : public PlanarWalker<V> {
 public:
  static Config DefaultConfig() {
    Config c = PlanarWalker<V>::WalkerConfig("hopper.xml", {"trackbodyid=2", "distance=3.0", "lookat=0.0 0.0 1.15",
                                                            "elevation=-20.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("healthy_state_range", std::vector<double>{-100.0, 100.0});
    c.Set("healthy_z_range", std::vector<double>{0.7, INFINITY});
    c.Set("healthy_angle_range", std::vector<double>{-0.2, 0.2});
    return c;
  }

  using PlanarWalker<V>::PlanarWalker;
};

using Hopper = HopperEnv<Version::kV5>;
using HopperV4 = HopperEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
