// The labels of a sweep's variants on the report page (sweep_report_input.h): the model, then
// each axis as key=value with the last segment of its path as the key (the whole path when two
// axes share it), the scenario first when the sweep has several.
#include "analysis/sweep/sweep_report_input.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumux {
namespace {

SweepRun run(const std::string& scenario, const std::string& model,
             std::vector<SweepAxisValue> axes) {
  SweepRun r;
  r.scenario_name = scenario;
  r.model = model;
  r.axes = std::move(axes);
  return r;
}

TEST(SweepReportLabel, ModelThenAxesByTheirLastSegment) {
  const SweepRun r = run("quickstart", "fractional",
                         {{"scheduler.placement", "fgd"}, {"/cluster/node_groups/0/nodes", 4}});
  EXPECT_EQ(sweep_variant_label(r, {r}), "fractional, placement=fgd, nodes=4");
  const SweepRun plain = run("quickstart", "mps", {});
  EXPECT_EQ(sweep_variant_label(plain, {plain}), "mps");
  // A JSON value other than a string is written as JSON.
  const SweepRun object = run("q", "mps", {{"sharing.params", {{"admission", "peak"}}}});
  EXPECT_EQ(sweep_variant_label(object, {object}), "mps, params={\"admission\":\"peak\"}");
}

TEST(SweepReportLabel, SharedSegmentsKeepTheirPathAndScenariosComeFirst) {
  const SweepRun a = run("a", "mps",
                         {{"/cluster/node_groups/0/nodes", 2},
                          {"/cluster/node_groups/1/nodes", 8},
                          {"scheduler.queue", "fifo"}});
  const SweepRun b = run("b", "mps", a.axes);
  EXPECT_EQ(sweep_variant_label(a, {a}),
            "mps, /cluster/node_groups/0/nodes=2, /cluster/node_groups/1/nodes=8, queue=fifo");
  EXPECT_EQ(sweep_variant_label(b, {a, b}),
            "b: mps, /cluster/node_groups/0/nodes=2, /cluster/node_groups/1/nodes=8, queue=fifo");
}

}  // namespace
}  // namespace gpumux
