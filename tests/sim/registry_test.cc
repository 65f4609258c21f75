#include "sim/base/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "sim/base/json_fields.h"
#include "sim/base/parameter.h"
#include "sim/base/parameter_spec.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/backfill_queue.h"
#include "sim/scheduling/registry.h"
#include "sim/scheduling/scheduler.h"

namespace gpumux {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A family of this test's own: what an addition to any family takes is one more row.
struct ToyInfo {
  std::string_view name;
  std::string_view summary;
  int value = 0;
};

const Registry<ToyInfo>& toys() {
  static const Registry<ToyInfo> table(
      "toy", {{"alpha", "the first", 1}, {"beta", "the second", 2}, {"gamma", "the third", 3}});
  return table;
}

TEST(Registry, FindsByExactNameInTableOrder) {
  ASSERT_NE(toys().find("beta"), nullptr);
  EXPECT_EQ(toys().find("beta")->value, 2);
  EXPECT_EQ(toys().find("Beta"), nullptr);
  EXPECT_EQ(toys().find("delta"), nullptr);
  EXPECT_THAT(toys().names(), ElementsAre("alpha", "beta", "gamma"));
  EXPECT_EQ(toys().names_text(), "alpha, beta, gamma");
  EXPECT_EQ(toys().size(), 3u);
  int sum = 0;
  for (const ToyInfo& t : toys()) sum += t.value;
  EXPECT_EQ(sum, 6);
}

TEST(Registry, UnknownNameErrorListsTheValidNamesAndTheClosestOne) {
  EXPECT_EQ(toys().unknown_message("bta"),
            "unknown toy 'bta' (valid: alpha, beta, gamma) (did you mean 'beta'?)");
  EXPECT_EQ(toys().unknown_message("zzzzzzzz", "see the docs"),
            "unknown toy 'zzzzzzzz' (valid: alpha, beta, gamma; see the docs)");
  try {
    toys().get("gama", "s.json#/toy", "toy");
    FAIL() << "no error for an unknown name";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("s.json#/toy"));
    EXPECT_THAT(e.what(), HasSubstr("field 'toy'"));
    EXPECT_THAT(e.what(), HasSubstr("unknown toy 'gama' (valid: alpha, beta, gamma)"));
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'gamma'?"));
  }
  EXPECT_EQ(toys().get("gamma", "w", "toy").value, 3);
}

// An entry whose name is a pattern is found by its own `matches` (as the metric catalogue's
// "slots.profiles.*.occupancy"); the first match in table order wins.
struct PatternInfo {
  std::string name;
  std::string_view summary;
  bool matches(std::string_view n) const {
    const std::string_view prefix = std::string_view(name).substr(0, name.find('*'));
    return name.find('*') == std::string::npos ? n == name : n.substr(0, prefix.size()) == prefix;
  }
};

TEST(Registry, APatternEntryIsFoundByItsMatch) {
  const Registry<PatternInfo> table(
      "pattern", {{"jobs.count", "exact"}, {"slots.*", "any slot"}, {"slots.all", "never found"}});
  ASSERT_NE(table.find("slots.1g.10gb"), nullptr);
  EXPECT_EQ(table.find("slots.1g.10gb")->summary, "any slot");
  EXPECT_EQ(table.find("slots.all")->summary, "any slot");
  EXPECT_EQ(table.find("jobs.count")->summary, "exact");
  EXPECT_EQ(table.find("jobs.counts"), nullptr);
  EXPECT_EQ(table.find("slot"), nullptr);
}

TEST(Registry, HelpTextIsOneLinePerEntry) {
  EXPECT_EQ(toys().help_text(), "  alpha  the first\n  beta  the second\n  gamma  the third\n");
}

// The placement and queue tables build every entry through its factory with the parameters it
// read from an empty scheduler.params (none declared today: an empty set).
TEST(Registry, PolicyEntriesReadTheirParametersAndBuild) {
  const nlohmann::json empty = nlohmann::json::object();
  for (const auto& info : queue_policies()) {
    JsonObject params(empty, "s.json", "/scheduler/params");
    const ParameterSet set = read_queue_params(info, params);
    params.finish();
    ASSERT_NE(info.make, nullptr) << info.name;
    EXPECT_NE(info.make(QueueSettings{}, set), nullptr) << info.name;
  }
  for (const auto& info : placement_policies()) {
    JsonObject params(empty, "s.json", "/scheduler/params");
    const ParameterSet set = read_placement_params(info, params);
    params.finish();
    ASSERT_NE(info.make, nullptr) << info.name;
    if (info.share_aware) continue;  // needs a share view (tests/e2e builds them in runs)
    const auto policy = make_placement(info, PlacementContext{}, set);
    EXPECT_EQ(policy->name(), info.name);
  }
}

// A queue policy's parameter takes one spec, its entry's read_params and its factory: a
// throwaway entry here reads `scheduler.params` and builds a scheduler with the value.
constexpr NumberSpec kDepth{
    "depth", "jobs", 4.0, 1.0, 100.0, "default (test)", "queued jobs examined per pass", true};

ParameterSet read_depth(JsonObject& params) {
  ParameterSet set;
  set.add(declare(kDepth, read(params, kDepth)));
  return set;
}

int built_with_depth = 0;

std::unique_ptr<QueuePolicy> make_deep_backfill(const QueueSettings&, const ParameterSet& params) {
  built_with_depth = static_cast<int>(params.find("depth")->value);
  return std::make_unique<BackfillQueue>(built_with_depth);
}

TEST(Registry, AThrowawayQueueEntryReadsItsDeclaredParameter) {
  const QueuePolicyInfo entry{"deep-backfill", "backfill with its own depth", false,
                              make_deep_backfill, read_depth};
  const nlohmann::json given = {{"depth", 7}};
  JsonObject params(given, "s.json", "/scheduler/params");
  const ParameterSet set = read_queue_params(entry, params);
  params.finish();
  ASSERT_EQ(set.declared().size(), 1u);
  EXPECT_EQ(set.declared()[0].source, "scenario");
  EXPECT_EQ(set.declared()[0].accepts, "[1, 100] jobs, whole numbers");
  Scheduler scheduler(entry, make_placement_policy("first-fit"), QueueSettings{}, set);
  EXPECT_EQ(scheduler.policy_name(), "deep-backfill");
  EXPECT_EQ(built_with_depth, 7);
  // Out of range: the spec's error, naming the key under scheduler.params.
  const nlohmann::json bad = {{"depth", 0}};
  JsonObject bad_params(bad, "s.json", "/scheduler/params");
  EXPECT_THROW(read_queue_params(entry, bad_params), InputError);
  // Absent: the default, from the spec.
  const nlohmann::json none = nlohmann::json::object();
  JsonObject no_params(none, "s.json", "/scheduler/params");
  EXPECT_EQ(read_queue_params(entry, no_params).find("depth")->value, 4.0);
}

TEST(ParameterSet, FindsADeclaredParameterByName) {
  ParameterSet set;
  EXPECT_TRUE(set.empty());
  set.add(ModelParameter("depth", 8.0, "jobs", "scenario", "how deep"));
  EXPECT_FALSE(set.empty());
  ASSERT_NE(set.find("depth"), nullptr);
  EXPECT_EQ(set.find("depth")->value, 8.0);
  EXPECT_EQ(set.find("width"), nullptr);
}

}  // namespace
}  // namespace gpumux
