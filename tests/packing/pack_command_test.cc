#include "packing/pack_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <sstream>

#include "sim/base/input_error.h"
#include "tests/packing/test_util.h"

namespace gpumux::packing {
namespace {

using ::testing::HasSubstr;
using testing::TempFile;

const char* const kNodes = testing::kTinyOpenbNodes;
// With a blank line at the end, which the loader counts as a skipped row.
const std::string kPods = std::string(testing::kTinyOpenbPods) + "\n";

TEST(PackCommand, ParsesItsOptions) {
  CLI::App app;
  auto* sub = app.add_subcommand("pack");
  PackCommand cmd;
  configure_pack_command(*sub, cmd);
  app.parse("pack --nodes n.csv --pods p.csv --policy FGD --seed 7 --arrive-to 21", false);
  EXPECT_EQ(cmd.nodes_csv, "n.csv");
  EXPECT_EQ(cmd.pods_csv, "p.csv");
  EXPECT_EQ(cmd.policy, "FGD");
  EXPECT_EQ(cmd.seed, 7u);
  EXPECT_EQ(cmd.arrive_to, 21);
  EXPECT_EQ(cmd.format, "csv");
  EXPECT_THAT(sub->help(), HasSubstr("Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD"));

  CLI::App app2;
  auto* sub2 = app2.add_subcommand("pack");
  PackCommand cmd2;
  configure_pack_command(*sub2, cmd2);
  EXPECT_THROW(app2.parse("pack --nodes n --pods p --policy x --format xml", false),
               CLI::ValidationError);
}

TEST(PackCommand, WritesTheCurveAsCsvDeterministically) {
  TempFile nodes("cmd_nodes.csv", kNodes), pods("cmd_pods.csv", kPods);
  PackCommand cmd;
  cmd.nodes_csv = nodes.path();
  cmd.pods_csv = pods.path();
  cmd.policy = "bestfit";
  std::ostringstream out, err;
  ASSERT_EQ(run_pack_command(cmd, out, err), 0);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "arrived_pct,alloc_pct,frag_pct");
  int rows = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.substr(0, line.find(',')), std::to_string(rows));
    ++rows;
  }
  EXPECT_EQ(rows, 131);
  EXPECT_THAT(err.str(), HasSubstr("4 nodes loaded, none skipped"));
  EXPECT_THAT(err.str(), HasSubstr("5 pods loaded, 1 skipped: 1 (blank line)"));

  std::ostringstream again, err2;
  run_pack_command(cmd, again, err2);
  EXPECT_EQ(out.str(), again.str());
}

TEST(PackCommand, JsonCarriesCurveAndSummary) {
  TempFile nodes("cmd_nodes_j.csv", kNodes), pods("cmd_pods_j.csv", kPods);
  PackCommand cmd;
  cmd.nodes_csv = nodes.path();
  cmd.pods_csv = pods.path();
  cmd.policy = "FGD";
  cmd.format = "json";
  cmd.arrive_to = 100;
  std::ostringstream out, err;
  ASSERT_EQ(run_pack_command(cmd, out, err), 0);
  // Checked as text: parsing JSON here trips a GCC 12 false -Warray-bounds in nlohmann_json.
  const std::string s = out.str();
  EXPECT_THAT(s, HasSubstr("\"policy\": \"FGD\""));
  EXPECT_THAT(s, HasSubstr("\"total_gpus\": 20"));
  EXPECT_THAT(s, HasSubstr("\"reason\": \"blank line\""));
  std::size_t points = 0;
  for (auto at = s.find("\"arrived_pct\""); at != std::string::npos;
       at = s.find("\"arrived_pct\"", at + 1)) {
    ++points;
  }
  EXPECT_EQ(points, 101u);
  EXPECT_THAT(s, HasSubstr("\"arrived_pct\": 100,\n      \"alloc_pct\": "));
  EXPECT_EQ(s.back(), '\n');
}

TEST(PackCommand, BadInputThrowsInputError) {
  TempFile nodes("cmd_nodes_b.csv", kNodes), pods("cmd_pods_b.csv", kPods);
  PackCommand cmd;
  cmd.nodes_csv = nodes.path();
  cmd.pods_csv = pods.path();
  cmd.policy = "tetris";
  std::ostringstream out, err;
  try {
    run_pack_command(cmd, out, err);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown policy 'tetris'"));
    EXPECT_THAT(e.what(), HasSubstr("Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD"));
  }
  cmd.policy = "FGD";
  cmd.arrive_to = 0;
  EXPECT_THROW(run_pack_command(cmd, out, err), InputError);
  cmd.arrive_to = 130;
  cmd.nodes_csv = "/nonexistent.csv";
  EXPECT_THROW(run_pack_command(cmd, out, err), InputError);
  TempFile cpu_only("cmd_cpu_nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nc0,1000,1000,0,\n");
  cmd.nodes_csv = cpu_only.path();
  EXPECT_THROW(run_pack_command(cmd, out, err), InputError);
}

}  // namespace
}  // namespace gpumux::packing
