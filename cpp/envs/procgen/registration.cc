// The Procgen tasks: each game in each distribution mode it supports, named as the reference
// EnvPool names them (BigfishEasy-v0, CaveflyerMemory-v0, CoinrunExploration-v0, ...). Procgen's
// library is loaded when one is made (envs/procgen/loader.h). No pool time limit: each game ends
// its levels at its own limit and the env reports that as truncated (procgen_env.h), as
// Procgen's own gym registration adds no TimeLimit either.
#include <cmath>

#include "core/registry.h"
#include "envs/procgen/procgen_env.h"

namespace envpool::procgen {

std::vector<TaskSpec> Tasks() {
  std::vector<TaskSpec> tasks;
  for (const auto& game : Games()) {
    for (const char* mode : game.modes) {
      tasks.push_back(
          Task<ProcgenEnv>(std::string(game.title) + ModeTitle(mode) + "-v0", 0, NAN,
                           {{"env_name", std::string(game.name)}, {"distribution_mode", std::string(mode)}}));
    }
  }
  return tasks;
}

}  // namespace envpool::procgen
