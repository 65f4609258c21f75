// Documented limits and the options that guard a run (docs/limits.md "Limits on input", "Exit codes"):
// each limit is a clean exit-2 error naming the place; the invariant checks can be asked for
// on the command line.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

bool limits_text_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class Limits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    testing::write_file(dir_ / "trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,2,5\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string scenario(const std::string& cluster) {
    const fs::path p = dir_ / "s.json";
    testing::write_file(p, R"({"name": "limits", "cluster": )" + cluster +
                               R"(, "trace": {"file": "trace.csv"}})");
    return p.string();
  }
  fs::path dir_;
};

TEST_F(Limits, ClusterOfMoreThanAMillionGpusIsBadInput) {
  // 1,000,000 nodes of 64 GPUs: within each key's range, far beyond what a run can hold.
  const auto r = run_cli({"validate", scenario(R"({"node_groups": [
      {"nodes": 1000000, "gpus_per_node": 64, "device": "A100-40GB"}]})")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(limits_text_has(r.err, "s.json#/cluster/node_groups/0/nodes")) << r.err;
  EXPECT_TRUE(limits_text_has(r.err, "more than 1000000 GPUs (64000000 up to here)")) << r.err;
  // The sum over groups counts, and the group that passes the limit is named.
  const auto two = run_cli({"validate", scenario(R"({"node_groups": [
      {"nodes": 600000, "gpus_per_node": 1, "device": "A100-40GB"},
      {"nodes": 400001, "gpus_per_node": 1, "device": "A100-40GB"}]})")});
  EXPECT_EQ(two.code, 2) << two.err;
  EXPECT_TRUE(limits_text_has(two.err, "#/cluster/node_groups/1/nodes")) << two.err;
  // Exactly the limit is fine.
  const auto at_limit = run_cli({"validate", scenario(R"({"node_groups": [
      {"nodes": 15625, "gpus_per_node": 64, "device": "A100-40GB"}]})")});
  EXPECT_EQ(at_limit.code, 0) << at_limit.err;
  EXPECT_TRUE(limits_text_has(at_limit.out, "1000000 GPUs")) << at_limit.out;
}

TEST_F(Limits, NodesCsvOfMoreThanAMillionGpusIsBadInputAtItsRow) {
  std::string csv = "name,gpus,device\n";
  for (int n = 0; n <= 15625; ++n) csv += "n" + std::to_string(n) + ",64,A100-40GB\n";
  testing::write_file(dir_ / "nodes.csv", csv);
  const auto r = run_cli({"validate", scenario(R"({"nodes_csv": "nodes.csv"})")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(limits_text_has(r.err, "nodes.csv:15627")) << r.err;
  EXPECT_TRUE(limits_text_has(r.err, "more than 1000000 GPUs")) << r.err;
}

TEST_F(Limits, CheckInvariantsIsAnOptionOfRunCompareAndCheck) {
  const std::string s = scenario(R"({"node_groups": [
      {"nodes": 1, "gpus_per_node": 4, "device": "A100-40GB"}]})");
  const auto run = run_cli({"run", s, "--check-invariants", "--no-outputs", "--quiet"});
  EXPECT_EQ(run.code, 0) << run.err;
  testing::write_file(dir_ / "checked.json", R"({"name": "checked", "cluster": {"node_groups": [
      {"nodes": 1, "gpus_per_node": 4, "device": "A100-40GB"}]}, "trace": {"file": "trace.csv"},
      "expect": {"jobs.rejected": {"max": 0}}})");
  const auto check = run_cli({"check", (dir_ / "checked.json").string(), "--check-invariants"});
  EXPECT_EQ(check.code, 0) << check.err;
  const auto compare =
      run_cli({"compare", s, "--models", "exclusive,timeslice", "--check-invariants"});
  EXPECT_EQ(compare.code, 0) << compare.err;
  const auto help = run_cli({"run", "--help"});
  EXPECT_TRUE(limits_text_has(help.out, "--check-invariants")) << help.out;
}

}  // namespace
}  // namespace gpumux
