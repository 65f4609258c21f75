// Job metrics split by kind of job (metrics.by_kind, analysis/metrics/kind_metrics.h) on the
// mixed planning example: 60 training jobs and 23 inference services.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;

std::string mixed_scenario() {
  return (testing::source_dir() / "scenarios/examples/plan_mixed.json").string();
}

nlohmann::json run_summary(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"run", mixed_scenario(), "--no-outputs", "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(KindMetrics, AMixedRunSplitsItsJobsAndSummarisesTheBatchJobsApartFromServices) {
  const nlohmann::json m = run_summary()["metrics"];
  ASSERT_TRUE(m.contains("by_kind")) << m.dump(1);
  const nlohmann::json& kinds = m["by_kind"];
  EXPECT_EQ(kinds.size(), 2u);  // no batch inference jobs: that kind is left out
  EXPECT_EQ(kinds["training"]["arrived"], 60);
  EXPECT_EQ(kinds["services"]["arrived"], 23);
  EXPECT_EQ(kinds["training"]["arrived"].get<int>() + kinds["services"]["arrived"].get<int>(),
            m["jobs"]["arrived"].get<int>());
  const int finished =
      kinds["training"]["finished"].get<int>() + kinds["services"]["finished"].get<int>();
  EXPECT_EQ(finished, m["jobs"]["finished"].get<int>());
  // The run's distributions are the training jobs': the services are excluded, and counted.
  for (const char* dist : {"jct_s", "queueing_delay_s", "slowdown"}) {
    EXPECT_EQ(m[dist]["count"], kinds["training"][dist]["count"]) << dist;
    EXPECT_EQ(m[dist]["p95"], kinds["training"][dist]["p95"]) << dist;
    EXPECT_EQ(m[dist]["mean"], kinds["training"][dist]["mean"]) << dist;
  }
  EXPECT_EQ(m["jct_s"]["excluded"]["services"], kinds["services"]["finished"]);
  // Every arrived job is summarised or excluded, once.
  const nlohmann::json& ex = m["jct_s"]["excluded"];
  EXPECT_EQ(m["jct_s"]["count"].get<int>() + ex["services"].get<int>() + ex["rejected"].get<int>() +
                ex["failed"].get<int>() + ex["unfinished"].get<int>(),
            m["jobs"]["arrived"].get<int>());
  // Services live for hours in this trace: pooled, they would move the training JCT a long way.
  EXPECT_GT(kinds["services"]["jct_s"]["mean"].get<double>(),
            2 * kinds["training"]["jct_s"]["mean"].get<double>());
}

TEST(KindMetrics, ARunOfOneKindHasNoSplit) {
  const std::string quickstart =
      (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto r = run_cli({"run", quickstart, "--no-outputs", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out)["metrics"].contains("by_kind"));
}

TEST(KindMetrics, BoundsNameAKindAndCompareShowsItsRows) {
  const auto held = run_cli({"run", mixed_scenario(), "--no-outputs", "--quiet", "--check", "--set",
                             R"(expect={"by_kind.training.jct_s.p95": {"max": 1e9}})"});
  EXPECT_EQ(held.code, 0) << held.err;
  const auto failed = run_cli({"run", mixed_scenario(), "--no-outputs", "--quiet", "--check",
                               "--set", R"(expect={"by_kind.training.jct_s.p95": {"max": 1}})"});
  EXPECT_EQ(failed.code, 3) << failed.err;
  const auto unknown_kind =
      run_cli({"run", mixed_scenario(), "--no-outputs", "--quiet", "--check", "--set",
               R"(expect={"by_kind.inference.jct_s.p95": {"max": 1}})"});
  EXPECT_NE(unknown_kind.code, 0);

  const auto r =
      run_cli({"compare", mixed_scenario(), "--models", "timeslice", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& row : doc["metrics"]) names.push_back(row["name"]);
  for (const char* row :
       {"by_kind.training.jct_s.mean", "by_kind.training.jct_s.p95",
        "by_kind.training.queueing_delay_s.p95", "by_kind.services.queueing_delay_s.p95"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), row), names.end()) << row;
  }
  const nlohmann::json summary = run_summary({"--set", "sharing.model=timeslice"});
  EXPECT_EQ(doc["variants"][0]["metrics"]["by_kind.training.jct_s.p95"]["values"][0],
            summary["metrics"]["by_kind"]["training"]["jct_s"]["p95"]);
}

}  // namespace
}  // namespace gpumux
