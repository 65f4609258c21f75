// `gpumux diff A B`: summaries compared metric by metric with tolerances; exit 0 / 3 / 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;

// A summary.json holding a few metrics (the others are n/a in both, hence not compared).
std::string summary(double finished, double p95, const std::string& extra = "") {
  return R"({"scenario": {"name": "s"}, "metrics": {"jobs": {"finished": )" +
         std::to_string(finished) + R"(, "rejected": 0}, "jct_s": {"p95": )" + std::to_string(p95) +
         ", \"mean\": null}" + extra + "}}";
}

struct Pair {
  testing::fs::path dir;
  std::string a, b;
};

Pair write_pair(const std::string& name, const std::string& a, const std::string& b) {
  Pair p{testing::temp_dir("diff_" + name), "", ""};
  testing::write_file(p.dir / "a" / "summary.json", a);
  testing::write_file(p.dir / "b.json", b);
  p.a = (p.dir / "a").string();  // a run folder
  p.b = (p.dir / "b.json").string();
  return p;
}

TEST(Diff, IdenticalSummariesAreTheSame) {
  const auto p = write_pair("same", summary(100, 1000), summary(100, 1000));
  const auto r = run_cli({"diff", p.a, p.b});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "diff: all 3 metrics within tolerance\n");
}

TEST(Diff, ADifferenceBeyondToleranceExitsThreeAndIsListed) {
  const auto p = write_pair("differs", summary(100, 1000), summary(100, 1010));
  const auto r = run_cli({"diff", p.a, p.b});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.out.find("jct_s.p95"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1000"), std::string::npos);
  EXPECT_NE(r.out.find("1010"), std::string::npos);
  EXPECT_NE(r.out.find("0.00990099"), std::string::npos) << r.out;  // 10 / 1010
  EXPECT_EQ(r.out.find("jobs.finished"), std::string::npos);        // equal: not listed
  EXPECT_NE(r.out.find("diff: 1 of 3 metrics differ beyond tolerance"), std::string::npos);

  const auto json = run_cli({"diff", p.a, p.b, "--format", "json"});
  EXPECT_EQ(json.code, 3);
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_FALSE(doc["same"].get<bool>());
  ASSERT_EQ(doc["differences"].size(), 1u);
  EXPECT_EQ(doc["differences"][0]["metric"], "jct_s.p95");
  EXPECT_DOUBLE_EQ(doc["differences"][0]["relative_difference"].get<double>(), 10.0 / 1010.0);
}

TEST(Diff, TolerancesByMetricGroupAndDefault) {
  const auto p = write_pair("tolerance", summary(100, 1000), summary(101, 1010));
  EXPECT_EQ(run_cli({"diff", p.a, p.b, "--tolerance", "jct_s.p95=0.01"}).code, 3);  // finished
  EXPECT_EQ(run_cli({"diff", p.a, p.b, "--tolerance", "jct_s.p95=0.01", "--tolerance",
                     "jobs.finished=0.01"})
                .code,
            0);
  EXPECT_EQ(run_cli({"diff", p.a, p.b, "--tolerance", "*=0.01"}).code, 0);
  // A group (every jct_s.*) and the more specific name winning over the default.
  EXPECT_EQ(run_cli({"diff", p.a, p.b, "--tolerance", "*=0.01", "--tolerance", "jct_s=0.001"}).code,
            3);
  EXPECT_EQ(run_cli({"diff", p.a, p.b, "--tolerance", "*=0.001", "--tolerance", "jct_s=0.01",
                     "--tolerance", "jobs=0.01"})
                .code,
            0);
}

TEST(Diff, AValueAgainstNotAvailableAlwaysDiffers) {
  const auto p = write_pair("na", summary(100, 1000), R"({"scenario": {}, "metrics": {"jobs":
      {"finished": 100, "rejected": 0}, "jct_s": {"p95": null}}})");
  const auto r = run_cli({"diff", p.a, p.b, "--tolerance", "*=1"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("n/a"), std::string::npos) << r.out;
}

TEST(Diff, RealRunsOfTheSameScenarioAreTheSame) {
  const auto dir = testing::temp_dir("diff_runs");
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  ASSERT_EQ(run_cli({"run", q, "--out", (dir / "a").string(), "--quiet"}).code, 0);
  ASSERT_EQ(run_cli({"run", q, "--out", (dir / "b").string(), "--quiet"}).code, 0);
  ASSERT_EQ(run_cli({"run", q, "--out", (dir / "c").string(), "--quiet", "--seed", "7"}).code, 0);
  EXPECT_EQ(run_cli({"diff", (dir / "a").string(), (dir / "b").string()}).code, 0);
  EXPECT_EQ(run_cli({"diff", (dir / "a").string(), (dir / "c").string()}).code, 3);
}

TEST(Diff, BadInputIsExitTwoWithNothingPrinted) {
  const auto p = write_pair("bad", summary(100, 1000), R"({"rows": []})");
  const auto not_summary = run_cli({"diff", p.a, p.b});
  EXPECT_EQ(not_summary.code, 2);
  EXPECT_EQ(not_summary.out, "");
  EXPECT_NE(not_summary.err.find(p.b + "#/metrics"), std::string::npos) << not_summary.err;

  const auto missing = run_cli({"diff", p.a, (p.dir / "none").string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("none"), std::string::npos);

  const auto unknown = run_cli({"diff", p.a, p.a, "--tolerance", "jct.p95_s=0.1"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.out, "");
  EXPECT_NE(unknown.err.find("--tolerance jct.p95_s=0.1"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("closest: jct_s.p95"), std::string::npos) << unknown.err;

  for (const char* bad : {"jct_s.p95", "jct_s.p95=-1", "jct_s.p95=x", "=0.1"}) {
    EXPECT_EQ(run_cli({"diff", p.a, p.a, "--tolerance", bad}).code, 2) << bad;
  }
}

TEST(Diff, IsListedAndItsHelpTeaches) {
  EXPECT_NE(run_cli({"--help"}).out.find("diff"), std::string::npos);
  const auto r = run_cli({"diff", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--tolerance"), std::string::npos);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
}

// --fail-on worse judges each difference by the metric's direction: JCT p95 lower is better, so
// 1000 -> 900 passes the gate and 1000 -> 1010 fails it; a count of jobs has no direction and
// fails it either way.
TEST(Diff, FailOnWorseLetsImprovementsThrough) {
  const auto better = write_pair("better", summary(100, 1000), summary(100, 900));
  const auto any = run_cli({"diff", better.a, better.b});
  EXPECT_EQ(any.code, 3) << "the default fails on any difference";
  EXPECT_NE(any.out.find("better"), std::string::npos) << any.out;
  const auto gate = run_cli({"diff", better.a, better.b, "--fail-on", "worse"});
  EXPECT_EQ(gate.code, 0) << gate.out;
  EXPECT_NE(gate.out.find("1 of 3 metrics differ beyond tolerance, 0 not better (--fail-on worse)"),
            std::string::npos)
      << gate.out;
  const auto worse = write_pair("worse", summary(100, 1000), summary(100, 1010));
  const auto w = run_cli({"diff", worse.a, worse.b, "--fail-on", "worse", "--format", "json"});
  EXPECT_EQ(w.code, 3);
  const auto doc = nlohmann::json::parse(w.out);
  EXPECT_EQ(doc["differences"][0]["change"], "worse");
  EXPECT_EQ(doc["fail_on"], "worse");
  EXPECT_EQ(doc["failing"], 1);
  const auto count = write_pair("count", summary(100, 1000), summary(99, 1000));
  const auto c = run_cli({"diff", count.a, count.b, "--fail-on", "worse"});
  EXPECT_EQ(c.code, 3) << "a count has no direction: unjudged fails the gate";
  EXPECT_NE(c.out.find("unjudged"), std::string::npos) << c.out;
  EXPECT_EQ(run_cli({"diff", count.a, count.b, "--fail-on", "best"}).code, 2);
}

TEST(Diff, IgnoredMetricsAreNotComparedAndAPatternMustMatchSome) {
  const auto p = write_pair("ignore", summary(100, 1000), summary(100, 1010));
  const auto r = run_cli({"diff", p.a, p.b, "--ignore", "jct_s.*"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "diff: all 2 metrics within tolerance (1 ignored)\n");
  EXPECT_EQ(run_cli({"diff", p.a, p.b, "--ignore", "jct_s.p9?"}).code, 0);
  EXPECT_EQ(run_cli({"diff", p.a, p.b, "--ignore", "jobs.*"}).code, 3);
  // A name a catalogue pattern stands for in these summaries (one MIG profile's metrics).
  const auto slots =
      write_pair("ignore_profile",
                 summary(100, 1000, R"(, "slots": {"profiles": {"1g.10gb": {"occupancy": 0.5}}})"),
                 summary(100, 1000, R"(, "slots": {"profiles": {"1g.10gb": {"occupancy": 0.6}}})"));
  EXPECT_EQ(run_cli({"diff", slots.a, slots.b}).code, 3);
  const auto profile = run_cli({"diff", slots.a, slots.b, "--ignore", "slots.profiles.1g.10gb.*"});
  EXPECT_EQ(profile.code, 0) << profile.err;
  const auto bad = run_cli({"diff", p.a, p.b, "--ignore", "jct.p95"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("--ignore jct.p95"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("matches no metric"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace gpumux
