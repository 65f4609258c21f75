#include "analysis/report/plan_charts.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpumux {
namespace {

// A plan.json in the shape plan_to_json writes, cut to what the charts read.
nlohmann::json small_plan() {
  return nlohmann::json::parse(R"({
    "objectives": [
      {"objective": "queueing_delay_s.p95<=60", "metric": "queueing_delay_s.p95", "limit": 60,
       "implicit": false},
      {"objective": "rejected_jobs<=0", "metric": "jobs.rejected", "limit": 0, "implicit": true},
      {"objective": "jct_s.p95<=1.1x exclusive", "metric": "jct_s.p95", "limit": 1.1,
       "implicit": true, "relative_to": "exclusive", "baseline": 300}],
    "models": [
      {"model": "exclusive", "met": true, "placement": "spread",
       "at_answer": {"nodes": 3, "objectives": {"queueing_delay_s.p95<=60": {"value": 10},
                                                 "jct_s.p95<=1.1x exclusive": {"value": 300}}},
       "placements": [
         {"placement": "best-fit", "probes": [
           {"nodes": 2, "objectives": {"queueing_delay_s.p95<=60": {"value": 900}}},
           {"nodes": 1, "objectives": {"queueing_delay_s.p95<=60": {"value": 5000}}}]},
         {"placement": "spread", "probes": [
           {"nodes": 3, "objectives": {"queueing_delay_s.p95<=60": {"value": 10},
                                       "jct_s.p95<=1.1x exclusive": {"value": 300}}},
           {"nodes": 2, "objectives": {"queueing_delay_s.p95<=60": {"value": null}}}]}]}]
  })");
}

TEST(PlanCharts, OneKneeChartPerObjectiveWithTheBoundAndTheAnswer) {
  const auto charts = plan_knee_charts(small_plan());
  // The user's objective and the JCT guard; the always-applied count is left out.
  ASSERT_EQ(charts.size(), 2u);
  const auto& queue = charts[0];
  EXPECT_NE(queue.title.find("queueing_delay_s.p95<=60"), std::string::npos);
  // Two placements and the bound line.
  ASSERT_EQ(queue.series.size(), 3u);
  EXPECT_EQ(queue.series[0].name, "exclusive/best-fit");
  ASSERT_EQ(queue.series[0].points.size(), 2u);
  EXPECT_EQ(queue.series[0].points[0].x, 1);  // sorted by nodes
  EXPECT_EQ(queue.series[0].points[0].y, 5000);
  EXPECT_TRUE(queue.series[0].marks.empty());
  EXPECT_EQ(queue.series[1].name, "exclusive/spread (answer)");
  ASSERT_EQ(queue.series[1].marks.size(), 1u);
  EXPECT_EQ(queue.series[1].marks[0].x, 3);
  EXPECT_EQ(queue.series[1].marks[0].y, 10);
  // The bound spans the sizes run; values far above it are cut at 4x the bound.
  const auto& bound = queue.series[2];
  ASSERT_EQ(bound.points.size(), 2u);
  EXPECT_EQ(bound.points[0].x, 1);
  EXPECT_EQ(bound.points[1].x, 3);
  EXPECT_EQ(bound.points[0].y, 60);
  ASSERT_TRUE(queue.y_max);
  EXPECT_EQ(*queue.y_max, 240);
  // A relative objective's bound is factor x the exclusive baseline.
  EXPECT_DOUBLE_EQ(charts[1].series.back().points[0].y, 330);
  // The SVG draws the answer as a circle.
  EXPECT_NE(svg_chart(queue).find("class=\"mark\""), std::string::npos);
}

// MIG searches: a series per layout and placement, named by the layout; the answer marked on
// its own layout only; a search stopped after one size draws nothing; sizes above twice the
// largest answer are cut.
TEST(PlanCharts, MigLayoutsAreSeriesOfTheirOwn) {
  auto plan = small_plan();
  const auto probe = [](int nodes, double value) {
    return nlohmann::json{{"nodes", nodes},
                          {"objectives", {{"queueing_delay_s.p95<=60", {{"value", value}}}}}};
  };
  plan["models"].push_back(
      {{"model", "mig"},
       {"met", true},
       {"placement", "best-fit"},
       {"layout", {{"name", "7g.80gb"}}},
       {"nodes", 4},
       {"at_answer", probe(4, 0)},
       {"placements",
        {{{"placement", "best-fit"},
          {"layout", "2x 3g.40gb"},
          {"probes", {probe(1, 7000)}}},
         {{"placement", "best-fit"},
          {"layout", "7g.80gb"},
          {"probes", {probe(2, 3000), probe(4, 0), probe(3, 100), probe(16, 0)}}},
         {{"placement", "spread"},
          {"layout", "7g.80gb"},
          {"probes", {probe(2, 2000), probe(4, 0)}}}}}});
  const auto charts = plan_knee_charts(plan);
  const auto& series = charts[0].series;
  // exclusive's two, mig's two drawn (the one-probe search left out), the bound.
  ASSERT_EQ(series.size(), 5u);
  EXPECT_EQ(series[2].name, "mig 7g.80gb/best-fit (answer)");
  ASSERT_EQ(series[2].marks.size(), 1u);
  EXPECT_EQ(series[2].marks[0].x, 4);
  // 16 nodes lie beyond twice the largest answer (4): cut.
  ASSERT_EQ(series[2].points.size(), 3u);
  EXPECT_EQ(series[2].points.back().x, 4);
  EXPECT_EQ(series[3].name, "mig 7g.80gb/spread");
  EXPECT_TRUE(series[3].marks.empty());
}

TEST(PlanCharts, LoadChartSkipsLoadsWithoutAnAnswer) {
  const auto spec = plan_load_chart(nlohmann::json::parse(
      R"({"loads": [2, 1, 1.5], "gpus_by_load": [{"model": "mps", "gpus": [16, 8, null]}]})"));
  ASSERT_EQ(spec.series.size(), 1u);
  ASSERT_EQ(spec.series[0].points.size(), 2u);
  EXPECT_EQ(spec.series[0].points[0].x, 1);
  EXPECT_EQ(spec.series[0].points[0].y, 8);
  EXPECT_EQ(spec.series[0].points[1].x, 2);
}

}  // namespace
}  // namespace gpumux
