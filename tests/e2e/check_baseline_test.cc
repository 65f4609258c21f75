// `gpumux check --baseline DIR`: each scenario's summary against what an earlier `check --out
// DIR` wrote, judged as `gpumux diff` judges (tolerances, --ignore, --fail-on any|worse).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

// Two T4s and jobs of `runtime` s, one submitted per second; `expect` spliced in when given.
std::string baseline_scenario(const fs::path& dir, int runtime, const std::string& expect = "") {
  const std::string r = std::to_string(runtime);
  testing::write_file(dir / "trace.csv", "id,submit_s,gpus,runtime_s\na,0,1," + r + "\nb,1,1," + r +
                                             "\nc,2,1," + r + "\n");
  const fs::path file = dir / "gate.json";
  testing::write_file(file, R"({"name": "gate",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv"})" +
                                (expect.empty() ? "" : ", \"expect\": " + expect) + "}");
  return file.string();
}

TEST(CheckBaseline, TheSameRunPassesAndASlowerOneFailsNamingTheMetrics) {
  const auto dir = testing::temp_dir("check_baseline");
  const auto golden = (dir / "golden").string();
  const auto s = baseline_scenario(dir, 10, R"({"jobs.finished": {"min": 3}})");
  ASSERT_EQ(testing::run_cli({"check", s, "--out", golden}).code, 0);
  ASSERT_TRUE(fs::exists(dir / "golden" / "gate" / "summary.json"));

  const auto same = testing::run_cli({"check", s, "--baseline", golden});
  EXPECT_EQ(same.code, 0) << same.err << same.out;
  EXPECT_NE(same.out.find("0 of "), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("check: all 1 bounds hold in 1 scenario, and no metric fails the "
                          "baseline gate\n"),
            std::string::npos)
      << same.out;

  // Slower jobs: JCT and makespan worse. The bound still holds; the baseline gate fails.
  baseline_scenario(dir, 20, R"({"jobs.finished": {"min": 3}})");
  const auto slower =
      testing::run_cli({"check", s, "--baseline", golden, "--junit", (dir / "junit.xml").string()});
  EXPECT_EQ(slower.code, 3) << slower.err << slower.out;
  EXPECT_NE(slower.out.find("FAIL  " + s), std::string::npos) << slower.out;
  EXPECT_NE(slower.out.find("jct_s.p95"), std::string::npos) << slower.out;
  EXPECT_NE(slower.out.find("check: FAILED: 0 of 1 bounds and "), std::string::npos) << slower.out;
  const std::string junit = testing::read_file(dir / "junit.xml");
  EXPECT_NE(junit.find("name=\"baseline\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("type=\"baseline\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("(worse)"), std::string::npos) << junit;

  // Worse is worse under --fail-on worse too; ignoring every metric that moved lets it pass.
  EXPECT_EQ(testing::run_cli({"check", s, "--baseline", golden, "--fail-on", "worse"}).code, 3);
  const auto json = testing::run_cli({"check", s, "--baseline", golden, "--format", "json"});
  ASSERT_EQ(json.code, 3) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  const auto& diff = doc["scenarios"][0]["baseline"];
  EXPECT_GT(diff["failing"].get<int>(), 0);
  std::vector<std::string> ignore_args = {"check", s, "--baseline", golden};
  for (const auto& d : diff["differences"]) {
    ignore_args.push_back("--ignore");
    ignore_args.push_back(d["metric"].get<std::string>());
  }
  const auto ignored = testing::run_cli(ignore_args);
  EXPECT_EQ(ignored.code, 0) << ignored.err << ignored.out;
  fs::remove_all(dir);
}

TEST(CheckBaseline, FasterJobsPassUnderFailOnWorseOnly) {
  const auto dir = testing::temp_dir("check_baseline_faster");
  const auto golden = (dir / "golden").string();
  // No bounds: with a baseline the scenario is checked against it alone.
  const auto s = baseline_scenario(dir, 20);
  EXPECT_EQ(testing::run_cli({"check", s}).code, 2);  // nothing to check without a baseline
  ASSERT_EQ(testing::run_cli({"check", s, "--baseline", golden}).code, 2);  // none there yet
  {
    // Write the baseline with a bound, then drop it.
    baseline_scenario(dir, 20, R"({"jobs.finished": {"min": 3}})");
    ASSERT_EQ(testing::run_cli({"check", s, "--out", golden}).code, 0);
    baseline_scenario(dir, 20);
  }
  baseline_scenario(dir, 10);
  const auto any = testing::run_cli({"check", s, "--baseline", golden});
  EXPECT_EQ(any.code, 3) << any.err << any.out;
  // Shorter jobs are less work: a count without a direction, unjudged, so it fails the gate
  // unless ignored; every timing metric moved for the better.
  const auto unjudged = testing::run_cli({"check", s, "--baseline", golden, "--fail-on", "worse"});
  EXPECT_EQ(unjudged.code, 3) << unjudged.err << unjudged.out;
  EXPECT_NE(unjudged.out.find("finished_work_gpu_hours"), std::string::npos) << unjudged.out;
  const auto worse = testing::run_cli({"check", s, "--baseline", golden, "--fail-on", "worse",
                                       "--ignore", "finished_work_gpu_hours"});
  EXPECT_EQ(worse.code, 0) << worse.err << worse.out;
  EXPECT_NE(worse.out.find("better"), std::string::npos) << worse.out;
  fs::remove_all(dir);
}

TEST(CheckBaseline, BaselineOptionsWithoutABaselineAndBadPatternsAreRefused) {
  const auto dir = testing::temp_dir("check_baseline_bad");
  const auto s = baseline_scenario(dir, 10, R"({"jobs.finished": {"min": 3}})");
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--fail-on", "worse"},
                                                {"--ignore", "jct_s.*"},
                                                {"--tolerance", "*=0.1"}}) {
    std::vector<std::string> args = {"check", s};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = testing::run_cli(args);
    EXPECT_EQ(r.code, 2) << extra.front();
    EXPECT_NE(r.err.find(extra.front()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--baseline"), std::string::npos) << r.err;
  }
  const auto golden = (dir / "golden").string();
  ASSERT_EQ(testing::run_cli({"check", s, "--out", golden}).code, 0);
  const auto unknown =
      testing::run_cli({"check", s, "--baseline", golden, "--ignore", "no_such_metric"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("no_such_metric"), std::string::npos) << unknown.err;
  EXPECT_TRUE(unknown.out.empty()) << unknown.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
