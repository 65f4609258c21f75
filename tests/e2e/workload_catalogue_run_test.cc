// Runs with a workload catalogue (docs/workload-catalogue.md) through the command line: the
// bundled catalogue on MISO's trace (measured MIG speeds for the four shared families, the model
// for the others, and the counts in summary.json, the parameter echo and the table), the
// catalogue's digest in the provenance, trace.workload_mix, and bad scenario input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::run_cli;
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string example(const std::string& name) {
  return (testing::source_dir() / "scenarios/examples" / name).string();
}
std::string bundled_catalogue() {
  return (testing::source_dir() / "traces/samples/workload_catalogue_miso_gavel.json").string();
}

json run_json(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.push_back("--no-outputs");
  args.push_back("--format");
  args.push_back("json");
  const auto r = run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? json::parse(r.out) : json();
}

// The MISO scenario with its trace.catalogue removed, as a file of its own (absolute paths).
fs::path miso_without_catalogue() {
  json s = json::parse(testing::read_file(example("miso_trace_100.json")));
  s["trace"].erase("catalogue");
  s["trace"]["file"] = (testing::source_dir() / "traces/samples/miso_trace_100.csv").string();
  const fs::path p = testing::temp_dir("workload_catalogue") / "miso_no_catalogue.json";
  testing::write_file(p, s.dump(2));
  return p;
}

// The jobs of miso_trace_100.csv whose family has measured MIG speeds in the bundled catalogue.
int shared_family_jobs() {
  std::istringstream in(
      testing::read_file(testing::source_dir() / "traces/samples/miso_trace_100.csv"));
  const std::set<std::string> shared = {"resnet", "bert", "gnn", "deepspeech2"};
  std::string line;
  std::getline(in, line);  // header: ...,tenant,workload
  int n = 0;
  while (std::getline(in, line)) {
    const auto last = line.rfind(',');
    const auto tenant = line.rfind(',', last - 1);
    n += shared.count(line.substr(tenant + 1, last - tenant - 1)) > 0;
  }
  return n;
}

TEST(WorkloadCatalogueRun, MisoUsesMeasuredSpeedsForTheSharedFamilies) {
  const json with = run_json({example("miso_trace_100.json")});
  const json without = run_json({miso_without_catalogue().string()});
  ASSERT_FALSE(with.is_null());
  ASSERT_FALSE(without.is_null());
  const json& w = with["trace"]["workloads"];
  const int measured = shared_family_jobs();
  ASSERT_GT(measured, 0);
  EXPECT_EQ(w["jobs"], (json{{"named", 100}, {"drawn", 0}, {"without", 0}}));
  EXPECT_EQ(w["mig_speeds"], (json{{"measured", measured}, {"model", 100 - measured}}));
  // The trace gives sm_util, mem_bw_util and memory: the catalogue fills nothing.
  EXPECT_EQ(w["filled"], (json{{"sm_util", 0}, {"mem_bw_util", 0}, {"memory_mib", 0}}));
  EXPECT_EQ(w["colocation_speeds"], "not used");
  bool echoed = false;
  for (const json& p : with["scenario"]["sharing"]["parameters"]) {
    if (p["name"] != "measured_mig_speeds") continue;
    echoed = true;
    EXPECT_EQ(p["value"], measured);
    EXPECT_THAT(p["source"].get<std::string>(),
                HasSubstr("the other " + std::to_string(100 - measured) + " jobs use speed_model"));
  }
  EXPECT_TRUE(echoed);
  // Without a catalogue: no trace.workloads, no parameter, and the measured speeds matter.
  EXPECT_FALSE(without["trace"].contains("workloads"));
  for (const json& p : without["scenario"]["sharing"]["parameters"]) {
    EXPECT_NE(p["name"], "measured_mig_speeds");
  }
  EXPECT_NE(with["metrics"]["jct_s"]["mean"], without["metrics"]["jct_s"]["mean"]);
  // The catalogue's digest is recorded like the trace's.
  bool recorded = false;
  for (const json& input : with["provenance"]["inputs"]) {
    if (input["role"] != "trace.catalogue") continue;
    recorded = true;
    EXPECT_EQ(input["sha256"].get<std::string>().size(), 64u);
  }
  EXPECT_TRUE(recorded);
}

TEST(WorkloadCatalogueRun, TheTableSaysWhichSpeedsWereMeasured) {
  const auto r = run_cli({"run", example("miso_trace_100.json"), "--no-outputs"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("measured_mig_speeds = "));
  EXPECT_THAT(r.out,
              HasSubstr("  workloads ../../traces/samples/workload_catalogue_miso_gavel.json: "
                        "100 jobs named one, 0 drawn from trace.workload_mix, 0 without"));
}

TEST(WorkloadCatalogueRun, AMixDrawsWorkloadsAndMovesNothingElse) {
  // Gavel's workloads have facts on V100M16 only, not on the quickstart's V100M32: the mix
  // names every job's workload and changes no job.
  const std::string catalogue = "trace.catalogue=" + bundled_catalogue();
  const std::string mix = R"x(trace.workload_mix={"ResNet-50 (batch size 32)": 2, "CycleGAN": 1})x";
  const fs::path a = testing::temp_dir("workload_mix") / "a";
  const fs::path b = testing::temp_dir("workload_mix") / "b";
  const auto with = run_cli({"run", example("quickstart.json"), "--set", catalogue, "--set", mix,
                             "--out", a.string(), "--quiet"});
  ASSERT_EQ(with.code, 0) << with.err;
  const auto plain = run_cli({"run", example("quickstart.json"), "--out", b.string(), "--quiet"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(testing::read_file(a / "jobs.csv"), testing::read_file(b / "jobs.csv"));
  const json s = json::parse(testing::read_file(a / "summary.json"));
  EXPECT_EQ(s["trace"]["workloads"]["jobs"], (json{{"named", 0}, {"drawn", 60}, {"without", 0}}));
  EXPECT_EQ(s["scenario"]["trace"]["workload_mix"],
            (json{{"ResNet-50 (batch size 32)", 2.0}, {"CycleGAN", 1.0}}));
  fs::remove_all(testing::temp_dir("workload_mix"));
}

TEST(WorkloadCatalogueRun, BadScenarioInputIsNamed) {
  const auto no_catalogue =
      run_cli({"validate", example("quickstart.json"), "--set", R"(trace.workload_mix={"x": 1})"});
  EXPECT_EQ(no_catalogue.code, 2);
  EXPECT_THAT(no_catalogue.err, HasSubstr("#/trace/workload_mix (from --set"));
  EXPECT_THAT(no_catalogue.err, HasSubstr("field 'workload_mix': needs trace.catalogue"));
  const auto unknown = run_cli({"validate", example("quickstart.json"), "--set",
                                "trace.catalogue=" + bundled_catalogue(), "--set",
                                R"(trace.workload_mix={"resnet-bs6": 1})"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("#/trace/workload_mix/resnet-bs6 (from --set"));
  EXPECT_THAT(unknown.err, HasSubstr("field 'resnet-bs6': unknown workload"));
  EXPECT_THAT(unknown.err, HasSubstr("did you mean 'resnet-bs64'?"));
  const auto zero = run_cli({"validate", example("quickstart.json"), "--set",
                             "trace.catalogue=" + bundled_catalogue(), "--set",
                             R"(trace.workload_mix={"resnet-bs64": 0})"});
  EXPECT_EQ(zero.code, 2);
  EXPECT_THAT(zero.err, HasSubstr("a weight must be above 0"));
  const auto missing =
      run_cli({"validate", example("quickstart.json"), "--set", "trace.catalogue=nowhere.json"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("#/trace/catalogue (from --set"));
  EXPECT_THAT(missing.err, HasSubstr("workload catalogue not found"));
  EXPECT_THAT(missing.err, HasSubstr("nowhere.json"));
}

TEST(WorkloadCatalogueRun, AnUnknownWorkloadInTheTraceStopsRunAndValidateFull) {
  const fs::path dir = testing::temp_dir("workload_unknown");
  testing::write_file(dir / "t.csv",
                      "id,submit_s,gpus,runtime_s,workload\na,0,1,10,resnet-bs64\n"
                      "b,1,1,10,resnet-bs65\n");
  json s = json::parse(testing::read_file(example("miso_trace_100.json")));
  s["trace"] = {{"file", (dir / "t.csv").string()}, {"catalogue", bundled_catalogue()}};
  testing::write_file(dir / "s.json", s.dump());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", (dir / "s.json").string(), "--no-outputs"},
        std::vector<std::string>{"validate", "--full", (dir / "s.json").string()}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0];
    EXPECT_THAT(r.err, HasSubstr("t.csv: field 'workload': job 'b' names workload 'resnet-bs65'"));
    EXPECT_THAT(r.err, HasSubstr("did you mean 'resnet-bs64'?"));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
