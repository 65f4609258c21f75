// `trace.resample` through the command line: runs draw their jobs by seed (bootstrap or arrival
// order) with every other draw as it was, and `gpumux compare` gains intervals from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string resample_quickstart() {
  return (testing::source_dir() / "scenarios/examples/quickstart.json").string();
}

// jobs.csv as rows of named fields (no field of these runs holds a comma).
std::vector<std::map<std::string, std::string>> jobs_rows(const fs::path& file) {
  std::istringstream in(testing::read_file(file));
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream fields(line);
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

// What a resampled copy keeps of its trace job (jobs.csv's trace fields, defaults drawn).
std::string trace_fields(const std::map<std::string, std::string>& row) {
  return row.at("gpus") + "," + row.at("runtime_s") + "," + row.at("kind") + "," +
         row.at("tenant") + "," + row.at("memory_mib") + "," + row.at("sm_util") + "," +
         row.at("sm_share");
}

// Runs the quickstart (the Tiresias format, sm_util and memory drawn from trace.defaults) into
// `out`, with `sets` applied; returns its summary.json.
json run_quickstart(const fs::path& out, const std::string& seed,
                    const std::vector<std::string>& sets) {
  std::vector<std::string> args = {
      "run", resample_quickstart(), "--out", out.string(), "--quiet", "--seed", seed};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const auto r = run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(testing::read_file(out / "summary.json"));
}

TEST(Resample, BootstrapCopiesTraceJobsWithTheirDrawnDefaultsAndSubmitTimes) {
  const auto dir = testing::temp_dir("resample_bootstrap");
  run_quickstart(dir / "plain", "42", {});
  const json s = run_quickstart(dir / "boot", "42", {"trace.resample.method=bootstrap"});
  std::map<std::string, std::map<std::string, std::string>> original;
  for (const auto& row : jobs_rows(dir / "plain" / "jobs.csv")) original[row.at("id")] = row;
  const auto rows = jobs_rows(dir / "boot" / "jobs.csv");
  ASSERT_EQ(rows.size(), original.size());
  std::set<std::string> ids, bases;
  for (const auto& row : rows) {
    const std::string& id = row.at("id");
    const std::string base = id.substr(0, id.rfind('#'));
    ASSERT_TRUE(original.count(base)) << id;
    // The same seed's defaults as without resampling: the draws have their own stream.
    EXPECT_EQ(trace_fields(row), trace_fields(original.at(base))) << id;
    EXPECT_EQ(row.at("submit_s"), original.at(base).at("submit_s")) << id;
    EXPECT_TRUE(ids.insert(id).second) << id;
    bases.insert(base);
  }
  EXPECT_LT(bases.size(), original.size());
  EXPECT_EQ(s["trace"]["resample"],
            (json{{"method", "bootstrap"}, {"list_jobs", 60}, {"distinct_jobs", bases.size()}}));
  EXPECT_EQ(s["scenario"]["trace"]["resample"], (json{{"method", "bootstrap"}}));
  EXPECT_EQ(s["metrics"]["jobs"]["arrived"], 60);
  fs::remove_all(dir);
}

TEST(Resample, ArrivalOrderKeepsTheSubmitTimesAndEveryJobsFields) {
  const auto dir = testing::temp_dir("resample_order");
  run_quickstart(dir / "plain", "42", {});
  const json s = run_quickstart(dir / "order", "42", {"trace.resample.method=arrival-order"});
  std::multiset<std::string> plain_submits, order_submits, plain_jobs, order_jobs;
  std::size_t moved = 0;
  std::map<std::string, std::string> plain_submit_of;
  for (const auto& row : jobs_rows(dir / "plain" / "jobs.csv")) {
    plain_submits.insert(row.at("submit_s"));
    plain_jobs.insert(row.at("id") + ":" + trace_fields(row));
    plain_submit_of[row.at("id")] = row.at("submit_s");
  }
  for (const auto& row : jobs_rows(dir / "order" / "jobs.csv")) {
    order_submits.insert(row.at("submit_s"));
    order_jobs.insert(row.at("id") + ":" + trace_fields(row));
    moved += plain_submit_of.at(row.at("id")) != row.at("submit_s");
  }
  EXPECT_EQ(order_submits, plain_submits);
  EXPECT_EQ(order_jobs, plain_jobs);
  EXPECT_GT(moved, 30u);  // a shuffle of 60 leaves few jobs at their own instant
  EXPECT_EQ(s["trace"]["resample"]["distinct_jobs"], 60);
  fs::remove_all(dir);
}

TEST(Resample, TheSameSeedGivesTheSameBytesAnotherSeedOtherJobs) {
  const auto dir = testing::temp_dir("resample_seed");
  const std::vector<std::string> sets = {"trace.resample.method=bootstrap"};
  run_quickstart(dir / "a", "5", sets);
  run_quickstart(dir / "b", "5", sets);
  run_quickstart(dir / "c", "6", sets);
  for (const char* f : {"summary.json", "jobs.csv", "timeseries.csv"}) {
    EXPECT_EQ(testing::read_file(dir / "a" / f), testing::read_file(dir / "b" / f)) << f;
  }
  std::vector<std::string> a_ids, c_ids;
  for (const auto& row : jobs_rows(dir / "a" / "jobs.csv")) a_ids.push_back(row.at("id"));
  for (const auto& row : jobs_rows(dir / "c" / "jobs.csv")) c_ids.push_back(row.at("id"));
  std::sort(a_ids.begin(), a_ids.end());
  std::sort(c_ids.begin(), c_ids.end());
  EXPECT_NE(a_ids, c_ids);
  fs::remove_all(dir);
}

// Services (inference rows with request columns) and gang jobs survive being copied.
TEST(Resample, ServicesAndGangJobsAreCopiedWhole) {
  const auto dir = testing::temp_dir("resample_services");
  std::string trace =
      "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib,kind,request_rate_per_s,"
      "service_ms\n";
  for (int i = 0; i < 8; ++i) {
    const bool service = i % 2 == 0;
    trace += "j" + std::to_string(i) + "," + std::to_string(10 * i) + "," + (service ? "1" : "4") +
             "," + std::to_string(300 + 50 * i) + ",0.5,0.5,2048," +
             (service ? "inference,20,5" : "training,,") + "\n";
  }
  testing::write_file(dir / "t.csv", trace);
  testing::write_file(dir / "s.json", R"({"name": "svc",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "H200-141GB"}]},
    "sharing": {"model": "timeslice"},
    "trace": {"file": "t.csv", "resample": {"method": "bootstrap"}}})");
  for (const char* seed : {"1", "2", "3"}) {
    const auto r = run_cli({"run", (dir / "s.json").string(), "--out", (dir / seed).string(),
                            "--quiet", "--seed", seed});
    ASSERT_EQ(r.code, 0) << r.err;
    const json s = json::parse(testing::read_file(dir / seed / "summary.json"));
    std::size_t services = 0;
    for (const auto& row : jobs_rows(dir / seed / "jobs.csv")) {
      const std::string& id = row.at("id");
      const int k = std::stoi(id.substr(1, id.find('#') - 1));
      EXPECT_EQ(row.at("gpus"), k % 2 == 0 ? "1" : "4") << id;
      EXPECT_EQ(row.at("kind"), k % 2 == 0 ? "inference" : "training") << id;
      services += row.at("kind") == "inference";
    }
    EXPECT_EQ(s["metrics"]["jobs"]["arrived"], 8) << seed;
    if (services > 0) {
      EXPECT_TRUE(s["metrics"].contains("requests")) << seed;
    }
  }
  fs::remove_all(dir);
}

TEST(Resample, ABadMethodExitsTwoNamingThePointerAndWritesNothing) {
  const auto dir = testing::temp_dir("resample_bad");
  const auto r = run_cli({"run", resample_quickstart(), "--out", (dir / "out").string(), "--set",
                          "trace.resample.method=shuffle"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("quickstart.json#/trace/resample/method (from --set "
                       "trace.resample.method=shuffle): field 'method': unknown resampling method "
                       "'shuffle'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

// Every field from the trace: without resampling the seeds change nothing and the table says
// so without intervals; with it, each seed runs another workload and the intervals are real.
TEST(Resample, CompareGainsIntervalsFromResampling) {
  const auto dir = testing::temp_dir("resample_compare");
  std::string trace = "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib,kernel_us\n";
  const int runtimes[] = {100, 900, 40, 300, 2000, 60, 500, 150};
  for (int i = 0; i < 8; ++i) {
    trace += "j" + std::to_string(i) + "," + std::to_string(20 * i) + ",1," +
             std::to_string(runtimes[i]) + ",0.5,0.5,1024,1000\n";
  }
  testing::write_file(dir / "t.csv", trace);
  testing::write_file(dir / "s.json", R"({"name": "fixed",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "H200-141GB"}]},
    "trace": {"file": "t.csv"}})");
  const std::vector<std::string> base = {
      "compare", (dir / "s.json").string(), "--models", "exclusive,timeslice", "--seeds", "3"};
  const auto fixed = run_cli(base);
  ASSERT_EQ(fixed.code, 0) << fixed.err;
  const std::string table = fixed.out.substr(0, fixed.out.find("warning:"));
  EXPECT_EQ(table.find("±"), std::string::npos) << fixed.out;
  EXPECT_NE(table.find("JCT mean (s)"), std::string::npos) << fixed.out;
  EXPECT_NE(table.find(" (all seeds)"), std::string::npos) << fixed.out;
  EXPECT_NE(fixed.out.find("(all seeds): the one value all 3 seeds gave"), std::string::npos)
      << fixed.out;
  EXPECT_NE(fixed.out.find("resample the trace by seed (trace.resample, e.g. --set "
                           "trace.resample.method=bootstrap"),
            std::string::npos)
      << fixed.out;

  auto with_resample = base;
  with_resample.insert(with_resample.end(), {"--set", "trace.resample.method=bootstrap"});
  const auto varied = run_cli(with_resample);
  ASSERT_EQ(varied.code, 0) << varied.err;
  EXPECT_EQ(varied.out.find("(all seeds)"), std::string::npos) << varied.out;
  EXPECT_EQ(varied.out.find("seeds gave identical results"), std::string::npos) << varied.out;
  EXPECT_NE(varied.out.find(" ± "), std::string::npos) << varied.out;

  // compare.json keeps the numbers in both cases: intervals of 0, and intervals above 0.
  with_resample.insert(with_resample.end(), {"--format", "json"});
  auto fixed_json = base;
  fixed_json.insert(fixed_json.end(), {"--format", "json"});
  const json f = json::parse(run_cli(fixed_json).out);
  const json v = json::parse(run_cli(with_resample).out);
  const auto& f_jct = f["variants"][0]["metrics"]["jct_s.mean"];
  EXPECT_EQ(f_jct["ci95_half_width"], 0.0);
  EXPECT_EQ(f_jct["values"][0], f_jct["values"][2]);
  EXPECT_GT(v["variants"][0]["metrics"]["jct_s.mean"]["ci95_half_width"].get<double>(), 0.0);
  EXPECT_NE(v["variants"][0]["metrics"]["jct_s.mean"]["values"][0],
            v["variants"][0]["metrics"]["jct_s.mean"]["values"][1]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
