// `gpumux check`, `expect` bounds on `gpumux run`, `run --format`, n/a for empty sets and the
// error for an unknown subcommand: exit codes and what is printed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

// Two T4s and three 1-GPU jobs of 10 s, one per second: all finish; `expect` is spliced in.
std::string check_scenario(const fs::path& dir, const std::string& name, const std::string& expect,
                           const std::string& extra = "") {
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1,10\nc,2,1,10\n");
  const fs::path file = dir / (name + ".json");
  testing::write_file(file, R"({"name": ")" + name + R"(",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv"})" +
                                extra + (expect.empty() ? "" : ", \"expect\": " + expect) + "}");
  return file.string();
}

TEST(Check, AllBoundsHoldExitsZeroWithATable) {
  const auto dir = testing::temp_dir("check_pass");
  const auto s = check_scenario(dir, "pass",
                                R"({"jobs.finished": {"min": 3, "max": 3}, "jct_s.max": {"max": 30},
                              "jobs.rejected": {"max": 0}})");
  const auto r = run_cli({"check", s});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("PASS  " + s + "  (scenario 'pass', seed 1; 3 of 3 bounds hold)"),
            std::string::npos)
      << r.out;
  // Job c waits for a GPU until a finishes at 10 s: its JCT is 18 s.
  EXPECT_NE(r.out.find("  jct_s.max         18  <= 30  pass\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  jobs.finished      3  = 3    pass\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: all 3 bounds hold in 1 scenario\n"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "out"));  // check writes nothing without --out
  fs::remove_all(dir);
}

TEST(Check, AFailedBoundExitsThreeAndNamesIt) {
  const auto dir = testing::temp_dir("check_fail");
  const auto good = check_scenario(dir, "good", R"({"jobs.finished": {"min": 3}})");
  const auto bad = check_scenario(dir, "bad", R"({"queueing_delay_s.max": {"max": 5}})");
  const auto r = run_cli({"check", good, bad});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.out.find("FAIL  " + bad), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  queueing_delay_s.max      8  <= 5   FAIL\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: FAILED: 1 of 2 bounds in 1 of 2 scenarios (" + bad + ")"),
            std::string::npos)
      << r.out;
  const auto j = run_cli({"check", good, bad, "--format", "json"});
  EXPECT_EQ(j.code, 3);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_FALSE(doc["pass"].get<bool>());
  EXPECT_TRUE(doc["scenarios"][0]["pass"].get<bool>());
  EXPECT_EQ(doc["scenarios"][1]["bounds"][0]["value"], 8.0);
  EXPECT_FALSE(doc["scenarios"][1]["bounds"][0]["pass"].get<bool>());
  fs::remove_all(dir);
}

// A bound's note says why it is what it is: a failure prints it in the table and the JSON, and
// --junit writes one testcase per bound with value, bound and note in the failure's message.
TEST(Check, NotesAndJunitNameEachFailure) {
  const auto dir = testing::temp_dir("check_junit");
  const auto good =
      check_scenario(dir, "good", R"({"jobs.finished": {"min": 3, "note": "all of them"}})");
  const auto bad = check_scenario(dir, "bad",
                                  R"({"queueing_delay_s.max": {"max": 5, "note": "c waits < 5 s"},
                                "jobs.rejected": {"max": 0}})");
  const fs::path junit = dir / "reports" / "check.xml";
  const auto r = run_cli({"check", good, bad, "--junit", junit.string()});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.out.find("  queueing_delay_s.max      8  <= 5   FAIL  (c waits < 5 s)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("all of them"), std::string::npos) << r.out;  // passed: no note
  const std::string xml = testing::read_file(junit);
  EXPECT_NE(xml.find(R"(<testsuites name="gpumux check" tests="3" failures="1">)"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find(R"(<testcase classname="good" name="jobs.finished"/>)"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find(R"(<testcase classname="bad" name="jobs.rejected"/>)"), std::string::npos)
      << xml;
  EXPECT_NE(
      xml.find(
          R"(<failure message="queueing_delay_s.max = 8, bound &lt;= 5: c waits &lt; 5 s" type="bound">)"),
      std::string::npos)
      << xml;
  const auto j = run_cli({"check", good, bad, "--format", "json"});
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["scenarios"][1]["bounds"][1]["note"], "c waits < 5 s") << j.out;
  EXPECT_FALSE(doc["scenarios"][1]["bounds"][0].contains("note")) << j.out;

  // Bad input runs nothing and writes no JUnit file.
  fs::remove(junit);
  const auto none = check_scenario(dir, "none", "");
  EXPECT_EQ(run_cli({"check", good, none, "--junit", junit.string()}).code, 2);
  EXPECT_FALSE(fs::exists(junit));
  fs::remove_all(dir);
}

// Every job is too large for the cluster: the percentiles are of nothing. They print as n/a
// (null in JSON), and a bound on one fails with the reason.
TEST(Check, EmptySetsAreNotAvailableNeverZero) {
  const auto dir = testing::temp_dir("check_na");
  testing::write_file(dir / "big.csv", "id,submit_s,gpus,runtime_s\na,0,4,10\nb,1,4,10\n");
  testing::write_file(dir / "s.json", R"({"name": "all-rejected",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "big.csv"},
    "expect": {"jct_s.p95": {"max": 3600}, "jobs.rejected": {"max": 2}}})");
  const auto s = (dir / "s.json").string();
  const auto r = run_cli({"check", s});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("jct_s.p95        n/a  <= 3600  FAIL  (n/a: no finished jobs)"),
            std::string::npos)
      << r.out;
  const auto table = run_cli({"run", s, "--no-outputs"});
  EXPECT_EQ(table.code, 0) << table.err;  // run reports; only --check gates
  EXPECT_NE(table.out.find("  JCT (s)                       n/a        n/a        n/a"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  queueing delay (s)            n/a"), std::string::npos);
  EXPECT_NE(table.out.find("some bounds FAIL"), std::string::npos) << table.out;
  EXPECT_EQ(run_cli({"run", s, "--no-outputs", "--quiet", "--check"}).code, 3);
  const auto json = run_cli({"run", s, "--no-outputs", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_TRUE(doc["metrics"]["jct_s"]["p95"].is_null());
  EXPECT_EQ(doc["metrics"]["jct_s"]["count"], 0);
  EXPECT_TRUE(doc["metrics"]["failures"]["cascade_size"]["mean"].is_null());
  EXPECT_EQ(doc["expect"][0]["metric"], "jct_s.p95");
  EXPECT_TRUE(doc["expect"][0]["value"].is_null());
  EXPECT_TRUE(doc["expect"][1]["pass"].get<bool>());
  fs::remove_all(dir);
}

TEST(Check, BadInputExitsTwoAndRunsNothing) {
  const auto dir = testing::temp_dir("check_bad");
  const auto typo = check_scenario(dir, "typo", R"({"jct.p95_s": {"max": 3600}})");
  const auto r = run_cli({"check", typo, "--out", (dir / "out").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(typo + "#/expect/jct.p95_s: field 'jct.p95_s': unknown metric"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("closest: jct_s.p95"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // The same error from run and validate, before anything runs.
  EXPECT_EQ(run_cli({"validate", typo}).code, 2);
  const auto run = run_cli({"run", typo, "--out", (dir / "run").string()});
  EXPECT_EQ(run.code, 2);
  EXPECT_FALSE(fs::exists(dir / "run"));
  // A scenario without bounds checks nothing: bad input, even after a good one.
  const auto good = check_scenario(dir, "good", R"({"jobs.finished": {"min": 3}})");
  const auto none = check_scenario(dir, "none", "");
  const auto empty = run_cli({"check", good, none});
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find(none + "#/expect: field 'expect': no bounds to check"),
            std::string::npos)
      << empty.err;
  EXPECT_TRUE(empty.out.empty());
  EXPECT_EQ(run_cli({"check", good, "--format", "yaml"}).code, 2);
  fs::remove_all(dir);
}

TEST(Check, OutWritesEachRunToItsOwnFolder) {
  const auto dir = testing::temp_dir("check_out");
  const auto s = check_scenario(dir, "written", R"({"jobs.finished": {"min": 3}})");
  const auto r = run_cli({"check", s, "--out", (dir / "out").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "out/written/summary.json"));
  EXPECT_TRUE(summary["expect"][0]["pass"].get<bool>());
  EXPECT_EQ(summary["scenario"]["expect"]["jobs.finished"]["min"], 3.0);
  EXPECT_EQ(run_cli({"check", s, s, "--out", (dir / "out2").string()}).code, 2);  // same name
  fs::remove_all(dir);
}

TEST(Check, ALaterInputErrorLeavesNoEarlierRunFolder) {
  // a runs and passes; b's trace has a bad row, found only when b runs: exit 2, and out/ holds
  // nothing of a, on one thread and on two.
  const auto dir = testing::temp_dir("check_later_error");
  const auto a = check_scenario(dir, "a", R"({"jobs.finished": {"min": 3}})");
  testing::write_file(dir / "bad.csv", "id,submit_s,gpus,runtime_s\nx,0,1,10\ny,1,1,ten\n");
  const fs::path b = dir / "b.json";
  testing::write_file(b, R"({"name": "b",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "bad.csv"}, "expect": {"jobs.finished": {"min": 1}}})");
  for (const char* threads : {"1", "2"}) {
    const fs::path out = dir / (std::string("out") + threads);
    const auto r = run_cli({"check", a, b.string(), "--out", out.string(), "-j", threads});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("bad.csv"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out / "a")) << threads;
  }
  // An earlier check's folder survives a failed one untouched.
  ASSERT_EQ(run_cli({"check", a, "--out", (dir / "kept").string()}).code, 0);
  const std::string before = testing::read_file(dir / "kept/a/summary.json");
  EXPECT_EQ(run_cli({"check", a, b.string(), "--out", (dir / "kept").string()}).code, 2);
  EXPECT_EQ(testing::read_file(dir / "kept/a/summary.json"), before);
  fs::remove_all(dir);
}

TEST(Run, FormatJsonPrintsWhatSummaryJsonHolds) {
  const auto dir = testing::temp_dir("run_format");
  const auto s = check_scenario(dir, "fmt", "");
  const auto r = run_cli({"run", s, "--out", (dir / "out").string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, testing::read_file(dir / "out/summary.json"));
  EXPECT_FALSE(nlohmann::json::parse(r.out).contains("expect"));  // no bounds, no key
  EXPECT_EQ(run_cli({"run", s, "--no-outputs", "--format", "csv"}).code, 2);
  fs::remove_all(dir);
}

TEST(Cli, UnknownSubcommandIsNamedWithASuggestion) {
  const auto r = run_cli({"chek", "x.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command 'chek' for gpumux (did you mean 'check'?)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("commands: run, validate, check"), std::string::npos) << r.err;
  const auto nested = run_cli({"profiles", "derivee"});
  EXPECT_EQ(nested.code, 2);
  EXPECT_NE(nested.err.find("unknown command 'derivee' for gpumux profiles (did you mean "
                            "'derive'?)"),
            std::string::npos)
      << nested.err;
  const auto far = run_cli({"frobnicate"});
  EXPECT_EQ(far.code, 2);
  EXPECT_NE(far.err.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

}  // namespace
}  // namespace gpumux
