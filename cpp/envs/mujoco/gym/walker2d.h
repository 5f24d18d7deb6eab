// Walker2d-v5 and -v4: gymnasium.envs.mujoco.walker2d_v5 / walker2d_v4.Walker2dEnv (the planar
// walker of planar_walker.h with its own model, camera and health ranges). v5's model is
// walker2d_v5.xml (both feet of friction 1.9), v4's walker2d.xml (the right foot's 0.9).
#pragma once

#include <vector>

#include "envs/mujoco/gym/planar_walker.h"

namespace envpool::mujoco::gym {

template <Version V>
class Walker2dEnv : public PlanarWalker<V> {
 public:
  static Config DefaultConfig() {
    Config c = PlanarWalker<V>::WalkerConfig(V == Version::kV5 ? "walker2d_v5.xml" : "walker2d.xml",
                                             {"trackbodyid=2", "distance=4.0", "lookat=0.0 0.0 1.15",
                                              "elevation=-20.0"});  // gymnasium DEFAULT_CAMERA_CONFIG
    c.Set("healthy_z_range", std::vector<double>{0.8, 2.0});
    c.Set("healthy_angle_range", std::vector<double>{-1.0, 1.0});
    return c;
  }

  using PlanarWalker<V>::PlanarWalker;
};

using Walker2d = Walker2dEnv<Version::kV5>;
using Walker2dV4 = Walker2dEnv<Version::kV4>;

}  // namespace envpool::mujoco::gym
