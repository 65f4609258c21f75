// The same scenario and seed give byte-identical outputs; another seed gives other outputs.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gpumux
