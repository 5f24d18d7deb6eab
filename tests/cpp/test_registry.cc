// The task registry (core/registry.cc): ids and aliases are unique and found by name (an alias
// finds its task, which is listed once), an unknown id names close ones, a refused batch of tasks
// adds none, and kwargs become per-env configs only when each names a known key with a value of
// its type.
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "core/registry.h"

using envpool::AllTasks;
using envpool::ArraySpec;
using envpool::Config;
using envpool::ConfigValue;
using envpool::DType;
using envpool::Env;
using envpool::EnvSpec;
using envpool::FindTask;
using envpool::MakeConfigs;
using envpool::RegisterTask;
using envpool::RegisterTasks;
using envpool::TaskSpec;

namespace {

class Toy : public Env {
 public:
  explicit Toy(const Config&) {}
  static Config DefaultConfig() {
    return {
        {"gravity", 9.8}, {"size", int64_t{3}}, {"name", std::string("toy")}, {"walls", std::vector<std::string>{}}};
  }
  static EnvSpec Spec(const Config& c) {
    EnvSpec spec;
    spec.obs.push_back(ArraySpec::Box("obs", DType::kFloat32, {static_cast<int>(c.Get<int64_t>("size"))}, {}, {}));
    spec.action.push_back(ArraySpec::Discrete("action", 2));
    return spec;
  }
  void Reset(envpool::Rng&, envpool::Output&) override {}
  void Step(const envpool::Action&, envpool::Rng&, envpool::Output&) override {}
};

using Kwargs = std::vector<std::pair<std::string, std::vector<ConfigValue>>>;

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void ATaskIsFoundByIdWithItsOverrides() {
  const TaskSpec& added = RegisterTask(envpool::Task<Toy>("RegToy-v0", 200, 195.0, {{"size", int64_t{5}}}));
  const TaskSpec& found = FindTask("RegToy-v0");
  CHECK(&found == &added);
  CHECK_EQ(found.max_episode_steps, 200);
  CHECK_EQ(found.reward_threshold, 195.0);
  CHECK_EQ(found.defaults.Get<int64_t>("size"), 5);      // the override
  CHECK_EQ(found.defaults.Get<double>("gravity"), 9.8);  // the class default
  const EnvSpec spec = found.spec(found.defaults);
  CHECK_EQ(spec.obs[0].shape[0], 5);
  CHECK(found.make(found.defaults) != nullptr);
  CHECK(std::isnan(envpool::Task<Toy>("x", 0).reward_threshold));
}

void ADuplicateIdIsRefusedNamingItsOwner() {
  TaskSpec first = envpool::Task<Toy>("RegDup-v0", 0);
  first.origin = "plugin one";
  RegisterTask(std::move(first));
  const std::size_t before = AllTasks().size();
  const std::string msg = CHECK_THROWS(std::invalid_argument, RegisterTask(envpool::Task<Toy>("RegDup-v0", 0)));
  CHECK(Contains(msg, "'RegDup-v0' is already registered (by plugin one)"));
  CHECK_EQ(AllTasks().size(), before);
}

void IncompleteTasksAreRefused() {
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, RegisterTask(envpool::Task<Toy>("", 0))), "empty"));
  TaskSpec no_make = envpool::Task<Toy>("RegNoMake-v0", 0);
  no_make.make = nullptr;
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, RegisterTask(std::move(no_make))), "lacks spec or make"));
  CHECK_THROWS(std::invalid_argument, FindTask("RegNoMake-v0"));
}

// A batch with one bad task (here: an id given twice) adds none of its tasks.
void ARefusedBatchAddsNothing() {
  const std::size_t before = AllTasks().size();
  std::vector<TaskSpec> batch;
  batch.push_back(envpool::Task<Toy>("RegBatchA-v0", 0));
  batch.push_back(envpool::Task<Toy>("RegBatchB-v0", 0));
  batch.push_back(envpool::Task<Toy>("RegBatchA-v0", 0));
  const std::string msg = CHECK_THROWS(std::invalid_argument, RegisterTasks(std::move(batch)));
  CHECK(Contains(msg, "'RegBatchA-v0' is given twice"));
  CHECK_EQ(AllTasks().size(), before);
  CHECK_THROWS(std::invalid_argument, FindTask("RegBatchB-v0"));
  // The same batch without the repeat is added whole, in order.
  std::vector<TaskSpec> good;
  good.push_back(envpool::Task<Toy>("RegBatchA-v0", 0));
  good.push_back(envpool::Task<Toy>("RegBatchB-v0", 0));
  RegisterTasks(std::move(good));
  const auto all = AllTasks();
  CHECK_EQ(all.size(), before + 2);
  CHECK_EQ(all[before]->id, std::string("RegBatchA-v0"));
  CHECK_EQ(all[before + 1]->id, std::string("RegBatchB-v0"));
}

void AnUnknownIdNamesTheClosest() {
  RegisterTask(envpool::Task<Toy>("RegCartPole-v1", 0));
  const std::string msg = CHECK_THROWS(std::invalid_argument, FindTask("regcartpole-v2"));
  CHECK(Contains(msg, "unknown task id 'regcartpole-v2'; did you mean 'RegCartPole-v1'"));
  CHECK(Contains(msg, "envpool.list_all_envs()"));
}

void AnAliasFindsItsTaskWhichIsListedOnce() {
  const std::size_t before = AllTasks().size();
  const TaskSpec& added =
      RegisterTask(envpool::Task<Toy>("RegAliased-v1", 7).WithAliases({"RegAliased-v0", "old/RegAliased-v0"}));
  CHECK_EQ(AllTasks().size(), before + 1);  // one entry, not three
  CHECK(&FindTask("RegAliased-v0") == &added);
  CHECK(&FindTask("old/RegAliased-v0") == &added);
  CHECK_EQ(FindTask("RegAliased-v0").id, std::string("RegAliased-v1"));
  CHECK_EQ(added.aliases.size(), 2u);
  // An unknown id's close matches include aliases.
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, FindTask("old/RegAliased-v9")), "'old/RegAliased-v0'"));
}

void ATakenAliasIsRefusedNamingItsOwner() {
  const std::size_t before = AllTasks().size();
  // An alias that is another task's id, or another task's alias; an id that is an alias.
  const std::string as_id = CHECK_THROWS(
      std::invalid_argument, RegisterTask(envpool::Task<Toy>("RegNew-v0", 0).WithAliases({"RegAliased-v1"})));
  CHECK(Contains(as_id, "alias 'RegAliased-v1' of task 'RegNew-v0' is already registered (by built-in)"));
  const std::string as_alias = CHECK_THROWS(
      std::invalid_argument, RegisterTask(envpool::Task<Toy>("RegNew-v0", 0).WithAliases({"RegAliased-v0"})));
  CHECK(Contains(as_alias,
                 "alias 'RegAliased-v0' of task 'RegNew-v0' is already registered as an alias of "
                 "'RegAliased-v1'"));
  const std::string id = CHECK_THROWS(std::invalid_argument, RegisterTask(envpool::Task<Toy>("RegAliased-v0", 0)));
  CHECK(Contains(id, "task id 'RegAliased-v0' is already registered as an alias of 'RegAliased-v1'"));
  // A task naming one id twice; an empty alias.
  CHECK(Contains(
      CHECK_THROWS(std::invalid_argument, RegisterTask(envpool::Task<Toy>("RegNew-v0", 0).WithAliases({"RegNew-v0"}))),
      "names 'RegNew-v0' twice"));
  CHECK(
      Contains(CHECK_THROWS(std::invalid_argument, RegisterTask(envpool::Task<Toy>("RegNew-v0", 0).WithAliases({""}))),
               "empty alias"));
  // Within a batch: an alias of one task that is the next task's id refuses the batch.
  std::vector<TaskSpec> batch;
  batch.push_back(envpool::Task<Toy>("RegBatchC-v0", 0).WithAliases({"RegBatchD-v0"}));
  batch.push_back(envpool::Task<Toy>("RegBatchD-v0", 0));
  CHECK(Contains(CHECK_THROWS(std::invalid_argument, RegisterTasks(std::move(batch))),
                 "task id 'RegBatchD-v0' is given twice as an alias of 'RegBatchC-v0'"));
  CHECK_EQ(AllTasks().size(), before);
  CHECK_THROWS(std::invalid_argument, FindTask("RegNew-v0"));
  CHECK_THROWS(std::invalid_argument, FindTask("RegBatchC-v0"));
}

void KwargsGiveEveryEnvOrEachEnvAValue() {
  const TaskSpec& task = FindTask("RegToy-v0");
  const auto configs = MakeConfigs(task, 3,
                                   {{"gravity", {ConfigValue{int64_t{10}}}},  // an int for a float
                                    {"name", {std::string("a"), std::string("b"), std::string("c")}},
                                    {"walls", {std::vector<double>{}}}});  // an empty list for list[str]
  CHECK_EQ(configs.size(), 3u);
  for (const auto& c : configs) {
    CHECK_EQ(c.Get<double>("gravity"), 10.0);
    CHECK_EQ(c.Get<int64_t>("size"), 5);  // untouched default
    CHECK(c.Get<std::vector<std::string>>("walls").empty());
  }
  CHECK_EQ(configs[1].Get<std::string>("name"), std::string("b"));
  CHECK_EQ(configs[2].Get<std::string>("name"), std::string("c"));
}

void AnUnknownKwargNamesTheKeysClosestFirst() {
  const TaskSpec& task = FindTask("RegToy-v0");
  const std::string msg =
      CHECK_THROWS(std::invalid_argument, MakeConfigs(task, 2, Kwargs{{"gravty", {ConfigValue{1.0}}}}));
  CHECK(Contains(msg, "unknown keyword argument 'gravty' for RegToy-v0 (it takes, closest first: gravity, "));
}

void AValueOfTheWrongTypeOrCountIsRefused() {
  const TaskSpec& task = FindTask("RegToy-v0");
  const std::string type =
      CHECK_THROWS(std::invalid_argument, MakeConfigs(task, 2, Kwargs{{"size", {ConfigValue{2.5}}}}));
  CHECK(Contains(type, "keyword argument 'size' must be int, got float"));
  const std::string count =
      CHECK_THROWS(std::invalid_argument,
                   MakeConfigs(task, 3, Kwargs{{"size", {ConfigValue{int64_t{1}}, ConfigValue{int64_t{2}}}}}));
  CHECK(Contains(count, "'size' has 2 per-env values but num_envs is 3"));
}

}  // namespace

int main() {
  return RunTests({
      {"a task is found by id with its overrides", ATaskIsFoundByIdWithItsOverrides},
      {"a duplicate id is refused naming its owner", ADuplicateIdIsRefusedNamingItsOwner},
      {"incomplete tasks are refused", IncompleteTasksAreRefused},
      {"a refused batch adds nothing", ARefusedBatchAddsNothing},
      {"an unknown id names the closest", AnUnknownIdNamesTheClosest},
      {"an alias finds its task, which is listed once", AnAliasFindsItsTaskWhichIsListedOnce},
      {"a taken alias is refused naming its owner", ATakenAliasIsRefusedNamingItsOwner},
      {"kwargs give every env or each env a value", KwargsGiveEveryEnvOrEachEnvAValue},
      {"an unknown kwarg names the keys closest first", AnUnknownKwargNamesTheKeysClosestFirst},
      {"a value of the wrong type or count is refused", AValueOfTheWrongTypeOrCountIsRefused},
  });
}
