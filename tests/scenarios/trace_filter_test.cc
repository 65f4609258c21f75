// `trace.filter` in a scenario: what it reads, what it echoes, and that every bad value names
// its JSON pointer and field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "scenarios/scenario.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using json = nlohmann::json;

json with_filter(const json& filter) {
  return {{"cluster",
           {{"node_groups", {{{"nodes", 1}, {"gpus_per_node", 4}, {"device", "A100-80GB"}}}}}},
          {"trace", {{"generator", {{"jobs", 10}}}, {"filter", filter}}}};
}

Scenario parse_filter_scenario(const json& doc) {
  const std::string file = (std::filesystem::path(::testing::TempDir()) / "f.json").string();
  return parse_scenario(doc, file, ::testing::TempDir());
}

std::string filter_error_of(const json& filter) {
  return input_error_message([&] { parse_filter_scenario(with_filter(filter)); });
}

TEST(TraceFilterScenario, ReadsEveryCriterionAndEchoesIt) {
  const Scenario s = parse_filter_scenario(with_filter(
      {{"gpus", {{"min", 1}, {"max", 8}}}, {"kind", {"inference"}}, {"tenant", {"t1", "t2"}}}));
  EXPECT_TRUE(s.trace.filter.active());
  EXPECT_EQ(*s.trace.filter.min_gpus, 1);
  EXPECT_EQ(*s.trace.filter.max_gpus, 8);
  EXPECT_EQ(s.trace.filter.kinds, (std::vector<JobKind>{JobKind::kInference}));
  EXPECT_EQ(s.trace.filter.tenants, (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(s.resolved["trace"]["filter"], (json{{"gpus", {{"min", 1}, {"max", 8}}},
                                                 {"kind", {"inference"}},
                                                 {"tenant", {"t1", "t2"}}}));
}

TEST(TraceFilterScenario, OneSidedBoundsAndNoFilterLeaveNoEcho) {
  const Scenario s = parse_filter_scenario(with_filter({{"gpus", {{"min", 1}}}}));
  EXPECT_FALSE(s.trace.filter.max_gpus.has_value());
  EXPECT_EQ(s.resolved["trace"]["filter"], (json{{"gpus", {{"min", 1}}}}));
  json plain = with_filter(json::object());
  EXPECT_FALSE(
      parse_filter_scenario(plain).resolved["trace"].contains("filter"));  // {} keeps every job
  plain["trace"].erase("filter");
  EXPECT_FALSE(parse_filter_scenario(plain).trace.filter.active());
  EXPECT_FALSE(parse_filter_scenario(plain).resolved["trace"].contains("filter"));
}

TEST(TraceFilterScenario, BadValuesNameTheirPointerAndField) {
  EXPECT_THAT(filter_error_of({{"gpus", {{"min", 4}, {"max", 2}}}}),
              HasSubstr("#/trace/filter/gpus/min: field 'min': min 4 is above max 2"));
  EXPECT_THAT(filter_error_of({{"gpus", {{"min", -1}}}}),
              HasSubstr("#/trace/filter/gpus/min: field 'min'"));
  EXPECT_THAT(filter_error_of({{"gpus", {{"max", 1.5}}}}),
              HasSubstr("#/trace/filter/gpus/max: field 'max'"));
  EXPECT_THAT(filter_error_of({{"gpus", {{"least", 1}}}}),
              HasSubstr("#/trace/filter/gpus/least: field 'least'"));
  EXPECT_THAT(filter_error_of({{"gpus", 2}}), HasSubstr("#/trace/filter/gpus"));
  EXPECT_THAT(filter_error_of({{"kind", {"batch"}}}),
              HasSubstr("#/trace/filter/kind/0: field 'kind': unknown job kind 'batch' (valid: "
                        "training, inference)"));
  EXPECT_THAT(filter_error_of({{"kind", "training"}}),
              HasSubstr("#/trace/filter/kind: field 'kind'"));
  EXPECT_THAT(filter_error_of({{"kind", json::array()}}),
              HasSubstr("#/trace/filter/kind: field 'kind'"));
  EXPECT_THAT(filter_error_of({{"tenant", {"a", 3}}}),
              HasSubstr("#/trace/filter/tenant/1: field 'tenant': expected a string"));
  // The job model has no role or user field: such keys are unknown, listing the valid ones.
  EXPECT_THAT(filter_error_of({{"role", {"worker"}}}),
              HasSubstr("#/trace/filter/role: field 'role': unknown key (valid keys here: gpus, "
                        "kind, tenant)"));
  EXPECT_THAT(input_error_message([&] {
                json doc = with_filter(json::object());
                doc["trace"]["filter"] = json::array();
                parse_filter_scenario(doc);
              }),
              HasSubstr("#/trace/filter"));
}

}  // namespace
}  // namespace gpumux
