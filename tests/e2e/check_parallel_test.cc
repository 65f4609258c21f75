// `gpumux check -j N`: scenarios run in parallel, with the same output bytes and exit code as
// -j 1 (results in file order; a bad-input error is the first failing file's).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;

// A scenario named `name` whose bound holds or fails; `bad_row` puts a bad row in its trace.
std::string parallel_check_scenario(const testing::fs::path& dir, const std::string& name,
                                    bool holds, bool bad_row = false) {
  std::string csv = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < 20; ++i) {
    csv += "j" + std::to_string(i) + "," + std::to_string(i) + "," +
           (bad_row && i == 15 ? "x" : "1") + ",10\n";
  }
  testing::write_file(dir / (name + ".csv"), csv);
  const auto file = dir / (name + ".json");
  testing::write_file(file, R"({"name": ")" + name + R"(",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": ")" + name + R"(.csv"},
    "expect": {"jobs.finished": {"min": )" + (holds ? "20" : "21") + "}}}");
  return file.string();
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(CheckParallel, SameBytesAndExitCodeAsOneThread) {
  const auto dir = testing::temp_dir("check_parallel");
  std::vector<std::string> files;
  for (int i = 0; i < 8; ++i) {
    files.push_back(parallel_check_scenario(dir, "s" + std::to_string(i), i != 5));
  }
  std::vector<std::string> args = {"check"};
  args.insert(args.end(), files.begin(), files.end());
  const auto one = run_cli(with(args, {"-j", "1"}));
  EXPECT_EQ(one.code, 3) << one.err;
  EXPECT_NE(one.out.find("s5.json"), std::string::npos);
  for (const char* j : {"2", "4", "8"}) {
    const auto many = run_cli(with(args, {"-j", j}));
    EXPECT_EQ(many.code, one.code) << j;
    EXPECT_EQ(many.out, one.out) << j;
    const auto json1 = run_cli(with(args, {"-j", "1", "--format", "json"}));
    const auto json = run_cli(with(args, {"-j", j, "--format", "json"}));
    EXPECT_EQ(json.out, json1.out) << j;
  }
}

TEST(CheckParallel, BadInputIsTheFirstFailingFilesError) {
  const auto dir = testing::temp_dir("check_parallel_bad");
  std::vector<std::string> args = {"check"};
  for (int i = 0; i < 6; ++i) {
    args.push_back(parallel_check_scenario(dir, "s" + std::to_string(i), true, i == 2 || i == 4));
  }
  const auto one = run_cli(with(args, {"-j", "1"}));
  EXPECT_EQ(one.code, 2);
  EXPECT_NE(one.err.find("s2.csv:17"), std::string::npos) << one.err;
  const auto many = run_cli(with(args, {"-j", "4"}));
  EXPECT_EQ(many.code, 2);
  EXPECT_EQ(many.out, "");
  EXPECT_EQ(many.err, one.err);
}

TEST(CheckParallel, ThreadsMustBePositiveAndHelpSaysSo) {
  const auto dir = testing::temp_dir("check_parallel_opt");
  EXPECT_EQ(run_cli({"check", parallel_check_scenario(dir, "s", true), "-j", "0"}).code, 2);
  const auto help = run_cli({"check", "--help"});
  EXPECT_NE(help.out.find("--threads"), std::string::npos);
}

}  // namespace
}  // namespace gpumux
