#include "analysis/plan/sensitivity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/input_error.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

TEST(ParseVary, ReadsFieldAndRange) {
  const auto v = parse_vary({"sm_util=0.05:1", "memory_mib=4096:40960"});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].field, "sm_util");
  EXPECT_DOUBLE_EQ(v[0].low, 0.05);
  EXPECT_DOUBLE_EQ(v[0].high, 1.0);
  EXPECT_EQ(v[0].source, "--vary");
  EXPECT_DOUBLE_EQ(v[1].high, 40960);
}

TEST(ParseVary, RefusesBadTextNamingIt) {
  const auto message = [](const std::string& text) {
    try {
      parse_vary({text});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("sm_util").find("FIELD=LO:HI"), std::string::npos);
  EXPECT_NE(message("sm_util=0.5").find("FIELD=LO:HI"), std::string::npos);
  EXPECT_NE(message("=0:1").find("FIELD=LO:HI"), std::string::npos);
  EXPECT_NE(message("nonsense=0:1").find("not a numeric trace field"), std::string::npos);
  EXPECT_NE(message("kind=0:1").find("not a numeric trace field"), std::string::npos);
  EXPECT_NE(message("runtime_s=1:2").find("required"), std::string::npos);
  EXPECT_NE(message("sm_util=a:1").find("must be numbers"), std::string::npos);
  EXPECT_NE(message("sm_util=0.5:1x").find("must be numbers"), std::string::npos);
  EXPECT_NE(message("sm_util=0.9:0.1").find("LO must not exceed HI"), std::string::npos);
  EXPECT_NE(message("sm_util=0.9:0.1").find("--vary sm_util=0.9:0.1"), std::string::npos);
  EXPECT_THROW(parse_vary({"sm_util=0:1", "sm_util=0.2:0.4"}), InputError);
}

TEST(SensitivityRanges, DistributionEndsAndAskedFirst) {
  const nlohmann::json defaulted = {
      {"sm_util", {{"rows", 10}, {"value", {{"uniform", {0.2, 0.6}}}}}},
      {"memory_mib", {{"rows", 10}, {"value", {{"choice", {8192, 2048, 16384}}}}}},
      {"kernel_us", {{"rows", 10}, {"value", {{"lognormal", {{"median", 100}, {"sigma", 1}}}}}}},
      {"checkpoint_s", {{"rows", 10}, {"value", {{"exponential", {{"mean", 10}}}, {"max", 20}}}}},
      {"priority", {{"rows", 10}, {"value", 0}}},  // a constant: no range of its own
      {"mem_bw_util", {{"rows", 10}, {"value", {{"uniform", {0.1, 0.9}}, {"min", 0.3}}}}}};
  const auto asked = parse_vary({"sm_util=0.05:1"});
  const auto ranges = sensitivity_ranges(defaulted, asked);
  // The asked one first with its own range, then the distributions in the object's key order.
  ASSERT_EQ(ranges.size(), 5u);
  EXPECT_EQ(ranges[0].field, "sm_util");
  EXPECT_DOUBLE_EQ(ranges[0].low, 0.05);
  EXPECT_EQ(ranges[0].source, "--vary");
  std::map<std::string, VaryRange> by_field;
  for (const auto& r : ranges) by_field[r.field] = r;
  EXPECT_EQ(by_field.count("priority"), 0u);
  EXPECT_DOUBLE_EQ(by_field["memory_mib"].low, 2048);
  EXPECT_DOUBLE_EQ(by_field["memory_mib"].high, 16384);
  EXPECT_EQ(by_field["memory_mib"].source, "the default's distribution");
  // Lognormal: median x exp(-/+ 1.645 sigma), the 5th and 95th percentiles.
  EXPECT_NEAR(by_field["kernel_us"].low, 100 * std::exp(-1.6448536), 1e-4);
  EXPECT_NEAR(by_field["kernel_us"].high, 100 * std::exp(1.6448536), 1e-3);
  // Exponential: -mean ln(0.95) and -mean ln(0.05) = 29.96, clamped by the max 20.
  EXPECT_NEAR(by_field["checkpoint_s"].low, 10 * 0.0512933, 1e-6);
  EXPECT_DOUBLE_EQ(by_field["checkpoint_s"].high, 20);
  // Clamped by the min.
  EXPECT_DOUBLE_EQ(by_field["mem_bw_util"].low, 0.3);
  EXPECT_DOUBLE_EQ(by_field["mem_bw_util"].high, 0.9);
  // A generated trace has no defaulted fields: only the asked ranges.
  EXPECT_EQ(sensitivity_ranges(nullptr, asked).size(), 1u);
}

// Nodes of 2 T4 GPUs (15,360 MiB each); 12 one-GPU jobs of 100 s arriving every 10 s, so that
// no job waits with 12 jobs running at once. Under exclusive every job needs its own GPU: no job
// waits with 10 GPUs (5 nodes: a job arriving at 100 s takes the GPU freed then), two wait with
// 8. Under MPS three jobs of 4,096 MiB fit a GPU (four would need 16,384), so 2 nodes hold all
// 12 at once and nobody waits, while on 1 node the 7th job waits behind 6 slowed-down ones; jobs
// of 15,000 MiB fit one to a GPU, as under exclusive: 5 nodes.
class SensitivityTest : public ::testing::Test {
 protected:
  SensitivityTest()
      : dir_(fs::temp_directory_path() / ("gpumux_sensitivity_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    std::string trace = "id,submit_s,gpus,runtime_s\n";
    for (int i = 0; i < 12; ++i)
      trace += "j" + std::to_string(i) + "," + std::to_string(10 * i) + ",1,100\n";
    std::ofstream(dir_ / "trace.csv") << trace;
  }
  ~SensitivityTest() override { fs::remove_all(dir_); }

  std::string scenario(const std::string& defaults, const std::string& trace = "trace.csv") {
    std::ofstream(dir_ / "s.json") << R"({"name": "sensitivity", "seed": 7,
      "cluster": {"node_groups": [{"name": "t4", "nodes": 1, "gpus_per_node": 2,
        "device": "T4"}]},
      "trace": {"file": ")" << trace
                                   << R"(", "defaults": )" << defaults << "}}";
    return (dir_ / "s.json").string();
  }

  PlanRequest request(const std::string& file) {
    PlanRequest r;
    r.scenario_file = file;
    r.models = {{"exclusive", std::nullopt}, {"mps", std::nullopt}};
    r.objectives = plan_objectives({"queue_p95_s<=0"}, /*jct_guard=*/false);
    r.threads = 2;
    r.max_nodes = 16;
    r.placements = {"best-fit"};
    return r;
  }

  fs::path dir_;
};

TEST_F(SensitivityTest, ADistributionDefaultIsSolvedAtItsEndsAndAMoveIsFlagged) {
  const auto req = request(scenario(R"({"memory_mib": {"uniform": [4096, 15000]}})"));
  const PlanResult plan = run_plan(req, nullptr);
  const PlanSensitivity s = run_sensitivity(req, plan, {}, nullptr);
  ASSERT_EQ(s.fields.size(), 1u);
  const auto& f = s.fields[0];
  EXPECT_EQ(f.range.field, "memory_mib");
  EXPECT_DOUBLE_EQ(f.range.low, 4096);
  EXPECT_DOUBLE_EQ(f.range.high, 15000);
  // The hand derivation above.
  EXPECT_EQ(f.low[0].nodes, 5);  // exclusive does not care about memory that fits
  EXPECT_EQ(f.high[0].nodes, 5);
  EXPECT_EQ(f.low[1].nodes, 2);   // mps: three 4,096 MiB jobs per GPU
  EXPECT_EQ(f.high[1].nodes, 5);  // mps: one 15,000 MiB job per GPU
  EXPECT_EQ(f.low[1].gpus, 4);
  EXPECT_GT(f.runs, 0u);
  EXPECT_EQ(s.runs, f.runs);
  // mps' answer at the low end lies more than one node from the planned one (at least 2 nodes
  // lower unless the plan itself is 2 or 3): flagged, while exclusive never is.
  const int planned = plan.models[1].answer->nodes;
  const bool moved = std::abs(planned - 2) > 1 || std::abs(planned - 5) > 1;
  ASSERT_TRUE(moved);
  ASSERT_FALSE(s.warnings.empty());
  for (const auto& w : s.warnings) {
    EXPECT_EQ(w.rfind("mps: ", 0), 0u) << w;
    EXPECT_NE(w.find("memory_mib"), std::string::npos);
  }
  // sm_util is a constant built-in default: listed as not varied.
  EXPECT_NE(std::find(s.not_varied.begin(), s.not_varied.end(), "sm_util=1"), s.not_varied.end());
  const auto j = sensitivity_to_json(s, plan);
  EXPECT_EQ(j["fields"][0]["answers"][1]["low"]["nodes"], 2);
  EXPECT_EQ(j["fields"][0]["answers"][1]["range_nodes"][0], 2);
  EXPECT_EQ(j["fields"][0]["answers"][1]["range_nodes"][1], 5);
  EXPECT_EQ(j["fields"][0]["rows"], 12);
  std::ostringstream table;
  print_sensitivity(s, plan, table);
  EXPECT_NE(table.str().find("memory_mib = 4096"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("mps " + std::to_string(planned) + " (2-5)"), std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("WARNING"), std::string::npos);
}

TEST_F(SensitivityTest, AnAskedRangeThatChangesNothingRaisesNoWarning) {
  const auto req = request(scenario(R"({"memory_mib": 4096})"));
  const PlanResult plan = run_plan(req, nullptr);
  // From 3,000 MiB (five jobs a GPU) to 5,000 (three): 2 nodes hold all 12 jobs at once, and on
  // 1 node (10 at most) the last two wait, so the answer stays where the plan put it.
  const PlanSensitivity s =
      run_sensitivity(req, plan, parse_vary({"memory_mib=3000:5000"}), nullptr);
  ASSERT_EQ(s.fields.size(), 1u);
  ASSERT_TRUE(plan.models[1].met);
  EXPECT_EQ(plan.models[1].answer->nodes, 2);
  EXPECT_EQ(s.fields[0].low[1].nodes, plan.models[1].answer->nodes);
  EXPECT_EQ(s.fields[0].high[1].nodes, plan.models[1].answer->nodes);
  EXPECT_TRUE(s.warnings.empty());
  // A constant the user varied is not also listed as not varied.
  for (const auto& n : s.not_varied) EXPECT_EQ(n.rfind("memory_mib", 0), std::string::npos);
}

TEST_F(SensitivityTest, VaryingAFieldTheTraceGivesIsRefused) {
  std::string trace = "id,submit_s,gpus,runtime_s,memory_mib\n";
  for (int i = 0; i < 4; ++i) trace += "j" + std::to_string(i) + ",0,1,10,1024\n";
  std::ofstream(dir_ / "full.csv") << trace;
  const auto req = request(scenario("{}", "full.csv"));
  const PlanResult plan = run_plan(req, nullptr);
  try {
    run_sensitivity(req, plan, parse_vary({"memory_mib=1000:2000"}), nullptr);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("every row"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpumux
