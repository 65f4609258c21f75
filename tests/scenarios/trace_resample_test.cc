// `trace.resample` in a scenario: what it reads, what it echoes, and that every bad value names
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

json with_resample(const json& resample) {
  return {{"cluster",
           {{"node_groups", {{{"nodes", 1}, {"gpus_per_node", 4}, {"device", "A100-80GB"}}}}}},
          {"trace", {{"generator", {{"jobs", 10}}}, {"resample", resample}}}};
}

Scenario parse_resample_scenario(const json& doc) {
  const std::string file = (std::filesystem::path(::testing::TempDir()) / "r.json").string();
  return parse_scenario(doc, file, ::testing::TempDir());
}

std::string resample_error_of(const json& doc) {
  return input_error_message([&] { parse_resample_scenario(doc); });
}

TEST(TraceResampleScenario, ReadsEachMethodAndEchoesIt) {
  const Scenario b = parse_resample_scenario(with_resample({{"method", "bootstrap"}}));
  EXPECT_EQ(b.trace.resample, ResampleMethod::kBootstrap);
  EXPECT_EQ(b.resolved["trace"]["resample"], (json{{"method", "bootstrap"}}));
  const Scenario a = parse_resample_scenario(with_resample({{"method", "arrival-order"}}));
  EXPECT_EQ(a.trace.resample, ResampleMethod::kArrivalOrder);
  EXPECT_EQ(a.resolved["trace"]["resample"], (json{{"method", "arrival-order"}}));
}

TEST(TraceResampleScenario, AbsentMeansNoResamplingAndNoEcho) {
  json doc = with_resample(json::object());
  doc["trace"].erase("resample");
  const Scenario s = parse_resample_scenario(doc);
  EXPECT_EQ(s.trace.resample, ResampleMethod::kNone);
  EXPECT_FALSE(s.resolved["trace"].contains("resample"));
}

TEST(TraceResampleScenario, BadValuesNameTheirPointerAndField) {
  EXPECT_THAT(resample_error_of(with_resample({{"method", "bootstap"}})),
              HasSubstr("#/trace/resample/method: field 'method': unknown resampling method "
                        "'bootstap' (did you mean 'bootstrap'?); valid: bootstrap, "
                        "arrival-order"));
  EXPECT_THAT(resample_error_of(with_resample({{"method", "arrival_order"}})),
              HasSubstr("(did you mean 'arrival-order'?)"));
  EXPECT_THAT(resample_error_of(with_resample({{"method", 3}})),
              HasSubstr("#/trace/resample/method: field 'method'"));
  EXPECT_THAT(resample_error_of(with_resample(json::object())),
              HasSubstr("#/trace/resample: field 'method': required key is missing"));
  EXPECT_THAT(resample_error_of(with_resample({{"method", "bootstrap"}, {"jobs", 5}})),
              HasSubstr("#/trace/resample/jobs: field 'jobs': unknown key (valid keys here: "
                        "method)"));
  EXPECT_THAT(resample_error_of(with_resample("bootstrap")), HasSubstr("#/trace/resample"));
}

// Inflation already draws jobs with replacement at new arrival times: the two are refused
// together, pointing at resample.
TEST(TraceResampleScenario, IsRefusedWithInflation) {
  json doc = with_resample({{"method", "bootstrap"}});
  doc["trace"]["inflation"] = {{"load", 0.5}};
  EXPECT_THAT(resample_error_of(doc),
              HasSubstr("#/trace/resample: field 'resample': cannot be combined "
                        "with trace.inflation"));
}

}  // namespace
}  // namespace gpumux
