// The same scenario and seed give byte-identical outputs; another seed gives other outputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

const char* kScenario = R"({
  "name": "determinism", "seed": 7,
  "cluster": {"node_groups": [
    {"nodes": 3, "gpus_per_node": 8, "device": "A100-80GB", "nodes_per_rack": 2},
    {"nodes": 2, "gpus_per_node": 4, "device": "T4", "nvlink": false}]},
  "scheduler": {"queue": "fifo-backfill", "placement": "best-fit"},
  "trace": {"generator": {"jobs": 3000, "arrival": {"process": "bursty", "rate_per_hour": 400}}},
  "outputs": {"timeseries_interval_s": 300}
})";

std::string run_to(const testing::fs::path& scenario, const testing::fs::path& out,
                   const std::string& seed) {
  auto r = testing::run_cli(
      {"run", scenario.string(), "--out", out.string(), "--quiet", "--seed", seed});
  EXPECT_EQ(r.code, 0) << r.err;
  return testing::read_file(out / "summary.json") + testing::read_file(out / "jobs.csv") +
         testing::read_file(out / "timeseries.csv");
}

TEST(Determinism, SameSeedGivesByteIdenticalOutputs) {
  const auto dir = testing::temp_dir("determinism");
  testing::write_file(dir / "s.json", kScenario);
  const std::string a = run_to(dir / "s.json", dir / "a", "7");
  const std::string b = run_to(dir / "s.json", dir / "b", "7");
  const std::string c = run_to(dir / "s.json", dir / "c", "8");
  ASSERT_GT(a.size(), 10000u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  testing::fs::remove_all(dir);
}

// Spread placement under a sharing model is deterministic on a busy generated trace, and it
// spreads: one-GPU jobs that never number more than the GPUs each get a GPU of their own (no
// sharing slowdown), where best-fit packs them onto GPUs already in use.
TEST(Determinism, SpreadPlacementIsDeterministicAndSpreads) {
  const auto dir = testing::temp_dir("spread");
  testing::write_file(dir / "s.json", kScenario);
  auto run = [&](const testing::fs::path& scenario, const char* placement, const char* out) {
    auto r = testing::run_cli({"run", scenario.string(), "--out", (dir / out).string(), "--quiet",
                               "--set", "sharing.model=timeslice", "--set",
                               std::string("scheduler.placement=") + placement});
    EXPECT_EQ(r.code, 0) << r.err;
    return testing::read_file(dir / out / "summary.json") +
           testing::read_file(dir / out / "jobs.csv");
  };
  EXPECT_EQ(run(dir / "s.json", "spread", "a"), run(dir / "s.json", "spread", "b"));

  std::string trace = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < 20; ++i)
    trace += "j" + std::to_string(i) + "," + std::to_string(10 * i) + ",1,25\n";
  testing::write_file(dir / "trace.csv", trace);
  testing::write_file(dir / "light.json", R"({"name": "light",
    "cluster": {"node_groups": [{"nodes": 2, "gpus_per_node": 2, "device": "A100-80GB"}]},
    "trace": {"file": "trace.csv", "defaults": {"memory_mib": 1024, "sm_util": 0.9}}})");
  run(dir / "light.json", "spread", "c");
  run(dir / "light.json", "best-fit", "d");
  const auto spread = nlohmann::json::parse(testing::read_file(dir / "c" / "summary.json"));
  const auto packed = nlohmann::json::parse(testing::read_file(dir / "d" / "summary.json"));
  EXPECT_EQ(spread["scenario"]["scheduler"]["placement"], "spread");
  EXPECT_DOUBLE_EQ(spread["metrics"]["sharing_slowdown"]["max"].get<double>(), 1.0);
  EXPECT_GT(packed["metrics"]["sharing_slowdown"]["max"].get<double>(), 1.0);
  EXPECT_GT(spread["metrics"]["mean_allocated_gpus"].get<double>(),
            packed["metrics"]["mean_allocated_gpus"].get<double>());
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
