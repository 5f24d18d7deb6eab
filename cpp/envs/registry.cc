// Adding an environment: write cpp/envs/<name>.h, include it here and add its Task<> line(s).
#include "envs/registry.h"

#include <algorithm>
#include <stdexcept>

#include "envs/acrobot.h"
#include "envs/cartpole.h"
#include "envs/mountain_car.h"
#include "envs/mountain_car_continuous.h"
#include "envs/pendulum.h"
#include "envs/step_counter.h"

namespace envpool {

const std::vector<TaskSpec>& AllTasks() {
  static const std::vector<TaskSpec> tasks = {
      Task<CartPole>("CartPole-v0", 200, 195.0),
      Task<CartPole>("CartPole-v1", 500, 475.0),
      Task<MountainCar>("MountainCar-v0", 200, -110.0),
      Task<MountainCarContinuous>("MountainCarContinuous-v0", 999, 90.0),
      Task<Pendulum>("Pendulum-v1", 200),
      Task<Acrobot>("Acrobot-v1", 500, -100.0),
      // Deterministic env for testing the pool itself (see step_counter.h).
      Task<StepCounter>("StepCounter-v0", 0),
  };
  return tasks;
}

namespace {

// Edit distance, case-insensitive, for "did you mean" suggestions.
std::size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

const TaskSpec& FindTask(const std::string& id) {
  const auto& tasks = AllTasks();
  for (const auto& t : tasks) {
    if (t.id == id) return t;
  }
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& t : tasks) ranked.emplace_back(EditDistance(id, t.id), t.id);
  std::sort(ranked.begin(), ranked.end());
  std::string msg = "unknown task id '" + id + "'";
  if (!ranked.empty()) {
    msg += "; did you mean";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, ranked.size()); ++i) {
      msg += (i ? ", '" : " '") + ranked[i].second + "'";
    }
    msg += "? (envpool.list_all_envs() lists all)";
  }
  throw std::invalid_argument(msg);
}

}  // namespace envpool
