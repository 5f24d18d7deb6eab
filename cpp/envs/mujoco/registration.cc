// The MuJoCo tasks (gymnasium v5), compiled when the build found MuJoCo's headers; libmujoco
// itself is loaded when one is made (envs/mujoco/loader.h). Every task takes the reference
// EnvPool's frame_stack kwarg (envs/mujoco/frame_stack.h).
#include "core/registry.h"
#include "envs/builtin_tasks.h"
#include "envs/mujoco/ant.h"
#include "envs/mujoco/frame_stack.h"
#include "envs/mujoco/half_cheetah.h"
#include "envs/mujoco/hopper.h"
#include "envs/mujoco/humanoid.h"
#include "envs/mujoco/humanoid_standup.h"
#include "envs/mujoco/inverted_double_pendulum.h"
#include "envs/mujoco/inverted_pendulum.h"
#include "envs/mujoco/pusher.h"
#include "envs/mujoco/reacher.h"
#include "envs/mujoco/swimmer.h"
#include "envs/mujoco/walker2d.h"

namespace envpool {

std::vector<TaskSpec> MujocoTasks() {
  return {
      Task<mujoco::FrameStacked<mujoco::Reacher>>("Reacher-v5", 50, -3.75),
      Task<mujoco::FrameStacked<mujoco::Pusher>>("Pusher-v5", 100, 0.0),
      Task<mujoco::FrameStacked<mujoco::InvertedPendulum>>("InvertedPendulum-v5", 1000, 950.0),
      Task<mujoco::FrameStacked<mujoco::InvertedDoublePendulum>>("InvertedDoublePendulum-v5", 1000, 9100.0),
      Task<mujoco::FrameStacked<mujoco::HalfCheetah>>("HalfCheetah-v5", 1000, 4800.0),
      Task<mujoco::FrameStacked<mujoco::Hopper>>("Hopper-v5", 1000, 3800.0),
      Task<mujoco::FrameStacked<mujoco::Swimmer>>("Swimmer-v5", 1000, 360.0),
      Task<mujoco::FrameStacked<mujoco::Walker2d>>("Walker2d-v5", 1000),
      Task<mujoco::FrameStacked<mujoco::Ant>>("Ant-v5", 1000, 6000.0),
      Task<mujoco::FrameStacked<mujoco::Humanoid>>("Humanoid-v5", 1000),
      Task<mujoco::FrameStacked<mujoco::HumanoidStandup>>("HumanoidStandup-v5", 1000),
  };
}

}  // namespace envpool
