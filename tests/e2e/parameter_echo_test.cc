// A switch or a choice among names is echoed in words wherever the model's parameters are: the
// run table, summary.json, the HTML report, `compare`'s runs and the plan table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = testing::fs;
using ::testing::HasSubstr;
using ::testing::Not;

// Two T4s under mps with a switch (one_user_per_server) and a choice (oom) set.
std::string echo_scenario(const fs::path& dir) {
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s,memory_mib\n"
                      "a,0,1,100,1000\n"
                      "b,0,1,100,1000\n"
                      "c,10,1,50,1000\n");
  const nlohmann::json s = {
      {"name", "echo"},
      {"cluster", {{"node_groups", {{{"nodes", 1}, {"gpus_per_node", 2}, {"device", "T4"}}}}}},
      {"sharing", {{"model", "mps"}, {"params", {{"one_user_per_server", true}, {"oom", "all"}}}}},
      {"trace", {{"file", "trace.csv"}}},
      {"outputs", {{"dir", (dir / "out").string()}}}};
  testing::write_file(dir / "s.json", s.dump());
  return (dir / "s.json").string();
}

const nlohmann::json& parameter(const nlohmann::json& summary, const std::string& name) {
  static const nlohmann::json kMissing;
  for (const auto& p : summary["scenario"]["sharing"]["parameters"]) {
    if (p["name"] == name) return p;
  }
  ADD_FAILURE() << "no parameter " << name;
  return kMissing;
}

TEST(ParameterEcho, SwitchesAndChoicesInWordsInTableJsonAndReport) {
  const fs::path dir = testing::temp_dir("param_echo");
  const auto r = testing::run_cli({"run", echo_scenario(dir), "--report"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  one_user_per_server = true  (scenario)\n"));
  EXPECT_THAT(r.out, HasSubstr("  oom = all  (scenario)\n"));
  EXPECT_THAT(r.out, HasSubstr("  sm_allocation_blocks = true  (default"));
  EXPECT_THAT(r.out, HasSubstr("  fault_recovery_s = 30.0 s  (default"));  // a number: as before
  EXPECT_THAT(r.out, Not(HasSubstr("bool")));

  const auto summary = nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
  const auto& user = parameter(summary, "one_user_per_server");
  EXPECT_EQ(user["value"], nlohmann::json(true));
  EXPECT_EQ(user["unit"], "");
  EXPECT_EQ(parameter(summary, "oom")["value"], nlohmann::json("all"));
  EXPECT_TRUE(parameter(summary, "interference")["value"].is_number());

  const std::string html = testing::read_file(dir / "out" / "report.html");
  EXPECT_THAT(html, HasSubstr("<th>one_user_per_server</th><td>true</td>"));
  EXPECT_THAT(html, HasSubstr("<th>oom</th><td>all</td>"));
  fs::remove_all(dir);
}

TEST(ParameterEcho, CompareRunsAndPlanTableInWords) {
  const fs::path dir = testing::temp_dir("param_echo_cp");
  const std::string s = echo_scenario(dir);
  const auto c = testing::run_cli(
      {"compare", s, "--models", "mps", "--seeds", "1", "--out", (dir / "cmp").string()});
  ASSERT_EQ(c.code, 0) << c.err;
  bool found = false;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "cmp")) {
    if (entry.path().filename() != "summary.json") continue;
    const auto summary = nlohmann::json::parse(testing::read_file(entry.path()));
    EXPECT_EQ(parameter(summary, "oom")["value"], nlohmann::json("all"));
    found = true;
  }
  EXPECT_TRUE(found);

  const auto p = testing::run_cli({"plan", s, "--models", "mps", "--objective",
                                   "queue_p95_s<=100000", "--max-nodes", "2"});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_THAT(p.out, HasSubstr(" one_user_per_server = true  (scenario)\n"));
  EXPECT_THAT(p.out, HasSubstr(" oom = all  (scenario)\n"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
