// gymnasium's MuJoCo tasks: v5 and v4 (gymnasium 1.4's classes of each version), and the v3 / v2
// ids, which are v4 configurations as the reference EnvPool registers them: gym's mujoco-py v3 /
// v2 classes cannot run on MuJoCo 4 (docs/compat.md). Their time limits and reward thresholds
// are gymnasium's for v5 / v4 and gym 0.26's for v3 / v2. Every task takes the reference
// EnvPool's frame_stack kwarg (envs/mujoco/frame_stack.h).
#include "envs/mujoco/registration.h"

#include "core/registry.h"
#include "envs/mujoco/frame_stack.h"
#include "envs/mujoco/gym/ant.h"
#include "envs/mujoco/gym/half_cheetah.h"
#include "envs/mujoco/gym/hopper.h"
#include "envs/mujoco/gym/humanoid.h"
#include "envs/mujoco/gym/humanoid_standup.h"
#include "envs/mujoco/gym/inverted_double_pendulum.h"
#include "envs/mujoco/gym/inverted_pendulum.h"
#include "envs/mujoco/gym/pusher.h"
#include "envs/mujoco/gym/reacher.h"
#include "envs/mujoco/gym/swimmer.h"
#include "envs/mujoco/gym/walker2d.h"

namespace envpool::mujoco::gym {

std::vector<TaskSpec> Tasks() {
  return {
      Task<FrameStacked<Reacher>>("Reacher-v5", 50, -3.75),
      Task<FrameStacked<Pusher>>("Pusher-v5", 100, 0.0),
      Task<FrameStacked<InvertedPendulum>>("InvertedPendulum-v5", 1000, 950.0),
      Task<FrameStacked<InvertedDoublePendulum>>("InvertedDoublePendulum-v5", 1000, 9100.0),
      Task<FrameStacked<HalfCheetah>>("HalfCheetah-v5", 1000, 4800.0),
      Task<FrameStacked<Hopper>>("Hopper-v5", 1000, 3800.0),
      Task<FrameStacked<Swimmer>>("Swimmer-v5", 1000, 360.0),
      Task<FrameStacked<Walker2d>>("Walker2d-v5", 1000),
      Task<FrameStacked<Ant>>("Ant-v5", 1000, 6000.0),
      Task<FrameStacked<Humanoid>>("Humanoid-v5", 1000),
      Task<FrameStacked<HumanoidStandup>>("HumanoidStandup-v5", 1000),
      Task<FrameStacked<ReacherV4>>("Reacher-v4", 50, -3.75),
      Task<FrameStacked<PusherV4>>("Pusher-v4", 100, 0.0),
      Task<FrameStacked<InvertedPendulumV4>>("InvertedPendulum-v4", 1000, 950.0),
      Task<FrameStacked<InvertedDoublePendulumV4>>("InvertedDoublePendulum-v4", 1000, 9100.0),
      Task<FrameStacked<HalfCheetahV4>>("HalfCheetah-v4", 1000, 4800.0),
      Task<FrameStacked<HopperV4>>("Hopper-v4", 1000, 3800.0),
      Task<FrameStacked<SwimmerV4>>("Swimmer-v4", 1000, 360.0),
      Task<FrameStacked<Walker2dV4>>("Walker2d-v4", 1000),
      Task<FrameStacked<AntV4>>("Ant-v4", 1000, 6000.0),
      Task<FrameStacked<HumanoidV4>>("Humanoid-v4", 1000),
      Task<FrameStacked<HumanoidStandupV4>>("HumanoidStandup-v4", 1000),
      // v3 / v2: the v4 classes; Ant-v3 observes its contact forces (the reference's
      // use_contact_force=True, which Humanoid-v3 sets too: Humanoid-v4 always observes them).
      Task<FrameStacked<ReacherV4>>("Reacher-v2", 50, -3.75),
      Task<FrameStacked<PusherV4>>("Pusher-v2", 100, 0.0),
      Task<FrameStacked<InvertedPendulumV4>>("InvertedPendulum-v2", 1000, 950.0),
      Task<FrameStacked<InvertedDoublePendulumV4>>("InvertedDoublePendulum-v2", 1000, 9100.0),
      Task<FrameStacked<HalfCheetahV4>>("HalfCheetah-v3", 1000, 4800.0),
      Task<FrameStacked<HopperV4>>("Hopper-v3", 1000, 3800.0),
      Task<FrameStacked<SwimmerV4>>("Swimmer-v3", 1000, 360.0),
      Task<FrameStacked<Walker2dV4>>("Walker2d-v3", 1000),
      Task<FrameStacked<AntV4>>("Ant-v3", 1000, 6000.0, Config{{"use_contact_forces", true}}),
      Task<FrameStacked<HumanoidV4>>("Humanoid-v3", 1000),
      Task<FrameStacked<HumanoidStandupV4>>("HumanoidStandup-v2", 1000),
  };
}

}  // namespace envpool::mujoco::gym
