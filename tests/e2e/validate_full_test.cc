// `gpumux validate --full`: every trace row is read, so a bad row far down is caught before a
// run; without --full only the header is read (unchanged).
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;

// A scenario on a native CSV trace of `rows` jobs; row `bad` (0-based, or -1 for none) has a
// non-integer gpus field. Returns the scenario's path.
std::string scenario_with_trace(const testing::fs::path& dir, int rows, int bad,
                                const std::string& extra_trace = "") {
  std::string csv = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < rows; ++i) {
    csv += "j" + std::to_string(i) + "," + std::to_string(i) + "," + (i == bad ? "two" : "1") +
           ",10\n";
  }
  testing::write_file(dir / "trace.csv", csv);
  testing::write_file(dir / "s.json", R"({"name": "full",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv")" + extra_trace + "}}");
  return (dir / "s.json").string();
}

TEST(ValidateFull, CatchesABadRowFarDownAsRunWould) {
  const auto dir = testing::temp_dir("validate_full_bad");
  const std::string s = scenario_with_trace(dir, 5000, 3999);  // line 4001 of the file
  // Without --full only the header is read: the scenario passes, as before.
  const auto header_only = run_cli({"validate", s});
  EXPECT_EQ(header_only.code, 0) << header_only.err;
  EXPECT_EQ(header_only.out.find("rows read"), std::string::npos) << header_only.out;

  const auto full = run_cli({"validate", "--full", s});
  EXPECT_EQ(full.code, 2);
  EXPECT_EQ(full.out, "");  // no partial output
  const std::string where = (dir / "trace.csv").string() + ":4001: field 'gpus'";
  EXPECT_NE(full.err.find(where), std::string::npos) << full.err;
  // The same message as the run.
  const auto run = run_cli({"run", s, "--no-outputs", "--quiet"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(full.err, run.err);
}

TEST(ValidateFull, ReportsTheRowCount) {
  const auto dir = testing::temp_dir("validate_full_ok");
  const std::string s = scenario_with_trace(dir, 4321, -1);
  const auto r = run_cli({"validate", s, "--full"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("OK  "), std::string::npos);
  EXPECT_NE(r.out.find("; 4,321 rows read\n"), std::string::npos) << r.out;
}

TEST(ValidateFull, CountsTheRowsTheFilterKeeps) {
  const auto dir = testing::temp_dir("validate_full_filter");
  const std::string s = scenario_with_trace(dir, 10, -1, R"(, "filter": {"gpus": {"min": 2}})");
  // Four of the ten jobs ask for two GPUs: the filter keeps those.
  std::string csv = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < 10; ++i) {
    csv += "j" + std::to_string(i) + "," + std::to_string(i) + "," + (i % 3 == 0 ? "2" : "1") +
           ",10\n";
  }
  testing::write_file(dir / "trace.csv", csv);
  const auto r = run_cli({"validate", s, "--full"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("10 rows read, 4 kept by the filter"), std::string::npos) << r.out;
}

TEST(ValidateFull, ReadsPublicAndSampleTraces) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto r = run_cli({"validate", "--full", q});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("60 rows read"), std::string::npos) << r.out;
}

TEST(ValidateFull, HelpTeachesTheOption) {
  const auto r = run_cli({"validate", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--full"), std::string::npos);
  EXPECT_NE(r.out.find("file:line"), std::string::npos);
}

}  // namespace
}  // namespace gpumux
