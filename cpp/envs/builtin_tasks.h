// The tasks compiled into the package (classic control, toy text, MuJoCo, test envs).
#pragma once

namespace envpool {

// Adds every built-in task to the registry (core/registry.h). Idempotent.
void RegisterBuiltinTasks();

}  // namespace envpool
