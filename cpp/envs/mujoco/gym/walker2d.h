// Walker2d-v5: gymnasium.envs.mujoco.walker2d_v5.Walker2dEnv (the planar walker of
// planar_walker.h with its own model, camera and health ranges).
#pragma once

#include <vector>

#include "envs/mujoco/gym/planar_walker.h"

namespace envpool::mujoco::gym {

class Walker2d : public PlanarWalker {
 public:
  static Config DefaultConfig() {
    Config c = WalkerConfig("walker2d_v5.xml", {"trackbodyid=2", "distance=4.0", "lookat=0.0 0.0 1.15",
                                                "elevation=-20.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("healthy_z_range", std::vector<double>{0.8, 2.0});
    c.Set("healthy_angle_range", std::vector<double>{-1.0, 1.0});
    return c;
  }

  using PlanarWalker::PlanarWalker;
};

}  // namespace envpool::mujoco::gym
