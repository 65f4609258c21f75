// jobs.csv names what each job was (kind, tenant, memory, duty cycle, SM share, the values
// drawn from defaults included) and where it ran (device, MIG instance).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (char c : line + ",") {
    if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  return cells;
}

// Rows of a jobs.csv whose cells hold no commas, as maps from column name to value.
std::vector<std::map<std::string, std::string>> rows(const fs::path& file) {
  std::istringstream in(testing::read_file(file));
  std::string line;
  std::getline(in, line);
  const auto header = split_csv_line(line);
  std::vector<std::map<std::string, std::string>> out;
  while (std::getline(in, line)) {
    const auto cells = split_csv_line(line);
    EXPECT_EQ(cells.size(), header.size()) << line;
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    out.push_back(row);
  }
  return out;
}

TEST(JobsCsv, MigRunNamesDeviceAndInstance) {
  const auto dir = testing::temp_dir("jobs_csv_mig");
  const auto r =
      run_cli({"run", (testing::source_dir() / "scenarios/regression/mig_balanced.json").string(),
               "--out", dir.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto all = rows(dir / "jobs.csv");
  ASSERT_EQ(all.size(), 400u);
  const std::regex instance(R"((1g\.5gb|2g\.10gb|3g\.20gb):[0-9])");
  std::set<std::string> profiles;
  for (const auto& row : all) {
    EXPECT_EQ(row.at("device"), "A100-40GB");
    EXPECT_TRUE(std::regex_match(row.at("mig_instance"), instance)) << row.at("mig_instance");
    profiles.insert(row.at("mig_instance").substr(0, row.at("mig_instance").find(':')));
    EXPECT_TRUE(row.at("kind") == "inference" || row.at("kind") == "training");
    EXPECT_TRUE(row.at("memory_mib") == "3072" || row.at("memory_mib") == "8192" ||
                row.at("memory_mib") == "16384")
        << row.at("memory_mib");
    const double share = std::stod(row.at("sm_share"));
    EXPECT_GE(share, 0.05);
    EXPECT_LE(share, 0.4);
    // A 16-GiB job needs the 3g.20gb instance.
    if (row.at("memory_mib") == "16384") {
      EXPECT_EQ(row.at("mig_instance").rfind("3g.20gb:", 0), 0u) << row.at("mig_instance");
    }
  }
  EXPECT_EQ(profiles.size(), 3u);  // every profile of the layout served some job
  fs::remove_all(dir);
}

TEST(JobsCsv, TraceDefaultsAndJobsThatNeverRan) {
  const auto dir = testing::temp_dir("jobs_csv_defaults");
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s,tenant,kind\n"
                      "a,0,1,10,team-a,inference\nbig,1,4,10,team-b,training\n");
  testing::write_file(dir / "s.json", R"({"name": "defaults",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv", "defaults": {"memory_mib": 4096, "sm_util": 0.5}}})");
  const auto r =
      run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto all = rows(dir / "out/jobs.csv");
  ASSERT_EQ(all.size(), 2u);
  const auto& big = all[0];  // rejected at arrival: its row comes first
  EXPECT_EQ(big.at("state"), "rejected");
  EXPECT_EQ(big.at("tenant"), "team-b");
  EXPECT_EQ(big.at("device"), "");  // never ran
  const auto& a = all[1];
  EXPECT_EQ(a.at("kind"), "inference");
  EXPECT_EQ(a.at("tenant"), "team-a");
  EXPECT_EQ(a.at("memory_mib"), "4096");  // from trace.defaults
  EXPECT_EQ(a.at("sm_util"), "0.5");
  EXPECT_EQ(a.at("sm_share"), "1");  // the built-in default
  EXPECT_EQ(a.at("device"), "T4");
  EXPECT_EQ(a.at("mig_instance"), "");  // exclusive GPUs have no instances
  fs::remove_all(dir);
}

TEST(JobsCsv, GreedyRunWithArrivalBatchesHoldsRewrittenSubmitTimes) {
  // Ranked by (submit, id): h@0, s1@0 (bytes: "h" < "s1"), s2@5, w@7; two jobs per batch every
  // 60 s: h and s1 arrive at 0, s2 and w at 60. 2 GPUs: h takes both until 100. At 60 w (2
  // GPUs, 10 s) and s2 (1 GPU, 30 s) wait. At 100 under arrival order the earliest fitting job
  // starts: s1 (1 GPU) was queued at 0 and runs 100-120, then s2 (queued at 60, id before w)
  // 100-130; w waits for both: 130-140. Under shortest, s1 (20 s) goes before h (100 s) at 0
  // and runs 0-20, h 20-120; at 120 w (10 s) goes before s2 (30 s): w 120-130, s2 130-160.
  const auto dir = testing::temp_dir("jobs_csv_greedy");
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s\n"
                      "s1,0,1,20\nh,0,2,100\ns2,5,1,30\nw,7,2,10\n");
  testing::write_file(dir / "s.json", R"({"name": "greedy",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "scheduler": {"queue": "greedy"},
    "trace": {"file": "trace.csv", "arrival_batches": {"jobs": 2, "every_s": 60}}})");
  auto run = [&](const std::string& order) {
    const auto out = dir / ("out_" + order);
    const auto r = run_cli({"run", (dir / "s.json").string(), "--out", out.string(), "--quiet",
                            "--set", "scheduler.order=" + order});
    EXPECT_EQ(r.code, 0) << r.err;
    std::map<std::string, std::map<std::string, std::string>> by_id;
    for (auto& row : rows(out / "jobs.csv")) by_id[row.at("id")] = row;
    return by_id;
  };
  auto arrival = run("arrival");
  ASSERT_EQ(arrival.size(), 4u);
  EXPECT_EQ(arrival["h"].at("submit_s"), "0");
  EXPECT_EQ(arrival["s1"].at("submit_s"), "0");
  EXPECT_EQ(arrival["s2"].at("submit_s"), "60");
  EXPECT_EQ(arrival["w"].at("submit_s"), "60");
  EXPECT_EQ(arrival["s1"].at("start_s"), "100");
  EXPECT_EQ(arrival["s2"].at("start_s"), "100");
  EXPECT_EQ(arrival["w"].at("start_s"), "130");
  auto shortest = run("shortest");
  ASSERT_EQ(shortest.size(), 4u);
  EXPECT_EQ(shortest["s1"].at("start_s"), "0");
  EXPECT_EQ(shortest["h"].at("start_s"), "20");
  EXPECT_EQ(shortest["w"].at("start_s"), "120");
  EXPECT_EQ(shortest["s2"].at("start_s"), "130");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
