// Fractional GPUs end to end: share-aware placement and GPU-share metrics in `run`, the model
// check on share-aware policies, and replaying a snapshot pod list in time.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = testing::fs;

// Two nodes of four T4s; jobs of 300-1000 milli.
std::string fractional_scenario(const fs::path& dir, const std::string& model,
                                const std::string& placement) {
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s,sm_util,gpu_milli\n"
                      "a,0,1,100,0.5,300\n"
                      "b,0,1,100,0.5,300\n"
                      "c,10,1,100,1.0,500\n"
                      "d,10,2,50,1.0,1000\n"
                      "e,20,1,100,0.3,250\n"
                      "f,20,1,80,0.9,700\n"
                      "g,30,4,60,1.0,1000\n"
                      "h,30,1,100,0.5,400\n");
  const nlohmann::json s = {
      {"name", "frac"},
      {"seed", 3},
      {"cluster", {{"node_groups", {{{"nodes", 2}, {"gpus_per_node", 4}, {"device", "T4"}}}}}},
      {"sharing", {{"model", model}}},
      {"scheduler", {{"queue", "fifo"}, {"placement", placement}}},
      {"trace", {{"file", "trace.csv"}}},
      {"outputs", {{"dir", (dir / "out").string()}, {"timeseries_interval_s", 10}}}};
  testing::write_file(dir / "s.json", s.dump());
  return (dir / "s.json").string();
}

TEST(Fractional, SharePlacementRunsAndReportsAllocationAndFragmentation) {
  const fs::path dir = testing::temp_dir("frac_fgd");
  const auto r =
      testing::run_cli({"run", fractional_scenario(dir, "fractional", "fgd"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["metrics"]["jobs"]["finished"], 8);
  const auto& shares = summary["metrics"]["shares"];
  ASSERT_TRUE(shares["allocation_ratio"].is_number());
  EXPECT_GT(shares["allocation_ratio"].get<double>(), 0.0);
  EXPECT_LE(shares["peak_allocation_ratio"].get<double>(), 1.0);
  EXPECT_GE(shares["fragmentation_gpus"].get<double>(), 0.0);
  const std::string series = testing::read_file(dir / "out" / "timeseries.csv");
  EXPECT_NE(series.find(",share_allocation_ratio,fragmentation_gpus,fragmentation_of_idle\n"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(Fractional, EveryPolicyRunsUnderEveryModelThatAdmitsFractionalJobs) {
  for (const std::string model : {"fractional", "timeslice", "mps"}) {
    for (const std::string placement : {"random", "dot-product", "gpu-clustering", "gpu-packing",
                                        "best-fit", "fgd", "spread", "first-fit"}) {
      SCOPED_TRACE(model + " " + placement);
      const fs::path dir = testing::temp_dir("frac_all");
      const auto r =
          testing::run_cli({"run", fractional_scenario(dir, model, placement), "--no-outputs"});
      EXPECT_EQ(r.code, 0) << r.err;
      fs::remove_all(dir);
    }
  }
}

// The share-aware policies, each in turn.
const std::vector<std::string> kSharePolicies = {"random",      "dot-product", "gpu-clustering",
                                                 "gpu-packing", "best-fit",    "fgd"};

// Runs `trace` (a jobs CSV) under the fractional model on two nodes of two T4s, `small` with 4
// cores and `big` with 16, with `placement` and `queue`, checking invariants; returns jobs.csv.
std::string run_on_small_and_big(const std::string& tag, const std::string& trace,
                                 const std::string& placement, const std::string& queue) {
  const fs::path dir = testing::temp_dir(tag);
  testing::write_file(dir / "trace.csv", trace);
  const nlohmann::json s = {
      {"name", tag},
      {"cluster",
       {{"node_groups",
         {{{"name", "small"}, {"nodes", 1}, {"gpus_per_node", 2}, {"device", "T4"}, {"cpus", 4}},
          {{"name", "big"}, {"nodes", 1}, {"gpus_per_node", 2}, {"device", "T4"}, {"cpus", 16}}}}}},
      {"sharing", {{"model", "fractional"}}},
      {"scheduler", {{"queue", queue}, {"placement", placement}}},
      {"trace", {{"file", "trace.csv"}}},
      {"outputs", {{"dir", (dir / "out").string()}}}};
  testing::write_file(dir / "s.json", s.dump());
  const auto r =
      testing::run_cli({"run", (dir / "s.json").string(), "--quiet", "--check-invariants"});
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string jobs = r.code == 0 ? testing::read_file(dir / "out" / "jobs.csv") : "";
  fs::remove_all(dir);
  return jobs;
}

// Node CPUs under the share-aware policies: node 0 (small, 4 cores) and node 1 (big, 16
// cores). a (0.5 GPU, 8 cores) fits only node 1's cores: every policy puts it on GPU 2 or 3. b
// (0.5 GPU, 10 cores) then finds 8 cores left on node 1 and none enough on node 0: it waits for
// a to end at 100 and runs 100-150 (duty 0.5 within a 0.5 share: full speed under the limiter).
TEST(Fractional, SharePlacementLeavesOutNodesWithoutTheCores) {
  for (const std::string& placement : kSharePolicies) {
    SCOPED_TRACE(placement);
    const std::string jobs =
        run_on_small_and_big("frac_cpus",
                             "id,submit_s,gpus,runtime_s,gpu_milli,sm_util,cpus\n"
                             "a,0,1,100,500,0.5,8\n"
                             "b,0,1,50,500,0.5,10\n",
                             placement, "greedy");
    // id,state,submit_s,gpus,runtime_s,start_s,finish_s,...,placement_span,first_gpu
    EXPECT_TRUE(jobs.find("\na,finished,0,1,100,0,100,0,100,1,same-gpu,2,") != std::string::npos ||
                jobs.find("\na,finished,0,1,100,0,100,0,100,1,same-gpu,3,") != std::string::npos)
        << jobs;
    EXPECT_NE(jobs.find("\nb,finished,0,1,50,100,150,"), std::string::npos) << jobs;
  }
}

// CPU-only jobs under the share-aware policies: best-fit by free cores (the policies' scores
// see no CPUs). c (CPU-only, 3 cores, 0-100) goes to small, the node with the fewest free cores
// that fit (4 < 16). x (1 GPU, 14 cores, at 1) then fits only big, which kept its 16: it starts
// at once on GPU 2 or 3 (had c gone to big, x would wait until 100). A CPU-only job's row:
// placement_span `node`, no GPU, no device.
TEST(Fractional, SharePlacementPutsCpuOnlyJobsOnTheTightestNode) {
  for (const std::string& placement : kSharePolicies) {
    SCOPED_TRACE(placement);
    const std::string jobs =
        run_on_small_and_big("frac_cpu_only",
                             "id,submit_s,gpus,runtime_s,gpu_milli,sm_util,cpus\n"
                             "c,0,0,100,1000,1,3\n"
                             "x,1,1,50,1000,1,14\n",
                             placement, "fifo");
    // id,state,submit_s,gpus,runtime_s,start_s,finish_s,queue_s,jct_s,slowdown,placement_span,
    // first_gpu,kills,reason,kind,tenant,memory_mib,sm_util,sm_share,device,mig_instance
    EXPECT_NE(jobs.find("\nc,finished,0,0,100,0,100,0,100,1,node,,0,,training,,0,1,1,,\n"),
              std::string::npos)
        << jobs;
    EXPECT_TRUE(jobs.find("\nx,finished,1,1,50,1,51,0,50,1,same-gpu,2,") != std::string::npos ||
                jobs.find("\nx,finished,1,1,50,1,51,0,50,1,same-gpu,3,") != std::string::npos)
        << jobs;
  }
}

TEST(Fractional, SharePlacementUnderExclusiveIsAnInputError) {
  const fs::path dir = testing::temp_dir("frac_excl");
  const auto r = testing::run_cli({"validate", fractional_scenario(dir, "exclusive", "fgd")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("admits fractional jobs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("#/scheduler/placement"), std::string::npos) << r.err;
  // best-fit stays the topology best-fit there.
  const auto ok = testing::run_cli({"validate", fractional_scenario(dir, "exclusive", "best-fit")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  fs::remove_all(dir);
}

TEST(Fractional, SameSeedSameOutputs) {
  const fs::path a = testing::temp_dir("frac_det_a"), b = testing::temp_dir("frac_det_b");
  ASSERT_EQ(
      testing::run_cli({"run", fractional_scenario(a, "fractional", "random"), "--quiet"}).code, 0);
  ASSERT_EQ(
      testing::run_cli({"run", fractional_scenario(b, "fractional", "random"), "--quiet"}).code, 0);
  for (const char* f : {"jobs.csv", "timeseries.csv"}) {
    EXPECT_EQ(testing::read_file(a / "out" / f), testing::read_file(b / "out" / f)) << f;
  }
  fs::remove_all(a);
  fs::remove_all(b);
}

// Rows of a CSV text by their first field, each split at commas.
std::map<std::string, std::vector<std::string>> rows_by_key(const std::string& csv) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    if (!cells.empty()) out[cells[0]] = cells;
  }
  return out;
}

// The share metrics' exact values on a case small enough to derive by hand from the FGD
// fragmentation (sim/placement/fgd/fragmentation.h): per node, sum over the typical kinds p of
// freq(p) x F(n, p), F = the idle milli on GPUs with less than p's milli left when the node
// can host p, else the node's whole idle milli L.
TEST(Fractional, ShareMetricsHaveTheHandDerivedValues) {
  // One node of four T4s. Every job is alone on its GPUs and asks no more time than its share
  // (sm_util <= gpu_milli / 1000), so it runs at full speed: a [0, 100), b [0, 300), the gang
  // g [150, 250). Kinds: (1 GPU, 600) x 2 and (2 GPUs, 1000) x 1 cover 100% (>= 95%) of the
  // jobs: both typical, weights 2/3 and 1/3 (units below are milli x 3).
  const fs::path dir = testing::temp_dir("frac_exact");
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s,sm_util,gpu_milli\n"
                      "a,0,1,100,0.5,600\n"
                      "b,0,1,300,0.5,600\n"
                      "g,150,2,100,1.0,1000\n");
  const nlohmann::json s = {
      {"name", "frac-exact"},
      {"seed", 1},
      {"cluster", {{"node_groups", {{{"nodes", 1}, {"gpus_per_node", 4}, {"device", "T4"}}}}}},
      {"sharing", {{"model", "fractional"}}},
      {"scheduler", {{"queue", "fifo"}, {"placement", "fgd"}}},
      {"trace", {{"file", "trace.csv"}}},
      {"outputs", {{"dir", (dir / "out").string()}, {"timeseries_interval_s", 25}}}};
  testing::write_file(dir / "s.json", s.dump());
  const auto r = testing::run_cli({"run", (dir / "s.json").string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;

  // Preconditions of the derivation: the times above.
  const auto jobs = rows_by_key(testing::read_file(dir / "out" / "jobs.csv"));
  ASSERT_EQ(jobs.at("id")[5], "start_s");
  ASSERT_EQ(jobs.at("id")[6], "finish_s");
  EXPECT_EQ(std::stod(jobs.at("a")[6]), 100.0);
  EXPECT_EQ(std::stod(jobs.at("b")[6]), 300.0);
  EXPECT_EQ(std::stod(jobs.at("g")[5]), 150.0);
  EXPECT_EQ(std::stod(jobs.at("g")[6]), 250.0);

  // The four states (milli left per GPU, any order; frag units = sum count(p) x F(n, p)):
  //  S1 [0, 100)   {400, 400, 1000, 1000}: L 2800, allocated 1200.
  //      (1,600): hostable, F = 400 + 400 = 800 (x2); (2,1000): two whole GPUs, F = 800 (x1).
  //      units 2400 -> 800 milli = 0.8 GPUs; of idle 800 / 2800.
  //  S2 [100, 150) and [250, 300)  {1000, 400, 1000, 1000}: L 3400, allocated 600.
  //      (1,600): F = 400 (x2); (2,1000): F = 400 (x1). units 1200 -> 400 milli = 0.4 GPUs.
  //  S3 [150, 250) {1000, 400, 0, 0}: L 1400, allocated 2600.
  //      (1,600): hostable, F = 400 (x2); (2,1000): one whole GPU only, F = L = 1400 (x1).
  //      units 2200 -> 2200/3 milli; of idle (2200/3) / 1400 = 11/21.
  //  after 300: nothing runs, nothing fragmented.
  const auto series = rows_by_key(testing::read_file(dir / "out" / "timeseries.csv"));
  const auto& head = series.at("time_s");
  auto column = [&](const std::string& name) {
    const auto it = std::find(head.begin(), head.end(), name);
    EXPECT_NE(it, head.end()) << name;
    return static_cast<std::size_t>(it - head.begin());
  };
  const std::size_t ratio = column("share_allocation_ratio"), frag = column("fragmentation_gpus"),
                    of_idle = column("fragmentation_of_idle");
  struct Expected {
    const char* time;
    double ratio, frag_gpus, of_idle;
  };
  for (const Expected& e :
       {Expected{"25", 0.3, 0.8, 800.0 / 2800.0}, Expected{"125", 0.15, 0.4, 400.0 / 3400.0},
        Expected{"175", 0.65, 2.2 / 3.0, 11.0 / 21.0},
        Expected{"275", 0.15, 0.4, 400.0 / 3400.0}}) {
    SCOPED_TRACE(e.time);
    ASSERT_TRUE(series.count(e.time)) << testing::read_file(dir / "out" / "timeseries.csv");
    const auto& row = series.at(e.time);
    EXPECT_NEAR(std::stod(row[ratio]), e.ratio, 1e-12);
    EXPECT_NEAR(std::stod(row[frag]), e.frag_gpus, 1e-12);
    EXPECT_NEAR(std::stod(row[of_idle]), e.of_idle, 1e-12);
  }

  // summary.json: time-weighted over [0, 300] (first arrival to the end of the run).
  //  allocation: (1200 x 100 + 600 x 50 + 2600 x 100 + 600 x 50) / 300 / 4000 = 11/30
  //  fragmentation: (800 x 100 + 400 x 50 + 2200/3 x 100 + 400 x 50) / 300 / 1000 = 29/45 GPUs
  //  of idle: that integral over the idle one, 2800 x 100 + 3400 x 50 + 1400 x 100 + 3400 x 50
  //  = 760,000: (580,000 / 3) / 760,000 = 29/114
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
  const auto& shares = summary["metrics"]["shares"];
  EXPECT_NEAR(shares["allocation_ratio"].get<double>(), 11.0 / 30.0, 1e-12);
  EXPECT_NEAR(shares["fragmentation_gpus"].get<double>(), 29.0 / 45.0, 1e-12);
  EXPECT_NEAR(shares["fragmentation_of_idle"].get<double>(), 29.0 / 114.0, 1e-12);
  EXPECT_DOUBLE_EQ(shares["peak_allocation_ratio"].get<double>(), 0.65);
  EXPECT_EQ(shares["typical_job_kinds"], 2);
  fs::remove_all(dir);
}

std::string openb_scenario(const fs::path& dir, const nlohmann::json& inflation) {
  nlohmann::json s = {
      {"name", "openb"},
      {"seed", 5},
      {"cluster", {{"node_groups", {{{"nodes", 2}, {"gpus_per_node", 8}, {"device", "T4"}}}}}},
      {"sharing", {{"model", "fractional"}}},
      {"scheduler", {{"placement", "fgd"}}},
      {"trace",
       {{"file",
         (testing::source_dir() / "tests/data/public-traces/openb_pods_excerpt.csv").string()},
        {"format", "openb-pods"}}},
      {"outputs", {{"dir", (dir / "out").string()}}}};
  if (!inflation.is_null()) s["trace"]["inflation"] = inflation;
  testing::write_file(dir / "s.json", s.dump());
  return (dir / "s.json").string();
}

TEST(Fractional, OpenbListCarriesItsSnapshotCheck) {
  const fs::path dir = testing::temp_dir("frac_openb");
  const auto r = testing::run_cli({"run", openb_scenario(dir, nullptr), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
  const auto& list = summary["trace"]["list"];
  ASSERT_TRUE(list.is_object()) << summary["trace"].dump();
  const double late = list["arrivals_in_last_10pct_of_span"].get<double>();
  EXPECT_GE(late, 0.0);
  EXPECT_LE(late, 1.0);
  EXPECT_EQ(list["looks_like_snapshot"].get<bool>(),
            late >= 0.3 || list["lifetimes_longer_than_span"].get<double>() >= 0.1);
  fs::remove_all(dir);
}

// The run table advises inflating a list that looks like a snapshot; a run that inflates it
// already gets no such note (the excerpt looks like one: 53% of arrivals in the last tenth).
TEST(Fractional, TheSnapshotNoteIsLeftOutWhenTheListIsInflated) {
  const fs::path dir = testing::temp_dir("frac_note");
  const std::string note = "looks like a snapshot";
  const auto plain = testing::run_cli({"run", openb_scenario(dir, nullptr)});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find(note), std::string::npos) << plain.out;
  const auto inflated =
      testing::run_cli({"run", openb_scenario(dir, {{"load", 0.5}, {"jobs", 40}})});
  ASSERT_EQ(inflated.code, 0) << inflated.err;
  EXPECT_NE(inflated.out.find("inflation 40 arrivals"), std::string::npos) << inflated.out;
  EXPECT_EQ(inflated.out.find(note), std::string::npos) << inflated.out;
  fs::remove_all(dir);
}

TEST(Fractional, InflationReplaysTheListAtTheTargetLoad) {
  const fs::path dir = testing::temp_dir("frac_infl");
  const auto r =
      testing::run_cli({"run", openb_scenario(dir, {{"load", 0.5}, {"jobs", 40}}), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["metrics"]["jobs"]["arrived"], 40);
  const auto& inf = summary["trace"]["inflation"];
  EXPECT_EQ(inf["arrivals"], 40);
  EXPECT_GT(inf["arrivals_per_s"].get<double>(), 0.0);
  const std::string jobs = testing::read_file(dir / "out" / "jobs.csv");
  EXPECT_NE(jobs.find("#39,"), std::string::npos);  // re-sampled ids: <id>#<k>
  const auto bad = testing::run_cli({"validate", openb_scenario(dir, {{"load", 0}, {"jobs", 40}})});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("inflation"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
