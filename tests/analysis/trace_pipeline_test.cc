// The run's trace pipeline (analysis/run/trace_pipeline.h) built from the table of transforms
// (traces/transforms/registry.h): the stages a scenario turns on, in table order, and the
// typical workload's shorter pipeline.
#include "analysis/run/trace_pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "scenarios/scenario.h"
#include "traces/transforms/filter_source.h"
#include "traces/transforms/inflation_source.h"
#include "traces/transforms/load_factor_source.h"
#include "traces/transforms/registry.h"
#include "traces/transforms/resample_source.h"

namespace gpumux {
namespace {

using json = nlohmann::json;
using Names = std::vector<std::string_view>;

Scenario parse(const json& trace) {
  const json doc = {
      {"cluster",
       {{"node_groups", {{{"nodes", 1}, {"gpus_per_node", 4}, {"device", "A100-80GB"}}}}}},
      {"trace", trace}};
  const std::string file = (std::filesystem::path(::testing::TempDir()) / "p.json").string();
  return parse_scenario(doc, file, ::testing::TempDir());
}

TEST(TraceTransforms, TableNamesAreUniqueAndFindable) {
  std::set<std::string_view> names;
  for (const TraceTransformInfo& t : trace_transforms()) {
    EXPECT_TRUE(names.insert(t.name).second) << t.name;
    EXPECT_EQ(trace_transforms().find(t.name), &t);
    EXPECT_NE(t.active, nullptr) << t.name;
    EXPECT_NE(t.wrap, nullptr) << t.name;
    // A block the trace section reads declares the keys it reads.
    if (t.parse) {
      EXPECT_FALSE(t.parameters.empty()) << t.name;
    }
  }
  EXPECT_EQ(trace_transforms().find("no such stage"), nullptr);
  // The filter sees the trace first; fixed kernels mark what every other stage made.
  EXPECT_EQ(trace_transforms().entries().front().name, "filter");
  EXPECT_EQ(trace_transforms().entries().back().name, "kernel_lengths");
}

TEST(TracePipeline, WrapsTheActiveStagesInTableOrder) {
  const Scenario s = parse({{"generator", {{"jobs", 20}}},
                            {"load_factor", 2.0},
                            {"resample", {{"method", "bootstrap"}}},
                            {"filter", {{"gpus", {{"max", 8}}}}}});
  TracePipeline pipeline(s, nullptr);
  EXPECT_EQ(pipeline.transform_names(), (Names{"filter", "resample", "load_factor", "services"}));
  EXPECT_EQ(pipeline.trace(), nullptr);  // generated
  EXPECT_NE(pipeline.stage<FilteringSource>(), nullptr);
  EXPECT_NE(pipeline.stage<ResamplingSource>(), nullptr);
  EXPECT_NE(pipeline.stage<LoadFactorSource>(), nullptr);
  EXPECT_EQ(pipeline.stage<InflatingSource>(), nullptr);
  std::size_t jobs = 0;
  JobSpec job;
  while (pipeline.jobs().next(job)) ++jobs;
  EXPECT_GT(jobs, 0u);
}

TEST(TracePipeline, TypicalJobsReadOnlyTheStagesThatShapeWhichJobsThereAre) {
  const Scenario s = parse({{"generator", {{"jobs", 20}}},
                            {"load_factor", 2.0},
                            {"integer_seconds", true},
                            {"resample", {{"method", "arrival-order"}}}});
  TracePipeline typical(s, nullptr, TracePipeline::Stages::kTypicalJobs);
  EXPECT_EQ(typical.transform_names(), (Names{"resample"}));
  const Scenario plain_scenario = parse({{"generator", {{"jobs", 5}}}});
  const TracePipeline plain(plain_scenario, nullptr);
  EXPECT_EQ(plain.transform_names(), (Names{"services"}));
}

}  // namespace
}  // namespace gpumux
