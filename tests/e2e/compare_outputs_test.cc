// `compare --out DIR` writes DIR whole: its run folders and its compare.csv / compare.json
// appear together or not at all, a failed comparison leaves DIR as it was, and a folder holding
// anything a comparison did not write is refused.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

std::set<std::string> tree(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

class CompareOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    testing::write_file(dir_ / "good.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1,10\n");
    testing::write_file(dir_ / "bad.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,x,10\n");
    for (const char* trace : {"good", "bad"}) {
      testing::write_file(dir_ / (std::string(trace) + ".json"),
                          R"({"name": "c", "cluster": {"node_groups": [{"nodes": 1,
                          "gpus_per_node": 2, "device": "T4"}]}, "trace": {"file": ")" +
                              std::string(trace) + R"(.csv"}})");
    }
    out_ = (dir_ / "out").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  testing::CliResult compare(const char* scenario, const char* models) {
    return run_cli({"compare", (dir_ / scenario).string(), "--models", models, "--seeds", "2",
                    "--out", out_});
  }
  fs::path dir_;
  std::string out_;
};

TEST_F(CompareOutputs, AFailedComparisonLeavesTheFolderAsItWas) {
  ASSERT_EQ(compare("good.json", "exclusive,mps").code, 0);
  const auto before = tree(out_);
  EXPECT_TRUE(before.count("compare.json") && before.count("mps/seed-2/summary.json"));
  const std::string compare_json = testing::read_file(fs::path(out_) / "compare.json");
  const auto r = compare("bad.json", "exclusive,timeslice");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("bad.csv:3: field 'gpus'"), std::string::npos) << r.err;
  EXPECT_EQ(tree(out_), before);
  EXPECT_EQ(testing::read_file(fs::path(out_) / "compare.json"), compare_json);
  // No temporary or lock is left beside it.
  EXPECT_EQ(tree(dir_).count("out.lock"), 0u);
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

TEST_F(CompareOutputs, ASecondComparisonReplacesTheFolderWhole) {
  ASSERT_EQ(compare("good.json", "exclusive,mps").code, 0);
  ASSERT_EQ(compare("good.json", "timeslice").code, 0);
  const auto now = tree(out_);
  EXPECT_TRUE(now.count("timeslice/seed-1/summary.json"));
  EXPECT_EQ(now.count("mps"), 0u);  // the earlier comparison's runs are gone with it
  EXPECT_EQ(now.count("exclusive"), 0u);
}

TEST_F(CompareOutputs, AFolderHoldingOtherFilesIsRefused) {
  testing::write_file(fs::path(out_) / "notes.txt", "mine");
  const auto r = compare("good.json", "exclusive");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("holds 'notes.txt', which no comparison wrote"), std::string::npos) << r.err;
  EXPECT_EQ(testing::read_file(fs::path(out_) / "notes.txt"), "mine");
  EXPECT_EQ(tree(out_).size(), 1u);
}

}  // namespace
}  // namespace gpumux
