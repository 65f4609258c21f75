// Fractional GPUs end to end: share-aware placement and GPU-share metrics in `run`, the model
// check on share-aware policies, and replaying a snapshot pod list in time.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = testing::fs;

// Two nodes of four T4s; jobs of 300-1000 milli.
std::string scenario(const fs::path& dir, const std::string& model, const std::string& placement) {
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
  const auto r = testing::run_cli({"run", scenario(dir, "fractional", "fgd"), "--quiet"});
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
    for (const std::string placement :
         {"random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd", "spread",
          "first-fit"}) {
      SCOPED_TRACE(model + " " + placement);
      const fs::path dir = testing::temp_dir("frac_all");
      const auto r = testing::run_cli({"run", scenario(dir, model, placement), "--no-outputs"});
      EXPECT_EQ(r.code, 0) << r.err;
      fs::remove_all(dir);
    }
  }
}

// Node CPUs under the share-aware policies: node 0 (group small, 4 cores) and node 1 (group
// big, 16 cores), two T4s each. a (0.5 GPU, 8 cores) fits only node 1's cores: every policy puts
// it on GPU 2 or 3. b (0.5 GPU, 10 cores) then finds 8 cores left on node 1 and none enough on
// node 0: it waits for a to end at 100 and runs 100-150 (duty 0.5 within a 0.5 share: full
// speed under the limiter).
TEST(Fractional, SharePlacementLeavesOutNodesWithoutTheCores) {
  for (const std::string placement :
       {"random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"}) {
    SCOPED_TRACE(placement);
    const fs::path dir = testing::temp_dir("frac_cpus");
    testing::write_file(dir / "trace.csv",
                        "id,submit_s,gpus,runtime_s,gpu_milli,sm_util,cpus\n"
                        "a,0,1,100,500,0.5,8\n"
                        "b,0,1,50,500,0.5,10\n");
    const nlohmann::json s = {
        {"name", "frac_cpus"},
        {"cluster",
         {{"node_groups",
           {{{"name", "small"}, {"nodes", 1}, {"gpus_per_node", 2}, {"device", "T4"}, {"cpus", 4}},
            {{"name", "big"}, {"nodes", 1}, {"gpus_per_node", 2}, {"device", "T4"},
             {"cpus", 16}}}}}},
        {"sharing", {{"model", "fractional"}}},
        {"scheduler", {{"queue", "greedy"}, {"placement", placement}}},
        {"trace", {{"file", "trace.csv"}}},
        {"outputs", {{"dir", (dir / "out").string()}}}};
    testing::write_file(dir / "s.json", s.dump());
    const auto r = testing::run_cli({"run", (dir / "s.json").string(), "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string jobs = testing::read_file(dir / "out" / "jobs.csv");
    // id,state,submit_s,gpus,runtime_s,start_s,finish_s,...,placement_span,first_gpu
    EXPECT_TRUE(jobs.find("\na,finished,0,1,100,0,100,0,100,1,same-gpu,2,") != std::string::npos ||
                jobs.find("\na,finished,0,1,100,0,100,0,100,1,same-gpu,3,") != std::string::npos)
        << jobs;
    EXPECT_NE(jobs.find("\nb,finished,0,1,50,100,150,"), std::string::npos) << jobs;
    fs::remove_all(dir);
  }
}

TEST(Fractional, SharePlacementUnderExclusiveIsAnInputError) {
  const fs::path dir = testing::temp_dir("frac_excl");
  const auto r = testing::run_cli({"validate", scenario(dir, "exclusive", "fgd")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("admits fractional jobs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("#/scheduler/placement"), std::string::npos) << r.err;
  // best-fit stays the topology best-fit there.
  const auto ok = testing::run_cli({"validate", scenario(dir, "exclusive", "best-fit")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  fs::remove_all(dir);
}

TEST(Fractional, SameSeedSameOutputs) {
  const fs::path a = testing::temp_dir("frac_det_a"), b = testing::temp_dir("frac_det_b");
  ASSERT_EQ(testing::run_cli({"run", scenario(a, "fractional", "random"), "--quiet"}).code, 0);
  ASSERT_EQ(testing::run_cli({"run", scenario(b, "fractional", "random"), "--quiet"}).code, 0);
  for (const char* f : {"jobs.csv", "timeseries.csv"}) {
    EXPECT_EQ(testing::read_file(a / "out" / f), testing::read_file(b / "out" / f)) << f;
  }
  fs::remove_all(a);
  fs::remove_all(b);
}

std::string openb_scenario(const fs::path& dir, const nlohmann::json& inflation) {
  nlohmann::json s = {
      {"name", "openb"},
      {"seed", 5},
      {"cluster", {{"node_groups", {{{"nodes", 2}, {"gpus_per_node", 8}, {"device", "T4"}}}}}},
      {"sharing", {{"model", "fractional"}}},
      {"scheduler", {{"placement", "fgd"}}},
      {"trace",
       {{"file", (testing::source_dir() / "tests/data/public-traces/openb_pods_excerpt.csv")
                     .string()},
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
  EXPECT_EQ(list["looks_like_snapshot"].get<bool>(), late >= 0.3 ||
                                                        list["lifetimes_longer_than_span"]
                                                                .get<double>() >= 0.1);
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
  const auto bad =
      testing::run_cli({"validate", openb_scenario(dir, {{"load", 0}, {"jobs", 40}})});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("inflation"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
