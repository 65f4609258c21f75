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

// One V100M16 under `model`: "a" and "b" (100 s each from 0 s) measured together at 0.5 and 0.8;
// "c" and "d" from 200 s, a pair measured as unable to run together (0, Gavel's [0, 0]); "e"
// alone from 400 s, naming no workload. Returns the summary and the table.
struct PairRun {
  json summary;
  std::string table;
  std::string jobs_csv;
};
PairRun run_pairs(const std::string& model) {
  const fs::path dir = testing::temp_dir("colocation_" + model);
  testing::write_file(dir / "catalogue.json", R"({
    "workloads": {
      "A": {"devices": {"V100M16": {"colocation": {"B": 0.5, "Z": 0}}}},
      "B": {"devices": {"V100M16": {"colocation": {"A": 0.8}}}},
      "Z": {"devices": {"V100M16": {"colocation": {"A": 0}}}}
    }
  })");
  testing::write_file(dir / "t.csv",
                      "id,submit_s,gpus,runtime_s,sm_util,memory_mib,workload\n"
                      "a,0,1,100,0.6,4096,A\nb,0,1,100,0.6,4096,B\n"
                      "c,200,1,100,0.6,4096,Z\nd,200,1,100,0.6,4096,A\n"
                      "e,400,1,100,0.6,4096,\n");
  const json scenario = {
      {"name", "pairs"},
      {"cluster",
       {{"node_groups",
         {{{"name", "v100"}, {"nodes", 1}, {"gpus_per_node", 1}, {"device", "V100M16"}}}}}},
      {"sharing", {{"model", model}}},
      {"trace", {{"file", "t.csv"}, {"catalogue", "catalogue.json"}}},
  };
  testing::write_file(dir / "s.json", scenario.dump(2));
  const auto r = run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  PairRun out;
  if (r.code == 0) {
    out.summary = json::parse(testing::read_file(dir / "out/summary.json"));
    out.table = r.out;
    out.jobs_csv = testing::read_file(dir / "out/jobs.csv");
  }
  fs::remove_all(dir);
  return out;
}

const json* find_parameter(const json& summary, const std::string& name) {
  for (const json& p : summary["scenario"]["sharing"]["parameters"]) {
    if (p["name"] == name) return &p;
  }
  return nullptr;
}

TEST(WorkloadCatalogueRun, PairSpeedsAreMeasuredWhereTheCatalogueHasThemAndCounted) {
  for (const std::string model : {"timeslice", "mps"}) {
    const PairRun r = run_pairs(model);
    ASSERT_FALSE(r.summary.is_null()) << model;
    // a and b ran at 0.5 and 0.8: b ends at 125 s, a at 162.5 s (its last 37.5 s alone).
    EXPECT_THAT(r.jobs_csv, HasSubstr("\nb,finished,0,1,100,0,125,0,125,")) << model;
    EXPECT_THAT(r.jobs_csv, HasSubstr("\na,finished,0,1,100,0,162.5,0,162.5,")) << model;
    const json& w = r.summary["trace"]["workloads"];
    EXPECT_EQ(w["colocation_speeds"],
              (json{{"measured", 2}, {"model", 3}, {"unrunnable", 2}}))
        << model;
    const json* p = find_parameter(r.summary, "measured_colocation_speeds");
    ASSERT_NE(p, nullptr) << model;
    EXPECT_EQ((*p)["value"], 2);
    EXPECT_EQ((*p)["unit"], "jobs");
    EXPECT_THAT((*p)["source"].get<std::string>(),
                HasSubstr("the other 3 jobs that ran use the model's rates; 2 met a partner "
                          "measured as unable to run beside them"));
    EXPECT_EQ(find_parameter(r.summary, "measured_mig_speeds"), nullptr);
    EXPECT_THAT(r.table, HasSubstr("measured_colocation_speeds = 2"));
    EXPECT_THAT(r.table, HasSubstr("; pair speeds measured for 2 jobs, modelled for 3 (2 beside a "
                                   "partner measured as unable to run)"));
  }
}

TEST(WorkloadCatalogueRun, ModelsThatShareNoWholeGpuInPairsUseNoPairSpeeds) {
  const PairRun r = run_pairs("exclusive");
  ASSERT_FALSE(r.summary.is_null());
  EXPECT_EQ(r.summary["trace"]["workloads"]["colocation_speeds"], "not used");
  EXPECT_EQ(find_parameter(r.summary, "measured_colocation_speeds"), nullptr);
  EXPECT_THAT(r.table, ::testing::Not(HasSubstr("pair speeds")));
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
