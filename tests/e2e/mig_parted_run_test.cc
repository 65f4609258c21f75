// A mig-parted file through the command line: summary.json shows the layout each GPU index
// starts with (only under a model that splits GPUs), and a config whose device-filters match no
// GPU of the cluster is bad input instead of a run with MIG silently off.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_cli;
using testing::write_file;

bool parted_text_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

nlohmann::json summary_of(const fs::path& dir) {
  return nlohmann::json::parse(read_file(dir / "summary.json"));
}

TEST(MigPartedRun, SummaryShowsTheLayoutOfEachGpuIndex) {
  const auto dir = testing::temp_dir("mig_parted_layouts");
  const std::string half =
      (testing::source_dir() / "scenarios" / "examples" / "mig_half_node.json").string();
  ASSERT_EQ(run_cli({"run", half, "--out", (dir / "mig").string()}).code, 0);
  const nlohmann::json layouts =
      summary_of(dir / "mig")["scenario"]["sharing"]["effective_layouts"];
  // a100-40gb.yaml, config half-mig: GPUs 0-3 balanced, 4-7 whole.
  const nlohmann::json balanced = {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"};
  const nlohmann::json whole = nlohmann::json::array();
  const nlohmann::json expected = {
      {{"device", "A100-40GB"},
       {"by_gpu_index", {balanced, balanced, balanced, balanced, whole, whole, whole, whole}}}};
  EXPECT_EQ(layouts, expected) << layouts.dump();

  // Models without slots keep their summary as it was: no such key.
  ASSERT_EQ(run_cli({"run", half, "--set", "sharing.model=exclusive", "--set", "sharing.params={}",
                     "--out", (dir / "exclusive").string()})
                .code,
            0);
  EXPECT_FALSE(summary_of(dir / "exclusive")["scenario"]["sharing"].contains("effective_layouts"));
  fs::remove_all(dir);
}

// H200's stock PCI id used to be unknown, so the entry applied to any GPU its profiles fit
// (here every H100-80GB); now it names H200 and the filter matches no GPU of the cluster.
TEST(MigPartedRun, ADeviceFilterMatchingNoGpuIsBadInput) {
  const auto dir = testing::temp_dir("mig_parted_filter");
  write_file(dir / "trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\n");
  write_file(dir / "parted.yaml", R"(version: v1
mig-configs:
  h200-only:
    - device-filter: ["0x233510DE"]
      devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 7}
)");
  write_file(dir / "s.json", R"({"name": "filter",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "H100-80GB"}]},
    "sharing": {"model": "mig", "params": {"mig_parted": "parted.yaml", "config": "h200-only"}},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"validate", (dir / "s.json").string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(parted_text_has(r.err, "parted.yaml:4:")) << r.err;
  EXPECT_TRUE(parted_text_has(r.err, "config 'h200-only'")) << r.err;
  EXPECT_TRUE(parted_text_has(r.err, "device-filter 0x233510DE")) << r.err;
  EXPECT_TRUE(parted_text_has(r.err, "matches no GPU of the cluster (H100-80GB)")) << r.err;

  // The same file on H200 nodes: the entry applies (1g.10gb is no H200 profile: that error).
  const auto h200 = run_cli({"validate", (dir / "s.json").string(), "--set",
                             "/cluster/node_groups/0/device=\"H200-141GB\""});
  EXPECT_EQ(h200.code, 2) << h200.err;
  EXPECT_FALSE(parted_text_has(h200.err, "matches no GPU")) << h200.err;
  fs::remove_all(dir);
}

// Half of each node split into MIG instances, half whole (config 'half-mig': 4 whole GPUs a
// node, 8 in the cluster). A gang needs whole GPUs, and without repartitioning a split GPU never
// becomes whole: a 9-GPU gang can never start and is rejected at arrival, while an 8-GPU gang
// runs. Before, the 9-GPU gang was counted against all 16 GPUs, waited forever, and the run
// ended with an internal error ("jobs left queued on an idle cluster").
TEST(MigPartedRun, AGangLargerThanTheWholeGpusIsRejectedNotLeftQueued) {
  const auto dir = testing::temp_dir("mig_parted_gang");
  write_file(dir / "trace.csv",
             "id,submit_s,gpus,runtime_s\nbig,0,9,100\nfits,1,8,100\nsmall,2,1,50\n");
  const std::string parted =
      (testing::source_dir() / "scenarios" / "mig-parted" / "a100-40gb.yaml").string();
  write_file(dir / "s.json", R"({"name": "gang", "seed": 1,
    "cluster": {"node_groups": [{"nodes": 2, "gpus_per_node": 8, "device": "A100-40GB"}]},
    "sharing": {"model": "mig", "params": {"mig_parted": ")" +
                                 parted + R"(", "config": "half-mig"}},
    "trace": {"file": "trace.csv", "defaults": {"memory_mib": 1000}}})");
  const auto r = run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json metrics = summary_of(dir / "out")["metrics"];
  EXPECT_EQ(metrics["jobs"]["rejected"], 1) << metrics["jobs"].dump();
  EXPECT_EQ(metrics["jobs"]["finished"], 2) << metrics["jobs"].dump();
  EXPECT_EQ(metrics["slots"]["rejected_by_reason"],
            nlohmann::json({{"gang larger than the number of GPUs that admit it", 1}}));
  EXPECT_TRUE(parted_text_has(
      read_file(dir / "out" / "jobs.csv"),
      "\nbig,rejected,0,9,100,,,,,,,,0,gang larger than the number of GPUs that admit "
      "it,"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
