// The built-in tasks: every family's list, registered once. A new family: a folder of
// cpp/envs/ in its own namespace envpool::<family>, with its registration.cc (<family>::Tasks(),
// returning its Task<> entries), declared in builtin_tasks.h, added below and to
// cpp/CMakeLists.txt (docs/architecture.md, "Where to add things").
#include "envs/builtin_tasks.h"

namespace envpool {

void RegisterBuiltinTasks() {
  static const bool registered = [] {
    std::vector<std::vector<TaskSpec>> families = {classic_control::Tasks(), toy_text::Tasks(), mpe::Tasks(),
                                                   classic_games::Tasks(),   minigrid::Tasks(), procgen::Tasks()};
#ifdef ENVPOOL_WITH_MUJOCO
    families.push_back(mujoco::Tasks());
#endif
#ifdef ENVPOOL_WITH_BOX2D
    families.push_back(box2d::Tasks());
#endif
    for (auto& family : families) {
      for (auto& task : family) RegisterTask(std::move(task));
    }
    return true;
  }();
  (void)registered;
}

}  // namespace envpool
