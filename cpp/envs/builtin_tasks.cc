// The built-in tasks: every family's list, registered once. A new family: a folder of
// cpp/envs/ with its registration.cc (a function returning its Task<> entries), declared in
// builtin_tasks.h, added below and to cpp/CMakeLists.txt.
#include "envs/builtin_tasks.h"

namespace envpool {

void RegisterBuiltinTasks() {
  static const bool registered = [] {
    std::vector<std::vector<TaskSpec>> families = {ClassicControlTasks(), ToyTextTasks(), MpeTasks(),
                                                   ClassicGameTasks()};
#ifdef ENVPOOL_WITH_MUJOCO
    families.push_back(MujocoTasks());
#endif
    for (auto& family : families) {
      for (auto& task : family) RegisterTask(std::move(task));
    }
    return true;
  }();
  (void)registered;
}

}  // namespace envpool
