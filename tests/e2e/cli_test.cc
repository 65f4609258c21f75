// Exit codes and messages of the command line: 0 ok, 2 bad input, and no partial output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis/plan/deploy_config.h"
#include "analysis/plan/device_plugin_config.h"
#include "models/device_registry.h"
#include "models/mig/mig_parted.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::run_cli;

TEST(Cli, ValidateAcceptsTheQuickstart) {
  const auto r = run_cli(
      {"validate", (testing::source_dir() / "scenarios/examples/quickstart.json").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("OK"), std::string::npos);
  EXPECT_NE(r.out.find("16 GPUs"), std::string::npos);
}

TEST(Cli, MissingScenarioFileIsBadInput) {
  const auto r = run_cli({"run", "/nonexistent/scenario.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/scenario.json"), std::string::npos);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos);
}

TEST(Cli, UnknownSubcommandAndMissingArgumentsAreBadInput) {
  EXPECT_EQ(run_cli({"frobnicate"}).code, 2);
  EXPECT_EQ(run_cli({"run"}).code, 2);
  EXPECT_EQ(run_cli({}).code, 2);
}

TEST(Cli, HelpSucceedsAndTeaches) {
  const auto r = run_cli({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
  const auto run_help = run_cli({"run", "--help"});
  EXPECT_EQ(run_help.code, 0);
  EXPECT_NE(run_help.out.find("--set"), std::string::npos);
}

TEST(Cli, SetOverrideIsValidated) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto r = run_cli({"validate", q, "--set", "sharing.model=teleport"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("#/sharing/model"), std::string::npos);
  EXPECT_NE(r.err.find("unknown sharing model 'teleport'"), std::string::npos);
  EXPECT_NE(r.err.find("exclusive"), std::string::npos);  // lists the valid names
  EXPECT_EQ(run_cli({"validate", q, "--set", "scheduler.queue=fifo-backfill"}).code, 0);
}

// Percentiles over finished jobs must not hide the jobs that did not finish: a run with
// rejected jobs warns on stderr (even with --quiet) and the table names what it left out.
TEST(Cli, RunWarnsAboutJobsLeftOutOfThePercentiles) {
  const auto dir = testing::temp_dir("cli_left_out");
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s\na,0,1,10\nbig,1,4,10\nb,2,1,10\n");
  testing::write_file(dir / "s.json", R"({"name": "left-out",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv"}})");
  const auto s = (dir / "s.json").string();
  const auto quiet = run_cli({"run", s, "--no-outputs", "--quiet"});
  EXPECT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_NE(quiet.err.find("warning: 1 of 3 arrived jobs (33.3 %) are left out"), std::string::npos)
      << quiet.err;
  EXPECT_NE(quiet.err.find("1 rejected, 0 failed, 0 unfinished"), std::string::npos);
  const auto table = run_cli({"run", s, "--no-outputs"});
  EXPECT_NE(table.out.find("(over 2 finished jobs; LEFT OUT: 1 rejected, 0 failed, 0 unfinished)"),
            std::string::npos)
      << table.out;
  // A time limit leaves jobs unfinished: counted too.
  const auto cut = run_cli({"run", s, "--no-outputs", "--quiet", "--set", "limits.max_time_s=5"});
  EXPECT_NE(cut.err.find("1 rejected, 0 failed, 2 unfinished"), std::string::npos) << cut.err;
  // A clean run has no warning.
  const auto clean =
      run_cli({"run", (testing::source_dir() / "scenarios/examples/quickstart.json").string(),
               "--no-outputs", "--quiet"});
  EXPECT_EQ(clean.err.find("warning"), std::string::npos) << clean.err;
  testing::fs::remove_all(dir);
}

// --quiet silences the event count and wall time line; without it the line is printed (the
// bench scripts read it). A quiet clean run prints nothing at all on stderr.
TEST(Cli, QuietRunPrintsNoEventCount) {
  const auto quickstart = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto quiet = run_cli({"run", quickstart, "--no-outputs", "--quiet"});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  const auto loud = run_cli({"run", quickstart, "--no-outputs"});
  ASSERT_EQ(loud.code, 0) << loud.err;
  EXPECT_NE(loud.err.find("[gpumux] "), std::string::npos) << loud.err;
  EXPECT_NE(loud.err.find(" events in "), std::string::npos) << loud.err;
}

// `gpumux plan` on the quickstart: exit codes, formats, help and progress.
TEST(Cli, PlanAnswersInTableAndJson) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  // Under spread placement MPS keeps JCT within the guard (best-fit piles jobs onto shared
  // GPUs: see PlanJctGuardFailsSavingsMadeOfSlowdown).
  const auto table =
      run_cli({"plan", q, "--models", "exclusive,mps", "--objective", "queue_p95_s<=60",
               "--threads", "2", "--set", "scheduler.placement=spread"});
  EXPECT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("jct_s.p95<=1.1x exclusive (= "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("saving vs excl"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("rejected_jobs<=0 (always)"), std::string::npos);
  EXPECT_NE(table.out.find("assumptions"), std::string::npos);
  EXPECT_NE(table.err.find("runs done"), std::string::npos) << table.err;
  const auto json =
      run_cli({"plan", q, "--models", "exclusive,mps", "--objective", "queue_p95_s<=60", "--format",
               "json", "--threads", "1", "--set", "scheduler.placement=spread"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["models"].size(), 2u);
  for (const auto& m : j["models"]) {
    for (const char* key : {"model", "nodes", "gpus", "saving_pct", "at_answer", "one_below"}) {
      EXPECT_TRUE(m.contains(key)) << key;
    }
    // Objectives are keyed by their catalogue name, whatever alias was written.
    EXPECT_TRUE(m["at_answer"]["objectives"]["queueing_delay_s.p95<=60"]["met"].get<bool>());
    EXPECT_FALSE(m["one_below"]["met"].get<bool>());
  }
  EXPECT_EQ(j["models"][0]["saving_pct"].get<double>(), 0.0);
  // The quickstart's defaults for sm_util and memory_mib are distributions: the plan is solved
  // again at both ends of each, and the table shows the ranges.
  ASSERT_EQ(j["sensitivity"]["fields"].size(), 2u);
  for (const auto& f : j["sensitivity"]["fields"]) {
    EXPECT_EQ(f["source"], "the default's distribution");
    EXPECT_LT(f["low"].get<double>(), f["high"].get<double>());
    EXPECT_EQ(f["answers"].size(), 2u);
  }
  EXPECT_GT(j["sensitivity"]["runs"].get<int>(), 0);
  EXPECT_NE(table.out.find("Sensitivity"), std::string::npos);
  EXPECT_NE(table.out.find("sm_util = 0.3"), std::string::npos) << table.out;
  const auto off =
      run_cli({"plan", q, "--models", "exclusive,mps", "--objective", "queue_p95_s<=60", "--format",
               "json", "--no-sensitivity", "--set", "scheduler.placement=spread"});
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_TRUE(nlohmann::json::parse(off.out)["sensitivity"]["fields"].empty());
}

// Under best-fit, MPS meets the queueing objective on the quickstart only by slowing jobs: the
// JCT guard refuses that answer at every size, and --no-jct-guard brings it back. The default
// search also tries spread, which answers within the guard and says so.
TEST(Cli, PlanJctGuardFailsSavingsMadeOfSlowdown) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto searched = run_cli({"plan", q, "--models", "exclusive,mps", "--objective",
                                 "queue_p95_s<=60", "--threads", "2", "--format", "json"});
  ASSERT_EQ(searched.code, 0) << searched.err;
  const auto d = nlohmann::json::parse(searched.out);
  EXPECT_EQ(d["placements"], nlohmann::json::parse(R"(["best-fit", "spread"])"));
  EXPECT_EQ(d["models"][1]["placement"], "spread");
  EXPECT_FALSE(d["models"][1]["placements"][0]["met"].get<bool>());
  const std::vector<std::string> args = {
      "plan",      q,   "--models", "exclusive,mps", "--objective",  "queue_p95_s<=60",
      "--threads", "2", "--format", "json",          "--placements", "best-fit"};
  const auto guarded = run_cli(args);
  ASSERT_EQ(guarded.code, 3) << guarded.err;
  const auto g = nlohmann::json::parse(guarded.out);
  EXPECT_TRUE(g["models"][0]["met"].get<bool>());
  EXPECT_FALSE(g["models"][1]["met"].get<bool>());
  const auto& tried = g["models"][1]["largest_tried"]["objectives"]["jct_s.p95<=1.1x exclusive"];
  EXPECT_FALSE(tried["met"].get<bool>());
  EXPECT_GT(tried["value"].get<double>(), tried["bound"].get<double>());
  auto unguarded_args = args;
  unguarded_args.push_back("--no-jct-guard");
  const auto unguarded = run_cli(unguarded_args);
  ASSERT_EQ(unguarded.code, 0) << unguarded.err;
  const auto u = nlohmann::json::parse(unguarded.out);
  EXPECT_TRUE(u["models"][1]["met"].get<bool>());
  // The saving it reports is made of slowdown: its JCT p95 is beyond the guard.
  EXPECT_GT(u["models"][1]["at_answer"]["jct_s"]["p95"].get<double>(),
            1.1 * u["models"][0]["at_answer"]["jct_s"]["p95"].get<double>());
}

TEST(Cli, PlanNotMetExitsThreeAndSaysSo) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  // Some job of the trace runs longer than 60 s: no cluster meets this.
  const auto r = run_cli(
      {"plan", q, "--models", "exclusive", "--objective", "jct_max_s<=60", "--max-nodes", "4"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.out.find("not met within --max-nodes 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NOT MET within --max-nodes 4: exclusive"), std::string::npos);
}

TEST(Cli, PlanBadInputExitsTwoWithAClearMessage) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{"--models", "exclusive", "--objective", "queue_p95_s>=60"}, "takes an upper bound"},
      {{"--models", "exclusive", "--objective", "p95<=60"}, "unknown metric"},
      {{"--models", "exclusive", "--objective", "queue_p95_s<=soon"}, "expected a number"},
      {{"--models", "exclusive", "--objective", "request_p95_ms<=200"}, "no inference services"},
      {{"--models", "warp", "--objective", "queue_p95_s<=60"}, "unknown sharing model 'warp'"},
      {{"--models", "mps", "--model-params", "mps={", "--objective", "queue_p95_s<=60"},
       "not valid JSON"},
      {{"--models", "mps", "--model-params", "mps={\"admission\": \"hope\"}", "--objective",
        "queue_p95_s<=60"},
       "--model-params mps"},
      {{"--models", "exclusive"}, "--objective is required"},
      {{"--models", "exclusive", "--objective", "queue_p95_s<=60", "--threads", "0"}, "threads"},
      {{"--models", "exclusive", "--objective", "queue_p95_s<=60", "--vary", "sm_util=1:0"},
       "LO must not exceed HI"},
      {{"--models", "exclusive", "--objective", "queue_p95_s<=60", "--vary", "warp=0:1"},
       "not a numeric trace field"},
      {{"--models", "exclusive", "--objective", "queue_p95_s<=60", "--vary", "sm_util=0:1",
        "--no-sensitivity"},
       "contradicts --no-sensitivity"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"plan", q};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_cli(args);
    SCOPED_TRACE(c.message);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE((r.err + r.out).find(c.message), std::string::npos) << r.err << r.out;
    EXPECT_EQ(r.out.find("gpumux plan  scenario"), std::string::npos);  // no partial table
  }
}

// plan --out writes, per answer, what an operator applies (deploy/MODEL/), and gpumux's own
// readers read each file back to the model that answered.
TEST(Cli, PlanOutWritesDeployableConfigsThatReadBack) {
  const auto scenario = (testing::source_dir() / "scenarios/examples/mig_mixed.json").string();
  const auto out = testing::temp_dir("plan_deploy");
  const auto r =
      run_cli({"plan", scenario, "--models", "exclusive,timeslice,mps,mig", "--objective",
               "queue_p95_s<=600", "--threads", "2", "--out", out.string()});
  ASSERT_TRUE(r.code == 0 || r.code == 3) << r.err;
  const auto plan = nlohmann::json::parse(std::ifstream(out / "plan.json"));
  EXPECT_TRUE(std::filesystem::exists(out / "deploy" / "README.txt"));
  int read_back = 0;
  for (const auto& m : plan["models"]) {
    const std::string model = m["model"].get<std::string>();
    SCOPED_TRACE(model);
    if (!m["met"].get<bool>()) continue;
    const auto dir = out / "deploy" / model;
    const auto plugin = read_device_plugin_config((dir / "device-plugin-A100-40GB.yaml").string());
    std::optional<MigPartedConfig> parted;
    if (std::filesystem::exists(dir / "mig-parted.yaml")) {
      parted = read_mig_parted((dir / "mig-parted.yaml").string(), "gpumux-A100-40GB");
    }
    const DeployedModel back = model_from_deploy(plugin, parted ? &*parted : nullptr);
    EXPECT_EQ(back.model, model);
    ++read_back;
  }
  EXPECT_GE(read_back, 2);
  std::filesystem::remove_all(out);
}

// The layout the planner chose for mig (40 GiB jobs: none fits the example layout) is the one
// the mig-parted config of its answer applies, and gpumux's reader reads it back.
TEST(Cli, PlanOutWritesTheChosenMigLayout) {
  const auto dir = testing::temp_dir("plan_mig_layout");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "trace.csv") << "id,submit_s,gpus,runtime_s,memory_mib\n"
                                      "a,0,1,100,40960\nb,10,1,100,40960\nc,20,1,100,8192\n";
  std::ofstream(dir / "s.json") << R"({"name": "mig-40g", "seed": 1,
    "cluster": {"node_groups": [{"name": "a", "nodes": 1, "gpus_per_node": 2,
                                 "device": "A100-80GB"}]},
    "sharing": {"model": "mig", "params": {"layout": ["3g.40gb", "2g.20gb", "1g.10gb",
                                                     "1g.10gb"]}},
    "trace": {"file": "trace.csv"}})";
  const auto out = dir / "plan";
  const auto r = run_cli({"plan", (dir / "s.json").string(), "--models", "mig", "--objective",
                          "queue_p95_s<=600", "--threads", "2", "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const auto plan = nlohmann::json::parse(std::ifstream(out / "plan.json"));
  const auto& mig = plan["models"][0];
  ASSERT_TRUE(mig["met"].get<bool>());
  const auto chosen = mig["layout"]["by_device"]["A100-80GB"];
  ASSERT_FALSE(chosen[0].is_null());
  const MigPartedConfig parted =
      read_mig_parted((out / "deploy" / "mig" / "mig-parted.yaml").string(), "gpumux-A100-80GB");
  const DeviceProfile a100 = DeviceRegistry::with_builtins().get("A100-80GB", "test");
  const std::vector<MigDeviceLayout> read = mig_parted_layouts(parted, a100, 2);
  for (std::size_t i = 0; i < read.size(); ++i) {
    std::vector<std::string> profiles;
    for (const auto& instance : read[i].instances) profiles.push_back(instance.profile);
    EXPECT_EQ(nlohmann::json(profiles), chosen[i]) << "GPU " << i;
  }
  const auto plugin =
      read_device_plugin_config((out / "deploy" / "mig" / "device-plugin-A100-80GB.yaml").string());
  const DeployedModel back = model_from_deploy(plugin, &parted);
  EXPECT_EQ(back.model, "mig");
  if (mig["params"].contains("layout")) {
    EXPECT_EQ(back.params["layout"], mig["params"]["layout"]);
  }
  std::filesystem::remove_all(dir);
}

// --load answers per load and ends with the GPUs-vs-load table; a malformed --curve is bad input.
TEST(Cli, PlanLoadsAnswerPerLoadAndCurveIsChecked) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto table = run_cli({"plan", q, "--models", "exclusive", "--objective", "queue_p95_s<=60",
                              "--threads", "2", "--load", "1,2"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("GPUs by load"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("at load x2.00"), std::string::npos) << table.out;
  const auto json = run_cli({"plan", q, "--models", "exclusive", "--objective", "queue_p95_s<=60",
                             "--threads", "2", "--load", "1,2", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["plans"].size(), 2u);
  EXPECT_EQ(j["plans"][1]["load_factor"].get<double>(), 2.0);
  // Twice the arrival rate needs at least as many GPUs here.
  EXPECT_GE(j["gpus_by_load"][0]["gpus"][1].get<int>(), j["gpus_by_load"][0]["gpus"][0].get<int>());
  for (const char* bad : {"8", "9:3", "a:b", "0:4"}) {
    const auto r = run_cli(
        {"plan", q, "--models", "exclusive", "--objective", "queue_p95_s<=60", "--curve", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--curve"), std::string::npos) << r.err;
  }
}

// A run with services whose sm_share (or sm_util) came from defaults says what the two fields
// mean for a service; a run without services does not.
TEST(Cli, RunWithServicesNotesWhatSmUtilAndSmShareMean) {
  const auto with = run_cli(
      {"run", (testing::source_dir() / "scenarios/examples/bert_training_timeslice.json").string(),
       "--no-outputs"});
  ASSERT_EQ(with.code, 0) << with.err;
  EXPECT_NE(with.out.find("note      services: sm_util is a service's duty cycle alone"),
            std::string::npos)
      << with.out;
  const auto without = run_cli(
      {"run", (testing::source_dir() / "scenarios/examples/timeslice_pingpong.json").string(),
       "--no-outputs", "--set", "trace.generator.jobs=50"});
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_EQ(without.out.find("note      services:"), std::string::npos) << without.out;
}

// A request objective brings the availability guard: on the 7-service A100 example one
// exclusive GPU met request p99 <= 200 ms while six services waited hours for it (requests
// count from a service's start); with every service started within 60 s, exclusive needs a GPU
// per service.
TEST(Cli, PlanRequestObjectivesNeedTheServicesStarted) {
  const auto s =
      (testing::source_dir() / "scenarios/examples/inference_a100_timeslice.json").string();
  const auto r =
      run_cli({"plan", s, "--models", "exclusive,timeslice", "--objective", "request_p99_ms<=200",
               "--threads", "2", "--max-nodes", "16", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool guard = false;
  for (const auto& o : j["objectives"]) {
    guard = guard || (o["metric"] == "requests.start_delay_s.max" && o["implicit"].get<bool>());
  }
  EXPECT_TRUE(guard);
  EXPECT_EQ(j["models"][0]["nodes"], 7);
  const auto& below = j["models"][0]["one_below"]["objectives"];
  EXPECT_FALSE(below["requests.start_delay_s.max<=60"]["met"].get<bool>()) << below.dump();
  EXPECT_TRUE(below["requests.latency_ms.p99<=200"]["met"].get<bool>()) << below.dump();
  for (const auto& m : j["models"]) {
    EXPECT_LE(m["at_answer"]["objectives"]["requests.start_delay_s.max<=60"]["value"].get<double>(),
              60.0);
  }
}

// mig without parameters on a device whose MIG table lacks the example's profiles (A100-40GB):
// each device's whole-GPU instance, said so; the 7 services each request 1g.5gb by name, so every
// other layout is refused at its first size with that reason, and on 1g.5gb (0.125 of the GPU)
// a service offered 20 requests/s of 10 ms is overloaded at any size: not met, with the p99.
TEST(Cli, PlanMigWithoutParamsStartsFromTheWholeGpuInstance) {
  const auto s =
      (testing::source_dir() / "scenarios/examples/inference_a100_timeslice.json").string();
  const auto r =
      run_cli({"plan", s, "--models", "exclusive,mig", "--objective", "request_p99_ms<=200",
               "--threads", "2", "--max-nodes", "8", "--format", "json"});
  ASSERT_EQ(r.code, 3) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& mig = j["models"][1];
  // The search shown is the generated 7 x 1g.5gb (the requested profile); it started from the
  // whole-GPU instance, which the first search ran.
  EXPECT_EQ(mig["placements"][0]["layout"], "7g.40gb") << mig.dump();
  EXPECT_NE(mig["params_source"].get<std::string>().find("whole-GPU MIG instance"),
            std::string::npos);
  EXPECT_FALSE(mig["met"].get<bool>());
  bool profile_reason = false;
  for (const auto& search : mig["placements"]) {
    if (search.value("layout", "") != "7g.40gb") continue;
    for (const auto& probe : search["probes"]) {
      for (const auto& c : probe.value("rejected_by_reason", nlohmann::json::array())) {
        profile_reason = profile_reason || (c.value("profile", "") == "1g.5gb" &&
                                            c["profile_requests"].get<int>() == 7);
      }
    }
  }
  EXPECT_TRUE(profile_reason) << mig.dump();
}

// A pooled cluster has no nodes to scale: plan says so, not that the nodes are in a CSV.
TEST(Cli, PlanRefusesAPooledClusterNamingThePool) {
  const auto dir = testing::temp_dir("plan_pool");
  testing::write_file(dir / "trace.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\n");
  testing::write_file(dir / "s.json", R"({"name": "pooled", "cluster": {"pool": {"gpus": 8, "cpus_per_gpu": 4}},
    "trace": {"file": "trace.csv"}})");
  const auto r = run_cli({"plan", (dir / "s.json").string(), "--models", "exclusive",
                          "--objective", "queue_p95_s<=60"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("cluster.pool"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("CSV"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(Cli, PlanHelpTeachesObjectives) {
  const auto r = run_cli({"plan", "--help"});
  EXPECT_EQ(r.code, 0);
  for (const char* word : {"queue_p95_s", "request_p95_ms", "slo_attainment", "oom_kill_share",
                           "failed_share", "rejected_jobs<=0", "--max-nodes", "Exit codes"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  }
}

TEST(Cli, ModelsListsSpreadPlacement) {
  const auto r = run_cli({"models"});
  EXPECT_NE(r.out.find("\n  spread  the least-loaded node"), std::string::npos) << r.out;
}

TEST(Cli, BadTraceRowFailsWithNoPartialOutput) {
  const auto dir = testing::temp_dir("cli_bad_row");
  std::string trace = "id,submit_s,gpus,runtime_s\n";
  for (int i = 0; i < 50; ++i)
    trace += "j" + std::to_string(i) + "," + std::to_string(i) + ",1,10\n";
  trace += "bad,60,two,10\n";
  testing::write_file(dir / "trace.csv", trace);
  testing::write_file(dir / "s.json", R"({"name": "bad-row",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv"}})");
  const auto out = dir / "out";
  const auto r = run_cli({"run", (dir / "s.json").string(), "--out", out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("trace.csv:52"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("field 'gpus'"), std::string::npos) << r.err;
  EXPECT_TRUE(!testing::fs::exists(out) || testing::fs::is_empty(out));
  testing::fs::remove_all(dir);
}

// A header-only trace measures nothing: bad input in every command that runs it, no output.
TEST(Cli, HeaderOnlyTraceIsBadInputEverywhere) {
  const auto dir = testing::temp_dir("cli_empty_trace");
  testing::write_file(dir / "trace.csv", "id,submit_s,gpus,runtime_s\n");
  testing::write_file(dir / "s.json", R"({"name": "empty",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv"}})");
  const auto s = (dir / "s.json").string();
  const auto out = dir / "out";
  const auto run = run_cli({"run", s, "--out", out.string()});
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("trace.csv: the trace has no jobs (no data rows)"), std::string::npos)
      << run.err;
  EXPECT_FALSE(testing::fs::exists(out / "summary.json"));
  const auto plan = run_cli({"plan", s, "--models", "exclusive", "--objective", "queue_p95_s<=60"});
  EXPECT_EQ(plan.code, 2) << plan.err;
  EXPECT_NE(plan.err.find("the trace has no jobs"), std::string::npos) << plan.err;
  const auto compare = run_cli({"compare", s, "--models", "exclusive,mps"});
  EXPECT_EQ(compare.code, 2) << compare.err;
  testing::fs::remove_all(dir);
}

// trace.filter: the removed jobs are counted in summary.json (kept + filtered out = read, and
// none of them is a skipped row); a filter that keeps nothing is bad input everywhere.
TEST(Cli, TraceFilterCountsWhatItRemovesAndNothingKeptIsBadInput) {
  const auto dir = testing::temp_dir("cli_trace_filter");
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s,cpus\na,0,1,10,0\nc1,1,0,10,2\nb,2,2,10,0\n"
                      "c2,3,0,10,2\nd,4,1,10,0\n");
  testing::write_file(dir / "s.json", R"({"name": "filtered",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "trace.csv", "filter": {"gpus": {"min": 1}}}})");
  const auto s = (dir / "s.json").string();
  const auto out = dir / "out";
  const auto run = run_cli({"run", s, "--out", out.string()});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("2 jobs filtered out by trace.filter (gpus 2)"), std::string::npos)
      << run.out;
  std::ifstream in(out / "summary.json");
  const auto summary = nlohmann::json::parse(in);
  const auto& trace = summary["trace"];
  EXPECT_EQ(trace["filtered_out"], (nlohmann::json{{"jobs", 2}, {"by_criterion", {{"gpus", 2}}}}));
  EXPECT_EQ(trace["skipped"], 0);
  const auto arrived = summary["metrics"]["jobs"]["arrived"].get<std::uint64_t>();
  EXPECT_EQ(arrived, 3u);
  EXPECT_EQ(arrived + trace["filtered_out"]["jobs"].get<std::uint64_t>(),
            trace["rows"].get<std::uint64_t>());
  EXPECT_EQ(summary["metrics"]["jobs"]["rejected"], 0);  // the CPU-only rows never arrived

  const std::string none = "trace.filter={\"gpus\": {\"min\": 3}}";
  const auto empty = run_cli({"run", s, "--out", (dir / "out2").string(), "--set", none});
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("trace.csv: 0 jobs after trace.filter (5 removed: gpus 5)"),
            std::string::npos)
      << empty.err;
  EXPECT_FALSE(testing::fs::exists(dir / "out2" / "summary.json"));
  const auto plan = run_cli(
      {"plan", s, "--models", "exclusive", "--objective", "queue_p95_s<=60", "--set", none});
  EXPECT_EQ(plan.code, 2) << plan.err;
  EXPECT_NE(plan.err.find("0 jobs after trace.filter"), std::string::npos) << plan.err;
  const auto compare = run_cli({"compare", s, "--models", "exclusive,mps", "--set", none});
  EXPECT_EQ(compare.code, 2) << compare.err;
  EXPECT_NE(compare.err.find("0 jobs after trace.filter"), std::string::npos) << compare.err;
  testing::fs::remove_all(dir);
}

// A CPU pool beside a GPU group: the CPU-only jobs run on it (the GPU group declares no cores,
// so they can run nowhere else) and finish, and the GPU metrics are those of the GPU jobs alone
// on the GPU group (the same run without the pool, filtered to the GPU jobs). By hand: a (1
// GPU) and b (2 GPUs) run 0-100, c (4 GPUs) waits for them, 100-150: 500 GPU-s over 4 GPUs x
// 150 s. The pool's 16 cores hold x (4) and y (8) at once; z (8) waits for x, 100-130.
TEST(Cli, CpuPoolRunsTheCpuJobsAndLeavesGpuMetricsAlone) {
  const auto dir = testing::temp_dir("cli_cpu_pool");
  testing::write_file(dir / "trace.csv",
                      "id,submit_s,gpus,runtime_s,cpus\na,0,1,100,0\nb,0,2,100,0\nx,0,0,100,4\n"
                      "y,5,0,100,8\nz,5,0,30,8\nc,10,4,50,0\n");
  testing::write_file(dir / "s.json", R"({"name": "cpu-pool",
    "cluster": {"node_groups": [{"name": "gpu", "nodes": 1, "gpus_per_node": 4, "device": "T4"},
                                {"name": "cpu", "nodes": 1, "gpus_per_node": 0, "cpus": 16}]},
    "trace": {"file": "trace.csv"}})");
  const auto s = (dir / "s.json").string();
  const auto read = [](const testing::fs::path& folder) {
    std::ifstream in(folder / "summary.json");
    return nlohmann::json::parse(in);
  };
  const auto with_pool = run_cli({"run", s, "--out", (dir / "pool").string(), "--quiet"});
  ASSERT_EQ(with_pool.code, 0) << with_pool.err;
  const auto pool = read(dir / "pool");
  EXPECT_EQ(pool["metrics"]["jobs"]["finished"], 6);
  EXPECT_EQ(pool["metrics"]["jobs"]["rejected"], 0);
  std::ifstream jobs(dir / "pool" / "jobs.csv");
  std::string line;
  std::map<std::string, std::string> rows;
  while (std::getline(jobs, line)) rows[line.substr(0, line.find(','))] = line;
  EXPECT_EQ(rows["z"].rfind("z,finished,5,0,30,100,130,", 0), 0u) << rows["z"];
  EXPECT_EQ(rows["c"].rfind("c,finished,10,4,50,100,150,", 0), 0u) << rows["c"];
  const auto gpus_only = run_cli(
      {"run", s, "--out", (dir / "gpus").string(), "--quiet", "--set",
       R"(cluster.node_groups=[{"name": "gpu", "nodes": 1, "gpus_per_node": 4, "device": "T4"}])",
       "--set", R"(trace.filter={"gpus": {"min": 1}})"});
  ASSERT_EQ(gpus_only.code, 0) << gpus_only.err;
  const auto gpus = read(dir / "gpus");
  EXPECT_EQ(pool["metrics"]["gpus"], 4);
  for (const char* m : {"gpus", "gpu_allocation_ratio", "sm_busy_utilization",
                        "mean_allocated_gpus", "peak_allocated_gpus", "makespan_s"}) {
    EXPECT_EQ(pool["metrics"][m], gpus["metrics"][m]) << m;
  }
  EXPECT_DOUBLE_EQ(pool["metrics"]["gpu_allocation_ratio"].get<double>(), 500.0 / 600.0);
  // CPU pools alone: every GPU job is rejected with its reason, the CPU-only jobs run.
  const auto alone = run_cli(
      {"run", s, "--out", (dir / "alone").string(), "--quiet", "--set",
       R"(cluster.node_groups=[{"name": "cpu", "nodes": 1, "gpus_per_node": 0, "cpus": 16}])"});
  ASSERT_EQ(alone.code, 0) << alone.err;
  const auto cpu = read(dir / "alone");
  EXPECT_EQ(cpu["metrics"]["jobs"]["rejected"], 3);
  EXPECT_EQ(cpu["metrics"]["jobs"]["finished"], 3);
  EXPECT_TRUE(cpu["metrics"]["gpu_allocation_ratio"].is_null());  // a share of no GPU
  // Without cores a group of no GPU is refused, naming the field.
  const auto refused = run_cli(
      {"validate", s, "--set", R"(cluster.node_groups=[{"nodes": 1, "gpus_per_node": 0}])"});
  EXPECT_EQ(refused.code, 2);
  // The value came from --set, and the message says so between the pointer and the field.
  EXPECT_NE(refused.err.find("#/cluster/node_groups/0/gpus_per_node (from --set "),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("field 'gpus_per_node'"), std::string::npos) << refused.err;
  testing::fs::remove_all(dir);
}

TEST(Cli, GenerateWritesATraceThatRunsBack) {
  const auto dir = testing::temp_dir("cli_generate");
  const auto r =
      run_cli({"generate", "--jobs", "200", "--seed", "3", "-o", (dir / "t.csv").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  testing::write_file(dir / "s.json", R"({"name": "gen",
    "cluster": {"node_groups": [{"nodes": 2, "gpus_per_node": 8, "device": "A100-80GB"}]},
    "trace": {"file": "t.csv"}})");
  const auto run = run_cli({"run", (dir / "s.json").string(), "--out", (dir / "out").string()});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("200 / 200"), std::string::npos) << run.out;
  testing::fs::remove_all(dir);
}

TEST(Cli, DevicesAndModelsList) {
  const auto d = run_cli({"devices"});
  EXPECT_EQ(d.code, 0);
  for (const char* name : {"A100-40GB", "H200-141GB", "B200-180GB", "T4", "G2"}) {
    EXPECT_NE(d.out.find(name), std::string::npos) << name;
  }
  const auto m = run_cli({"models"});
  EXPECT_EQ(m.code, 0);
  EXPECT_NE(m.out.find("exclusive"), std::string::npos);
  EXPECT_NE(m.out.find("fifo-backfill"), std::string::npos);
}

}  // namespace
}  // namespace gpumux
