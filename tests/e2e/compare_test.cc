// `gpumux compare`: the table, compare.csv / compare.json, independence from the thread count,
// the 95% intervals against a computation of their own, bad input and n/a.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

std::string quickstart() {
  return (testing::source_dir() / "scenarios/examples/quickstart.json").string();
}

// The metric `pointer` of `gpumux run` with one model and seed: the values compare must show.
double run_value(const std::string& model, int seed, const std::string& pointer) {
  const auto r = run_cli({"run", quickstart(), "--no-outputs", "--format", "json", "--set",
                          "sharing.model=" + model, "--seed", std::to_string(seed)});
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out).at(nlohmann::json::json_pointer(pointer)).get<double>();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Compare, QuickstartTableSetsTheModelsSideBySide) {
  const auto r = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("compare: scenario 'quickstart' (" + quickstart() +
                       "), 2 variants x 1 seed (seed 42)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  timeslice: params {} from the model's defaults (the scenario's model "
                       "is exclusive)\n"),
            std::string::npos)
      << r.out;
  // Columns right-aligned under their model; the numbers those of `gpumux run` (README).
  EXPECT_NE(r.out.find("metric                     exclusive  timeslice\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("JCT p95 (s)                    366.0      978.4\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("jobs rejected                      0          0\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("request latency"), std::string::npos);  // no services in quickstart
  EXPECT_NE(r.out.find("One run per variant (seed 42)"), std::string::npos);
  EXPECT_NEAR(run_value("timeslice", 42, "/metrics/jct_s/p95"), 978.4, 0.05);
  EXPECT_NE(r.err.find("[gpumux compare] 2/2 runs done"), std::string::npos) << r.err;
}

// With inference services the request-latency rows appear, with the values of `gpumux run`.
TEST(Compare, ServicesAddRequestRows) {
  const std::string scenario =
      (testing::source_dir() / "scenarios/examples/plan_mixed.json").string();
  const auto r = run_cli({"compare", scenario, "--models", "timeslice", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  // 20 rows, then the kinds' (training JCT mean, p95, queueing p95; services start delay p95).
  ASSERT_EQ(doc["metrics"].size(), 24u);
  EXPECT_EQ(doc["metrics"][20]["name"], "by_kind.services.queueing_delay_s.p95");
  EXPECT_EQ(doc["metrics"][9]["name"], "requests.latency_ms.p95");
  EXPECT_EQ(doc["metrics"][11]["name"], "requests.slo_attainment");
  const auto run = run_cli({"run", scenario, "--no-outputs", "--format", "json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto summary = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["variants"][0]["metrics"]["requests.latency_ms.p95"]["values"][0],
            summary["metrics"]["requests"]["latency_ms"]["p95"]);
  const auto table = run_cli({"compare", scenario, "--models", "timeslice"});
  EXPECT_NE(table.out.find("request SLO attainment"), std::string::npos) << table.out;
}

TEST(Compare, OutWritesRunFoldersTidyCsvAndJson) {
  const auto dir = testing::temp_dir("compare_out");
  const auto r = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice", "--seeds",
                          "2", "--out", (dir / "cmp").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* run :
       {"exclusive/seed-42", "exclusive/seed-43", "timeslice/seed-42", "timeslice/seed-43"}) {
    for (const char* f : {"summary.json", "jobs.csv", "timeseries.csv"}) {
      EXPECT_TRUE(fs::exists(dir / "cmp" / run / f)) << run << "/" << f;
    }
  }
  const auto csv = lines_of(testing::read_file(dir / "cmp/compare.csv"));
  const auto doc = nlohmann::json::parse(testing::read_file(dir / "cmp/compare.json"));
  const auto& metrics = doc["metrics"];
  ASSERT_EQ(metrics.size(), 16u);  // no request rows without services
  ASSERT_EQ(csv.size(), 1 + 2 * 2 * metrics.size());
  EXPECT_EQ(csv[0], "variant,seed,metric,value");
  // Variants in the order asked, then seeds, then metrics in table order.
  std::size_t row = 1;
  for (const char* model : {"exclusive", "timeslice"}) {
    for (int seed : {42, 43}) {
      for (const auto& m : metrics) {
        const std::string prefix = std::string(model) + "," + std::to_string(seed) + "," +
                                   m["name"].get<std::string>() + ",";
        ASSERT_EQ(csv[row].rfind(prefix, 0), 0u) << csv[row] << " vs " << prefix;
        ++row;
      }
    }
  }
  // The CSV, the JSON and each run's own summary.json hold the same value.
  const auto summary =
      nlohmann::json::parse(testing::read_file(dir / "cmp/timeslice/seed-43/summary.json"));
  const double p95 = summary["metrics"]["jct_s"]["p95"].get<double>();
  const auto& cell = doc["variants"][1]["metrics"]["jct_s.p95"];
  EXPECT_EQ(doc["variants"][1]["model"], "timeslice");
  EXPECT_DOUBLE_EQ(cell["values"][1].get<double>(), p95);
  EXPECT_EQ(cell["n"], 2);
  EXPECT_FALSE(cell["ci95_half_width"].is_null());
  const std::string line = csv[1 + (2 + 1) * metrics.size() + 4];  // timeslice, 43, jct_s.p95
  ASSERT_EQ(line.rfind("timeslice,43,jct_s.p95,", 0), 0u) << line;
  EXPECT_DOUBLE_EQ(std::stod(line.substr(line.rfind(',') + 1)), p95);
  EXPECT_EQ(doc["seeds"], nlohmann::json({42, 43}));
  EXPECT_EQ(doc["variants"][0]["run_dirs"][1], (dir / "cmp/exclusive/seed-43").string());
  // --format json prints what compare.json holds.
  const auto j = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice", "--seeds",
                          "2", "--format", "json", "--out", (dir / "cmp").string()});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out), doc);
  fs::remove_all(dir);
}

TEST(Compare, WithoutOutNothingIsWritten) {
  const auto dir = testing::temp_dir("compare_nothing");
  const auto r = run_cli({"compare", quickstart(), "--models", "exclusive", "--set",
                          "outputs.dir=" + (dir / "would-be").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(Compare, OutputDoesNotDependOnTheThreadCount) {
  const auto dir = testing::temp_dir("compare_threads");
  std::vector<std::string> args = {"compare", quickstart(), "--models", "exclusive,timeslice,mps",
                                   "--seeds", "3"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    const auto r = run_cli(a);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  };
  const auto one = with({"--threads", "1", "--out", (dir / "one").string()});
  const auto two = with({"--threads", "2", "--out", (dir / "two").string()});
  EXPECT_EQ(one, two);
  EXPECT_NE(one.find(" ± "), std::string::npos);
  EXPECT_EQ(testing::read_file(dir / "one/compare.csv"),
            testing::read_file(dir / "two/compare.csv"));
  EXPECT_EQ(testing::read_file(dir / "one/mps/seed-44/jobs.csv"),
            testing::read_file(dir / "two/mps/seed-44/jobs.csv"));
  EXPECT_EQ(with({"--threads", "1", "--format", "json"}),
            with({"--threads", "2", "--format", "json"}));
  fs::remove_all(dir);
}

// The mean and half-width against a computation from the per-seed values, which are checked
// against separate `gpumux run`s: t(0.975, 3 degrees of freedom) = 3.182446.
TEST(Compare, SeedsGiveStudentTIntervals) {
  const auto r = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice", "--seeds",
                          "4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(doc["confidence"]["t"].get<double>(), 3.182446);
  std::size_t intervals = 0;
  for (const auto& v : doc["variants"]) {
    for (const auto& [name, cell] : v["metrics"].items()) {
      ASSERT_EQ(cell["values"].size(), 4u);
      ASSERT_EQ(cell["n"], 4) << name;
      double sum = 0.0;
      for (const auto& x : cell["values"]) sum += x.get<double>();
      const double mean = sum / 4;
      double squares = 0.0;
      for (const auto& x : cell["values"]) squares += std::pow(x.get<double>() - mean, 2);
      const double half = 3.182446 * std::sqrt(squares / 3) / 2;
      EXPECT_NEAR(cell["mean"].get<double>(), mean, 1e-9 * (1 + std::fabs(mean))) << name;
      EXPECT_NEAR(cell["ci95_half_width"].get<double>(), half, 1e-9 * (1 + half)) << name;
      intervals += half > 0 ? 1 : 0;
    }
  }
  EXPECT_GE(intervals, 5u);  // timeslice's drawn sm_util varies with the seed
  const auto& ts = doc["variants"][1];
  for (int s = 0; s < 4; ++s) {
    EXPECT_DOUBLE_EQ(ts["metrics"]["jct_s.mean"]["values"][s].get<double>(),
                     run_value("timeslice", 42 + s, "/metrics/jct_s/mean"));
  }
  // The table prints the same mean and half-width.
  const auto table =
      run_cli({"compare", quickstart(), "--models", "exclusive,timeslice", "--seeds", "4"});
  const auto& c = ts["metrics"]["jct_s.mean"];
  char cell[64];
  std::snprintf(cell, sizeof cell, "%.1f ± %.1f", c["mean"].get<double>(),
                c["ci95_half_width"].get<double>());
  EXPECT_NE(table.out.find(cell), std::string::npos) << cell << "\n" << table.out;
  EXPECT_NE(table.out.find("over 4 seeds (Student t, 3 degrees of freedom, t = 3.182)"),
            std::string::npos)
      << table.out;
}

TEST(Compare, BadInputExitsTwoBeforeAnythingRuns) {
  const auto dir = testing::temp_dir("compare_bad");
  const std::string out = (dir / "out").string();
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--models", "exclusive,fast"}, "--models: field 'fast': unknown sharing model 'fast'"},
      {{"--models", "exclusive,exclusive"}, "field 'exclusive': listed twice"},
      {{"--models", "exclusive", "--set", "nope"}, "--set nope: expected path=value"},
      {{"--models", "exclusive", "--set", "cluster.node_groups=3"}, "node_groups"},
      {{"--models", "exclusive", "--model-params", "mps={}"}, "model not in --models"},
      {{"--models", "mps", "--model-params", "mps={\"admission\": \"never\"}"},
       "--model-params mps"},
      {{"--models", "exclusive", "--seeds", "0"}, "--seeds"},
      {{"--models", "exclusive", "--format", "yaml"}, "--format"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"compare", quickstart(), "--out", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << c.message << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(out)) << c.message;
  }
  const auto missing = run_cli({"compare", (dir / "none.json").string(), "--models", "mps"});
  EXPECT_EQ(missing.code, 2);
  // A bad trace row is met only while the runs go: the error names it and nothing is left.
  testing::write_file(dir / "bad.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,x,10\n");
  testing::write_file(dir / "s.json", R"({"name": "bad-row",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "bad.csv"}})");
  const auto row = run_cli({"compare", (dir / "s.json").string(), "--models", "exclusive,mps",
                            "--seeds", "2", "--out", out});
  EXPECT_EQ(row.code, 2);
  EXPECT_NE(row.err.find("bad.csv:3: field 'gpus'"), std::string::npos) << row.err;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

// Every job is too large for the cluster: the job percentiles are empty sets, n/a in the
// table, null in the JSON and empty in the CSV, never 0. Every seed gives the same counts, so
// the table prints them without an interval.
TEST(Compare, EmptySetsAreNotAvailable) {
  const auto dir = testing::temp_dir("compare_na");
  testing::write_file(dir / "big.csv", "id,submit_s,gpus,runtime_s\na,0,4,10\nb,1,4,10\n");
  testing::write_file(dir / "s.json", R"({"name": "all-rejected",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "big.csv"}})");
  const auto r = run_cli({"compare", (dir / "s.json").string(), "--models", "exclusive,mps",
                          "--seeds", "2", "--out", (dir / "out").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("JCT p95 (s)                              n/a                n/a\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("jobs rejected                  2 (all seeds)      2 (all seeds)\n"),
            std::string::npos)
      << r.out;
  const auto doc = nlohmann::json::parse(testing::read_file(dir / "out/compare.json"));
  const auto& cell = doc["variants"][0]["metrics"]["jct_s.p95"];
  EXPECT_TRUE(cell["mean"].is_null());
  EXPECT_TRUE(cell["ci95_half_width"].is_null());
  EXPECT_EQ(cell["n"], 0);
  EXPECT_EQ(cell["values"], nlohmann::json::parse("[null, null]"));
  EXPECT_NE(testing::read_file(dir / "out/compare.csv").find("exclusive,1,jct_s.p95,\n"),
            std::string::npos);
  fs::remove_all(dir);
}

// One job of 1 or 64 GiB on a 16 GiB T4, the size drawn from the seed: it runs with seed 1 and
// is rejected with seeds 2..6, so its JCT has one value in six seeds.
TEST(Compare, SomeSeedsWithoutAValueAreCounted) {
  const auto dir = testing::temp_dir("compare_partial");
  testing::write_file(dir / "t.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\n");
  testing::write_file(dir / "s.json", R"({"name": "partial", "seed": 1,
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 1, "device": "T4"}]},
    "trace": {"file": "t.csv", "defaults": {"memory_mib": {"choice": [1024, 65536]}}}})");
  const auto r = run_cli({"compare", (dir / "s.json").string(), "--models", "exclusive", "--seeds",
                          "6", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& jct = doc["variants"][0]["metrics"]["jct_s.mean"];
  EXPECT_EQ(jct["n"], 1);
  EXPECT_TRUE(jct["mean"].is_null());
  EXPECT_EQ(jct["values"], nlohmann::json::parse("[10.0, null, null, null, null, null]"));
  const auto& rejected = doc["variants"][0]["metrics"]["jobs.rejected"];
  EXPECT_EQ(rejected["values"], nlohmann::json::parse("[0.0, 1.0, 1.0, 1.0, 1.0, 1.0]"));
  const auto table =
      run_cli({"compare", (dir / "s.json").string(), "--models", "exclusive", "--seeds", "6"});
  EXPECT_NE(table.out.find("JCT mean (s)                    n/a (1/6)\n"), std::string::npos)
      << table.out;
  // 5/6 rejected: mean 0.833, sd sqrt(1/6), t(5) = 2.570582, half-width 0.428.
  EXPECT_NE(table.out.find("jobs rejected                   0.8 ± 0.4\n"), std::string::npos)
      << table.out;
  // 1/6 finished: 0.167 ± 0.428 would reach below 0 jobs; cut there.
  EXPECT_NE(table.out.find("jobs finished              0.2 [0.0, 0.6]\n"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("only k of the 6 seeds had a value"), std::string::npos);
  fs::remove_all(dir);
}

// The paired table: each seed's difference from the baseline, then the mean and interval of
// those differences, checked against the per-seed values compare.json holds.
TEST(Compare, PairedDifferencesAreMeansOfPerSeedDifferences) {
  const auto r = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice,mps",
                          "--seeds", "4", "--baseline", "timeslice", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& paired = doc["paired_differences"];
  EXPECT_EQ(paired["baseline"], "timeslice");
  ASSERT_EQ(paired["variants"].size(), 2u);
  EXPECT_EQ(paired["variants"][0]["model"], "exclusive");
  EXPECT_EQ(paired["variants"][1]["model"], "mps");
  const auto& x = doc["variants"][2]["metrics"]["jct_s.mean"]["values"];  // mps
  const auto& b = doc["variants"][1]["metrics"]["jct_s.mean"]["values"];  // timeslice
  std::vector<double> d;
  for (std::size_t s = 0; s < 4; ++s) d.push_back(x[s].get<double>() - b[s].get<double>());
  double mean = 0;
  for (double v : d) mean += v / 4;
  double ss = 0;
  for (double v : d) ss += (v - mean) * (v - mean);
  const double half = 3.182446 * std::sqrt(ss / 3) / 2;  // t(0.975, 3) s / sqrt(4)
  const auto& cell = paired["variants"][1]["metrics"]["jct_s.mean"];
  EXPECT_NEAR(cell["mean"].get<double>(), mean, 1e-9);
  EXPECT_NEAR(cell["ci95_half_width"].get<double>(), half, 1e-4);
  EXPECT_EQ(cell["n"], 4);

  const auto table = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice",
                              "--seeds", "3"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("difference from exclusive, paired by seed"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("timeslice - exclusive"), std::string::npos) << table.out;
  // One seed: no paired table.
  const auto one = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice"});
  EXPECT_EQ(one.out.find("paired by seed"), std::string::npos) << one.out;
  const auto bad = run_cli({"compare", quickstart(), "--models", "exclusive,timeslice",
                            "--baseline", "mps"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("'mps' is not one of the compared models"), std::string::npos)
      << bad.err;
}

// A time limit that leaves one variant's jobs unfinished: its JCT rows are over fewer jobs.
TEST(Compare, LatencyRowsOverDifferentJobSetsAreWarnedAbout) {
  const auto dir = testing::temp_dir("compare_sets");
  // Four 100 s jobs on one GPU: exclusive runs them in series (two finish by 250 s),
  // time-slicing side by side (their duty cycle 0.25 lets all four finish).
  testing::write_file(dir / "t.csv",
                      "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib\n"
                      "a,0,1,100,0.25,0.25,1024\nb,0,1,100,0.25,0.25,1024\n"
                      "c,0,1,100,0.25,0.25,1024\nd,0,1,100,0.25,0.25,1024\n");
  testing::write_file(dir / "s.json", R"({"name": "sets",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 1, "device": "H200-141GB"}]},
    "trace": {"file": "t.csv"}, "limits": {"max_time_s": 250}})");
  const auto r =
      run_cli({"compare", (dir / "s.json").string(), "--models", "exclusive,timeslice"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: the latency rows (JCT, queueing) are over different job sets: "
                       "seed 1 finished exclusive 2 of 4, timeslice 4 of 4; a variant that "
                       "finished fewer jobs may look faster"),
            std::string::npos)
      << r.out;
  const auto as_json = run_cli(
      {"compare", (dir / "s.json").string(), "--models", "exclusive,timeslice", "--format", "json"});
  EXPECT_EQ(nlohmann::json::parse(as_json.out)["warnings"].size(), 1u);
  // The same jobs finished under both: no warning.
  const auto same = run_cli({"compare", (dir / "s.json").string(), "--models",
                             "exclusive,timeslice", "--set", "limits.max_time_s=10000"});
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.out.find("warning:"), std::string::npos) << same.out;
  fs::remove_all(dir);
}

// Every field from the trace: the seeds draw nothing, and compare says so.
TEST(Compare, SeedsThatChangeNothingAreSaidToChangeNothing) {
  const auto dir = testing::temp_dir("compare_fixed");
  testing::write_file(dir / "t.csv",
                      "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib,kernel_us\n"
                      "a,0,1,100,0.5,0.5,1024,1000\nb,10,1,50,0.5,0.5,1024,1000\n");
  testing::write_file(dir / "s.json", R"({"name": "fixed",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 1, "device": "H200-141GB"}]},
    "trace": {"file": "t.csv"}})");
  const auto r = run_cli(
      {"compare", (dir / "s.json").string(), "--models", "exclusive,timeslice", "--seeds", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: the 3 seeds gave identical results for every variant and "
                       "metric: nothing the runs use is drawn"),
            std::string::npos)
      << r.out;
  // The quickstart draws its jobs' SM use and memory: no such warning.
  const auto q = run_cli({"compare", quickstart(), "--models", "exclusive", "--seeds", "2"});
  EXPECT_EQ(q.out.find("seeds gave identical results"), std::string::npos) << q.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
