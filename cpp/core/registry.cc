#include "core/registry.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace envpool {

namespace {

struct Registry {
  std::mutex mu;
  std::deque<TaskSpec> tasks;                                // a deque: references stay valid as tasks are added
  std::unordered_map<std::string, const TaskSpec*> by_name;  // every id and alias -> its task
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

// Edit distance, case-insensitive, for "did you mean" suggestions.
std::size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// `candidates` sorted by edit distance to `word`, closest first.
std::vector<std::string> Closest(const std::string& word, std::vector<std::string> candidates) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](const std::string& a, const std::string& b) {
    return EditDistance(word, a) < EditDistance(word, b);
  });
  return candidates;
}

}  // namespace

namespace {

// The ids a task answers to: its own, then its aliases.
std::vector<const std::string*> Names(const TaskSpec& task) {
  std::vector<const std::string*> names{&task.id};
  for (const auto& alias : task.aliases) names.push_back(&alias);
  return names;
}

// "task id 'X'" or "alias 'Y' of task 'X'", for messages.
std::string Describe(const std::string& name, const TaskSpec& task) {
  return name == task.id ? "task id '" + name + "'" : "alias '" + name + "' of task '" + task.id + "'";
}

// Where `name` is an alias of `owner`: " as an alias of 'X'" (else nothing), for messages.
std::string AliasNote(const std::string& name, const TaskSpec& owner) {
  return name == owner.id ? "" : " as an alias of '" + owner.id + "'";
}

// Throws std::invalid_argument if `task` cannot join the registry `existing` (its lock held):
// an empty id or alias, no spec or make, or an id or alias already taken, by another task or
// twice by this one.
void CheckNewTask(const TaskSpec& task, const Registry& existing) {
  if (task.id.empty()) throw std::invalid_argument("RegisterTask: the task id is empty");
  if (!task.spec || !task.make) throw std::invalid_argument("RegisterTask: task '" + task.id + "' lacks spec or make");
  const auto names = Names(task);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = *names[i];
    if (name.empty()) throw std::invalid_argument("RegisterTask: task '" + task.id + "' has an empty alias");
    for (std::size_t j = 0; j < i; ++j) {
      if (*names[j] == name) {
        throw std::invalid_argument("task '" + task.id + "' names '" + name + "' twice (as its id or an alias)");
      }
    }
    if (const auto it = existing.by_name.find(name); it != existing.by_name.end()) {
      const TaskSpec* owner = it->second;
      throw std::invalid_argument(Describe(name, task) + " is already registered" + AliasNote(name, *owner) + " (by " +
                                  owner->origin + ")");
    }
  }
}

// Adds the names of `task`, just appended to r.tasks, to the index (the lock held).
void Index(Registry& r, const TaskSpec& task) {
  for (const std::string* name : Names(task)) r.by_name.emplace(*name, &task);
}

}  // namespace

const TaskSpec& RegisterTask(TaskSpec task) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  CheckNewTask(task, r);
  r.tasks.push_back(std::move(task));
  Index(r, r.tasks.back());
  return r.tasks.back();
}

void RegisterTasks(std::vector<TaskSpec> tasks) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    CheckNewTask(tasks[i], r);
    for (std::size_t j = 0; j < i; ++j) {
      for (const std::string* name : Names(tasks[i])) {
        for (const std::string* earlier : Names(tasks[j])) {
          if (*name == *earlier) {
            throw std::invalid_argument(Describe(*name, tasks[i]) + " is given twice" + AliasNote(*name, tasks[j]) +
                                        " (by " + tasks[i].origin + ")");
          }
        }
      }
    }
  }
  for (auto& task : tasks) {
    r.tasks.push_back(std::move(task));
    Index(r, r.tasks.back());
  }
}

std::vector<const TaskSpec*> AllTasks() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<const TaskSpec*> out;
  for (const auto& t : r.tasks) out.push_back(&t);
  return out;
}

const TaskSpec& FindTask(const std::string& id) {
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    if (const auto it = r.by_name.find(id); it != r.by_name.end()) return *it->second;
  }
  const auto tasks = AllTasks();
  std::vector<std::string> ids;
  for (const auto* t : tasks) {
    for (const std::string* name : Names(*t)) ids.push_back(*name);
  }
  ids = Closest(id, std::move(ids));
  std::string msg = "unknown task id '" + id + "'";
  if (!ids.empty()) {
    msg += "; did you mean";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, ids.size()); ++i) msg += (i ? ", '" : " '") + ids[i] + "'";
    msg += "?";
  }
  msg += " (`envpool list` or envpool.list_all_envs() shows every task)";
  throw std::invalid_argument(msg);
}

std::vector<Config> MakeConfigs(const TaskSpec& task, int num_envs,
                                const std::vector<std::pair<std::string, std::vector<ConfigValue>>>& kwargs) {
  std::vector<Config> configs(static_cast<std::size_t>(std::max(num_envs, 0)), task.defaults);
  for (const auto& [key, values] : kwargs) {
    if (!task.defaults.Has(key)) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : task.defaults.values()) keys.push_back(k);
      std::string known;
      for (const auto& k : Closest(key, keys)) known += (known.empty() ? "" : ", ") + k;
      throw std::invalid_argument(
          "unknown keyword argument '" + key + "' for " + task.id +
          (known.empty() ? " (it takes no env kwargs)" : " (it takes, closest first: " + known + ")"));
    }
    if (values.size() != 1 && values.size() != static_cast<std::size_t>(num_envs)) {
      throw std::invalid_argument("keyword argument '" + key + "' has " + std::to_string(values.size()) +
                                  " per-env values but num_envs is " + std::to_string(num_envs));
    }
    const ConfigValue& def = task.defaults.values().at(key);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      ConfigValue v = values[values.size() == 1 ? 0 : i];
      if (def.index() == 2 && v.index() == 1) v = static_cast<double>(std::get<int64_t>(v));  // int for float
      // An empty list reads as list[float]; it is as good an empty list[str].
      if (std::holds_alternative<std::vector<std::string>>(def) && std::holds_alternative<std::vector<double>>(v) &&
          std::get<std::vector<double>>(v).empty()) {
        v = std::vector<std::string>{};
      }
      if (v.index() != def.index()) {
        throw std::invalid_argument("keyword argument '" + key + "' must be " + ConfigTypeName(def) + ", got " +
                                    ConfigTypeName(v));
      }
      configs[i].Set(key, std::move(v));
    }
  }
  return configs;
}

}  // namespace envpool
