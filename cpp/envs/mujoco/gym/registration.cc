// gymnasium's MuJoCo v5 tasks. Every task takes the reference EnvPool's frame_stack kwarg
// (envs/mujoco/frame_stack.h).
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
  };
}

}  // namespace envpool::mujoco::gym
