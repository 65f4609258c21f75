#include "analysis/plan/plan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/plan/plan_json.h"
#include "analysis/plan/plan_report.h"
#include "analysis/run/run.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

// A small scenario: nodes of 2 T4 GPUs; 12 one-GPU jobs of 100 s arriving every 10 s, so that
// at most 10 run at once (a job arriving at 100 s takes the GPU of the one finishing then).
// Under exclusive GPUs, no job waits with 10 GPUs (5 nodes) and two wait with 8 (4 nodes).
class PlanTest : public ::testing::Test {
 protected:
  PlanTest()
      : dir_(fs::temp_directory_path() / ("gpumux_plan_test_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
  }
  ~PlanTest() override { fs::remove_all(dir_); }

  std::string write_scenario(const std::string& extra_rows = "",
                             const std::string& groups = R"([{"name": "t4", "nodes": 1,
        "gpus_per_node": 2, "device": "T4"}])",
                             const std::string& defaults = R"({"memory_mib": 4096})") {
    std::string trace = "id,submit_s,gpus,runtime_s\n";
    for (int i = 0; i < 12; ++i)
      trace += "j" + std::to_string(i) + "," + std::to_string(10 * i) + ",1,100\n";
    trace += extra_rows;
    std::ofstream(dir_ / "trace.csv") << trace;
    std::ofstream(dir_ / "s.json") << R"({"name": "plan-small", "seed": 7,
      "cluster": {"node_groups": )" << groups
                                   << R"(},
      "trace": {"file": "trace.csv", "defaults": )"
                                   << defaults << R"(}})";
    return (dir_ / "s.json").string();
  }

  PlanRequest request(const std::string& scenario, std::vector<std::string> models,
                      std::vector<std::string> objectives, int threads = 2) {
    PlanRequest r;
    r.scenario_file = scenario;
    for (auto& m : models) r.models.push_back({m, std::nullopt});
    r.objectives = plan_objectives(objectives);
    r.threads = threads;
    r.max_nodes = 16;
    return r;
  }

  // Runs the scenario at `nodes` nodes under `model` the way a user would (load_scenario with
  // overrides), and checks every objective on its summary.
  bool meets(const std::string& scenario, const std::string& model, int nodes,
             const std::vector<Objective>& objectives, const std::string& placement = "",
             std::uint64_t seed = 0) {
    ScenarioOverrides o;
    o.sets = {"sharing.model=" + model, "cluster.node_groups.0.nodes=" + std::to_string(nodes)};
    if (!placement.empty()) o.sets.push_back("scheduler.placement=" + placement);
    if (seed != 0) o.sets.push_back("seed=" + std::to_string(seed));
    RunOptions options;
    options.write_outputs = false;
    const RunReport report = run_scenario(load_scenario(scenario, o), options);
    bool all = true;
    for (const auto& objective : objectives)
      all = all && check_objective(objective, report.summary).met;
    return all;
  }

  fs::path dir_;
};

TEST_F(PlanTest, AnswerMeetsTheObjectivesAndOneSizeBelowDoesNot) {
  const auto s = write_scenario();
  const auto req = request(s, {"exclusive", "timeslice"}, {"queue_p95_s<=0"});
  const PlanResult r = run_plan(req, nullptr);
  ASSERT_EQ(r.models.size(), 2u);
  EXPECT_TRUE(r.all_met());
  const auto& ex = r.models[0];
  ASSERT_TRUE(ex.answer && ex.one_below);
  EXPECT_EQ(ex.answer->nodes, 5);  // the hand derivation above
  EXPECT_EQ(ex.answer->gpus, 10);
  EXPECT_EQ(ex.one_below->nodes, 4);
  EXPECT_FALSE(ex.one_below->met);
  EXPECT_FALSE(ex.searched_down);
  // Doubling 1, 2, 4, 8, then bisecting 6, 5: every size run once.
  std::vector<int> sizes;
  for (const auto& p : ex.probes) sizes.push_back(p.nodes);
  EXPECT_EQ(sizes, (std::vector<int>{1, 2, 4, 5, 6, 8}));
  // Independent runs agree, for both models.
  for (const auto& m : r.models) {
    SCOPED_TRACE(m.model);
    ASSERT_TRUE(m.answer);
    EXPECT_TRUE(meets(s, m.model, m.answer->nodes, req.objectives));
    if (m.one_below) {
      EXPECT_EQ(m.one_below->nodes, m.answer->nodes - 1);
      EXPECT_FALSE(meets(s, m.model, m.one_below->nodes, req.objectives));
    } else {
      EXPECT_EQ(m.answer->nodes, 1);
    }
  }
  // Time-slicing shares GPUs: it needs no more than exclusive.
  EXPECT_LE(r.models[1].answer->gpus, ex.answer->gpus);
  const auto j = plan_to_json(r);
  EXPECT_EQ(j["models"][0]["saving_pct"].get<double>(), 0.0);
  EXPECT_EQ(j["models"][0]["one_below"]["nodes"].get<int>(), 4);
  EXPECT_FALSE(j["models"][0]["one_below"]["met"].get<bool>());
  EXPECT_DOUBLE_EQ(j["models"][1]["saving_pct"].get<double>(),
                   100.0 * (10 - r.models[1].answer->gpus) / 10);
}

TEST_F(PlanTest, RejectedJobsFailTheObjectives) {
  // A gang of 6 GPUs is rejected on clusters under 3 nodes, whatever the latency of the rest.
  const auto s = write_scenario("big,500,6,10\n");
  const PlanResult r = run_plan(request(s, {"exclusive"}, {"queue_p95_s<=100000"}), nullptr);
  const auto& ex = r.models[0];
  ASSERT_TRUE(ex.answer && ex.one_below);
  EXPECT_EQ(ex.answer->nodes, 3);
  const auto& below = *ex.one_below;
  EXPECT_TRUE(below.checks[0].met);   // the latency target alone would pass
  EXPECT_FALSE(below.checks[1].met);  // rejected_jobs<=0
  EXPECT_DOUBLE_EQ(below.checks[1].value, 1);
  EXPECT_FALSE(below.met);
}

TEST_F(PlanTest, AnInfeasibleObjectiveIsReportedNotMet) {
  const auto s = write_scenario();
  auto req = request(s, {"exclusive"}, {"jct_max_s<=50"});  // every job runs 100 s
  req.max_nodes = 3;
  const PlanResult r = run_plan(req, nullptr);
  EXPECT_FALSE(r.all_met());
  ASSERT_FALSE(r.models[0].met);
  ASSERT_TRUE(r.models[0].largest);
  EXPECT_EQ(r.models[0].largest->nodes, 3);
  EXPECT_FALSE(r.models[0].answer);
  std::ostringstream table;
  print_plan_table(r, table);
  EXPECT_NE(table.str().find("not met within --max-nodes 3"), std::string::npos) << table.str();
  // With 6 GPUs jobs still queue: the largest JCT is 140 s.
  EXPECT_NE(table.str().find("failed: jct_s.max 140.0 FAIL)"), std::string::npos) << table.str();
  EXPECT_TRUE(plan_to_json(r)["models"][0]["nodes"].is_null());
}

TEST_F(PlanTest, OutputDoesNotDependOnThreadCount) {
  const auto s = write_scenario();
  std::string reference_json, reference_table;
  for (int threads : {1, 2, 5}) {
    SCOPED_TRACE(threads);
    const PlanResult r = run_plan(
        request(s, {"exclusive", "timeslice", "mps"}, {"queue_p90_s<=30"}, threads), nullptr);
    std::ostringstream table;
    print_plan_table(r, table);
    const std::string plan_json = plan_to_json(r).dump();
    if (reference_json.empty()) {
      reference_json = plan_json;
      reference_table = table.str();
    }
    EXPECT_EQ(plan_json, reference_json);
    EXPECT_EQ(table.str(), reference_table);
  }
}

TEST_F(PlanTest, NodeGroupsScaleTogether) {
  // Groups of 4 and 2 nodes: one size step is 2 + 1 nodes; the scenario itself is size 2.
  const auto s = write_scenario("", R"([{"name": "a", "nodes": 4, "gpus_per_node": 2,
      "device": "T4"}, {"name": "b", "nodes": 2, "gpus_per_node": 1, "device": "T4"}])");
  const PlanResult r = run_plan(request(s, {"exclusive"}, {"queue_p95_s<=0"}), nullptr);
  EXPECT_EQ(r.unit_nodes, 3);
  EXPECT_EQ(r.unit_gpus, 5);
  EXPECT_EQ(r.max_size, 5);  // 16 nodes / 3
  for (const auto& p : r.models[0].probes) {
    EXPECT_EQ(p.nodes, 3 * p.size);
    EXPECT_EQ(p.gpus, 5 * p.size);
  }
  ASSERT_TRUE(r.models[0].answer);
  EXPECT_EQ(r.models[0].answer->gpus, 10);  // 10 GPUs, as with one group
}

TEST_F(PlanTest, ParametersComeFromTheScenarioOrDefaults) {
  const auto s = write_scenario();
  auto req = request(s, {"exclusive", "timeslice"}, {"queue_p95_s<=0"});
  req.sets = {"sharing.model=timeslice", R"(sharing.params={"max_jobs_per_gpu": 2})"};
  const PlanResult r = run_plan(req, nullptr);
  EXPECT_NE(r.models[0].params_source.find("defaults"), std::string::npos);
  EXPECT_NE(r.models[1].params_source.find("scenario"), std::string::npos);
  EXPECT_EQ(r.models[1].params["max_jobs_per_gpu"].get<int>(), 2);
  req.sets.clear();
  req.models[1].params = nlohmann::json{{"max_jobs_per_gpu", 3}};
  const PlanResult given = run_plan(req, nullptr);
  EXPECT_EQ(given.models[1].params_source, "--model-params");
  bool found = false;
  for (const auto& p : given.models[1].parameters) {
    if (p["name"] == "max_jobs_per_gpu") found = p["value"].get<double>() == 3.0;
  }
  EXPECT_TRUE(found);
}

TEST_F(PlanTest, BadRequestsAreInputErrors) {
  const auto s = write_scenario();
  EXPECT_THROW(run_plan(request(s, {"teleport"}, {"queue_p95_s<=1"}), nullptr), InputError);
  EXPECT_THROW(run_plan(request(s, {"mps", "mps"}, {"queue_p95_s<=1"}), nullptr), InputError);
  auto zero = request(s, {"exclusive"}, {"queue_p95_s<=1"});
  zero.max_nodes = 0;
  EXPECT_THROW(run_plan(zero, nullptr), InputError);
  // No services: a request objective cannot be read.
  try {
    run_plan(request(s, {"exclusive"}, {"request_p95_ms<=200"}), nullptr);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no inference services"), std::string::npos);
  }
  std::ofstream(dir_ / "nodes.csv") << "name,gpus,device\nn0,2,T4\n";
  std::ofstream(dir_ / "csv.json") << R"({"cluster": {"nodes_csv": "nodes.csv"},
      "trace": {"file": "trace.csv"}})";
  try {
    run_plan(request((dir_ / "csv.json").string(), {"exclusive"}, {"queue_p95_s<=1"}), nullptr);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node groups"), std::string::npos);
  }
}

// The JCT guard (objective.h): a sharing model's answer keeps JCT p95 within 1.1 x the
// exclusive answer's, checked here against independent runs of both answers.
TEST_F(PlanTest, TheJctGuardHoldsEveryAnswerToTheExclusiveJct) {
  const auto s = write_scenario();
  PlanRequest req = request(s, {"exclusive", "timeslice", "mps"}, {"queue_p95_s<=600"});
  req.objectives = plan_objectives({"queue_p95_s<=600"}, true);
  const PlanResult r = run_plan(req, nullptr);
  ASSERT_TRUE(r.models[0].met);
  const std::size_t guard = r.objectives.size() - 1;
  ASSERT_TRUE(r.objectives[guard].relative_to_exclusive);
  const double baseline = r.models[0].answer->metrics["jct_s"]["p95"].get<double>();
  EXPECT_DOUBLE_EQ(r.baselines[guard][0], baseline);
  for (const auto& m : r.models) {
    SCOPED_TRACE(m.model);
    if (!m.met) continue;
    const double jct = m.answer->metrics["jct_s"]["p95"].get<double>();
    EXPECT_LE(jct, 1.1 * baseline);
    // One size below failed some objective, as for every answer.
    if (m.one_below) {
      EXPECT_FALSE(m.one_below->met);
    }
  }
  // Exclusive is the baseline: its own guard check is met and reported as such.
  EXPECT_TRUE(r.models[0].answer->checks[guard].met);
  std::ostringstream table;
  print_plan_table(r, table);
  EXPECT_NE(table.str().find("jct_s.p95<=1.1x exclusive (= "), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("baseline"), std::string::npos) << table.str();
  const auto j = plan_to_json(r);
  EXPECT_EQ(j["objectives"][guard]["relative_to"], "exclusive");
  EXPECT_DOUBLE_EQ(j["objectives"][guard]["baseline"].get<double>(), baseline);
}

TEST_F(PlanTest, WithoutExclusiveTheGuardIsDroppedAndARelativeObjectiveRefused) {
  const auto s = write_scenario();
  PlanRequest req = request(s, {"timeslice"}, {"queue_p95_s<=600"});
  req.objectives = plan_objectives({"queue_p95_s<=600"}, true);
  const PlanResult r = run_plan(req, nullptr);
  for (const auto& o : r.objectives) EXPECT_FALSE(o.relative_to_exclusive) << o.text();
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("not applied: exclusive is not among --models"), std::string::npos);
  PlanRequest bad = request(s, {"timeslice"}, {"jct_s.p95<=1.2x exclusive"});
  try {
    run_plan(bad, nullptr);
    ADD_FAILURE() << "a relative objective without exclusive ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("add exclusive to --models"), std::string::npos)
        << e.what();
  }
}

// Placements (plan.h): each model is searched under the scenario's policy and spread; its
// answer is the smallest over them, each policy's answer holding against independent runs.
TEST_F(PlanTest, PlacementsAreSearchedAndTheAnswerNamesItsPolicy) {
  const auto s = write_scenario();
  auto req = request(s, {"exclusive", "timeslice"}, {"queue_p95_s<=0", "jct_s.p95<=110"});
  const PlanResult r = run_plan(req, nullptr);
  // The scenario's own policy (the scheduler's default, first-fit) and spread.
  EXPECT_EQ(r.placements, (std::vector<std::string>{"first-fit", "spread"}));
  for (const auto& m : r.models) {
    SCOPED_TRACE(m.model);
    ASSERT_EQ(m.placements.size(), 2u);
    ASSERT_TRUE(m.met);
    int smallest = 0;
    for (const auto& pl : m.placements) {
      SCOPED_TRACE(pl.placement);
      if (pl.stopped_at_nodes > 0) {
        // Stopped short: it did not meet the objectives below the answer that stopped it.
        EXPECT_FALSE(pl.met);
        EXPECT_GE(pl.stopped_at_nodes, m.answer->nodes);
        for (const auto& p : pl.probes) {
          if (p.nodes < pl.stopped_at_nodes) {
            EXPECT_FALSE(p.met) << p.nodes;
          }
        }
        continue;
      }
      if (!pl.met) {
        EXPECT_FALSE(meets(s, m.model, pl.probes.back().nodes, req.objectives, pl.placement));
        continue;
      }
      EXPECT_TRUE(meets(s, m.model, pl.answer_nodes, req.objectives, pl.placement));
      if (pl.answer_nodes > 1) {
        EXPECT_FALSE(meets(s, m.model, pl.answer_nodes - 1, req.objectives, pl.placement));
      }
      if (smallest == 0 || pl.answer_nodes < smallest) smallest = pl.answer_nodes;
    }
    EXPECT_EQ(m.answer->nodes, smallest);
    const auto chosen = std::find_if(m.placements.begin(), m.placements.end(),
                                     [&](const auto& pl) { return pl.placement == m.placement; });
    ASSERT_NE(chosen, m.placements.end());
    EXPECT_EQ(chosen->answer_nodes, m.answer->nodes);
  }
  // Time-slicing under first-fit piles jobs onto the lowest GPUs and slows them past 110 s at
  // any size; spread gives each job an idle GPU where there is one: only spread answers.
  EXPECT_EQ(r.models[1].placement, "spread");
  EXPECT_FALSE(r.models[1].placements[0].met);
  // --placements chooses the set: best-fit alone does not answer time-slicing either.
  req.placements = {"best-fit"};
  const PlanResult packed = run_plan(req, nullptr);
  EXPECT_EQ(packed.placements, (std::vector<std::string>{"best-fit"}));
  EXPECT_TRUE(packed.models[0].met);
  EXPECT_FALSE(packed.models[1].met);
  req.placements = {"spread", "spread"};
  EXPECT_THROW(run_plan(req, nullptr), InputError);
  req.placements = {"no-such-policy"};
  EXPECT_THROW(run_plan(req, nullptr), InputError);
}

// Seeds (plan.h): a size meets when the required number of seeds meet every objective.
TEST_F(PlanTest, SeedsAnswerForEverySeedOrTheChosenShare) {
  // Duty cycles drawn per seed: time-slicing's slowdown, hence its answer, varies by seed.
  const auto s =
      write_scenario("", R"([{"name": "t4", "nodes": 1, "gpus_per_node": 2, "device": "T4"}])",
                     R"({"memory_mib": 4096, "sm_util": {"uniform": [0.1, 1.0]}})");
  auto req = request(s, {"timeslice"}, {"jct_s.p95<=130"});
  req.placements = {"spread"};
  req.seeds = 3;
  const PlanResult all = run_plan(req, nullptr);
  EXPECT_EQ(all.seeds, (std::vector<std::uint64_t>{7, 8, 9}));
  EXPECT_EQ(all.seeds_required, 3);
  EXPECT_EQ(all.runs, 3 * all.models[0].probes.size());
  ASSERT_TRUE(all.models[0].met);
  const auto& m = all.models[0];
  for (const auto& p : m.probes) {
    ASSERT_EQ(p.runs.size(), 3u);
    int met = 0;
    for (const auto& run : p.runs) {
      met += run.met;
      // Each seed's run is the scenario run with that seed.
      EXPECT_EQ(run.met, meets(s, "timeslice", p.nodes, req.objectives, "spread", run.seed))
          << p.nodes << " nodes, seed " << run.seed;
    }
    EXPECT_EQ(p.seeds_met, met);
    EXPECT_EQ(p.met, met == 3) << p.nodes;
  }
  ASSERT_TRUE(m.one_below);
  EXPECT_LT(m.one_below->seeds_met, 3);
  // The reported values are the worst seed's: no seed's JCT p95 exceeds the answer's.
  for (const auto& run : m.answer->runs) {
    EXPECT_LE(run.checks[0].value, m.answer->checks[0].value);
  }
  req.seed_share = 1.0 / 3;
  const PlanResult one = run_plan(req, nullptr);
  EXPECT_EQ(one.seeds_required, 1);
  ASSERT_TRUE(one.models[0].met);
  EXPECT_LE(one.models[0].answer->nodes, m.answer->nodes);
  // This scenario's premise: seeds matter here (seed 7 needs more nodes than one seed does).
  EXPECT_LT(one.models[0].answer->nodes, m.answer->nodes);
  EXPECT_GE(one.models[0].answer->seeds_met, 1);
  // The same answer whatever the thread count.
  req.threads = 1;
  req.seed_share = 1.0;
  std::ostringstream a, b;
  print_plan_table(all, a);
  print_plan_table(run_plan(req, nullptr), b);
  EXPECT_EQ(a.str(), b.str());
}

TEST_F(PlanTest, CurveRunsEverySizeInTheRangeAndKeepsTheAnswer) {
  const auto s = write_scenario();
  auto req = request(s, {"exclusive"}, {"queue_p95_s<=0"});
  req.placements = {"best-fit"};
  const PlanResult plain = run_plan(req, nullptr);
  req.curve_from_nodes = 2;
  req.curve_to_nodes = 7;
  const PlanResult curve = run_plan(req, nullptr);
  ASSERT_TRUE(curve.models[0].met);
  EXPECT_EQ(curve.models[0].answer->nodes, plain.models[0].answer->nodes);
  std::vector<int> nodes;
  for (const auto& p : curve.models[0].probes) nodes.push_back(p.nodes);
  for (int n = 2; n <= 7; ++n) {
    EXPECT_NE(std::find(nodes.begin(), nodes.end(), n), nodes.end()) << n;
  }
  // Every probe's objective values are in plan.json.
  const auto j = plan_to_json(curve);
  ASSERT_EQ(j["models"][0]["probes"].size(), nodes.size());
  for (const auto& p : j["models"][0]["probes"]) {
    EXPECT_TRUE(p["objectives"]["queueing_delay_s.p95<=0"].contains("value"));
  }
}

// GPU-hours: the cluster's GPUs x the makespan. At 5 nodes no job waits: the last of the 12
// jobs arrives at 110 s and ends at 210 s, so 10 GPUs x 210 s = 0.5833 GPU-hours.
TEST_F(PlanTest, GpuHoursAndCostAreHandComputed) {
  const auto s = write_scenario();
  auto req = request(s, {"exclusive"}, {"queue_p95_s<=0"});
  req.placements = {"best-fit"};
  req.price_per_gpu_hour = 3.0;
  const PlanResult r = run_plan(req, nullptr);
  ASSERT_TRUE(r.models[0].met);
  ASSERT_EQ(r.models[0].answer->nodes, 5);
  EXPECT_NEAR(r.models[0].answer->gpu_hours, 10 * 210.0 / 3600, 1e-9);
  const auto j = plan_to_json(r);
  EXPECT_NEAR(j["models"][0]["at_answer"]["cost"].get<double>(), 3.0 * 10 * 210.0 / 3600, 1e-9);
  std::ostringstream table;
  print_plan_table(r, table);
  EXPECT_NE(table.str().find("cost at 3.00 per GPU-hour"), std::string::npos) << table.str();
}

// Load growth: at load 2 the jobs arrive every 5 s, so all 12 (0..55 s, 100 s each) run at
// once: exclusive needs 12 GPUs, 6 nodes.
TEST_F(PlanTest, LoadFactorCompressesArrivals) {
  const auto s = write_scenario();
  auto req = request(s, {"exclusive"}, {"queue_p95_s<=0"});
  req.placements = {"best-fit"};
  req.load_factor = 2.0;
  const PlanResult r = run_plan(req, nullptr);
  ASSERT_TRUE(r.models[0].met);
  EXPECT_EQ(r.models[0].answer->nodes, 6);
  EXPECT_EQ(r.load_factor, 2.0);
  // The same as setting the trace key by hand.
  auto by_hand = request(s, {"exclusive"}, {"queue_p95_s<=0"});
  by_hand.placements = {"best-fit"};
  by_hand.sets = {"trace.load_factor=2"};
  EXPECT_EQ(run_plan(by_hand, nullptr).models[0].answer->nodes, 6);
  const auto j =
      plans_by_load_to_json({run_plan(request(s, {"exclusive"}, {"queue_p95_s<=0"}), nullptr), r});
  EXPECT_EQ(j["loads"], nlohmann::json::parse("[1.0, 2.0]"));
  EXPECT_EQ(j["gpus_by_load"][0]["gpus"], nlohmann::json::parse("[10, 12]"));
  req.load_factor = 0;
  EXPECT_THROW(run_plan(req, nullptr), InputError);
}

// Assumptions (issue: hidden defaults decide the answer): the fields filled from defaults are
// listed in the table and plan.json with their value, source and rows.
TEST_F(PlanTest, DefaultedTraceFieldsAreListedAsAssumptions) {
  const auto s = write_scenario();
  auto req = request(s, {"exclusive"}, {"queue_p95_s<=0"});
  req.placements = {"best-fit"};
  const PlanResult r = run_plan(req, nullptr);
  ASSERT_TRUE(r.defaulted_fields.is_object());
  ASSERT_TRUE(r.defaulted_fields.contains("memory_mib"));
  EXPECT_EQ(r.defaulted_fields["memory_mib"]["rows"].get<int>(), 12);  // every row of the trace
  EXPECT_EQ(r.defaulted_fields["memory_mib"]["value"].get<double>(), 4096);
  EXPECT_NE(r.defaulted_fields["memory_mib"]["source"].get<std::string>().find("scenario"),
            std::string::npos);
  std::ostringstream table;
  print_plan_table(r, table);
  EXPECT_NE(table.str().find("default    memory_mib ~ 4096 (scenario trace.defaults, 12 rows)"),
            std::string::npos)
      << table.str();
  EXPECT_EQ(plan_to_json(r)["defaulted_fields"], r.defaulted_fields);
}

// MIG layouts are searched: 40 GiB jobs fit no instance of the example layout (its largest,
// 3g.40gb, holds 40,192 MiB), so that layout's searches stop at their first probe with the reason,
// and a generated layout that holds them answers; its params are the answer's.
TEST_F(PlanTest, MigSearchesLayoutsAndAnswersWithOneThatHoldsTheJobs) {
  const std::string s = write_scenario(
      "", R"([{"name": "a100", "nodes": 1, "gpus_per_node": 2, "device": "A100-80GB"}])",
      R"({"memory_mib": 40960})");
  PlanRequest req = request(s, {"mig"}, {"queue_p95_s<=600"});
  const PlanResult r = run_plan(req, nullptr);
  ASSERT_EQ(r.models.size(), 1u);
  const PlanModelResult& m = r.models[0];
  ASSERT_TRUE(m.met);
  EXPECT_EQ(m.layout_origin, "generated");
  EXPECT_EQ(m.layouts_searched, 8);
  EXPECT_NE(m.params.dump(), R"({"layout":["3g.40gb","2g.20gb","1g.10gb","1g.10gb"]})");
  // The scenario's layout comes first and stops at once, for the reason the engine gave.
  ASSERT_FALSE(m.placements.empty());
  const PlanPlacementResult& own = m.placements.front();
  EXPECT_EQ(own.layout_origin, "scenario");
  EXPECT_EQ(own.probes.size(), 1u);
  EXPECT_NE(own.incurable.find("12 jobs rejected at every size"), std::string::npos)
      << own.incurable;
  EXPECT_NE(own.incurable.find("needs up to 40960 MiB"), std::string::npos) << own.incurable;
  EXPECT_NE(own.incurable.find("holds 40192 MiB"), std::string::npos) << own.incurable;
  // plan.json names the layout, and the probe the rejections by reason.
  const nlohmann::json j = plan_to_json(r);
  EXPECT_EQ(j["models"][0]["layout"]["name"], m.layout);
  EXPECT_EQ(j["models"][0]["params"], m.params);
  const auto& stopped = j["models"][0]["placements"][0];
  EXPECT_EQ(stopped["probes"][0]["rejected_by_reason"][0]["jobs"], 12);
  EXPECT_TRUE(stopped["probes"][0]["rejected_by_reason"][0]["at_every_size"].get<bool>());
  // With the scenario's layout only, mig is not met, and says why.
  req.mig_layouts = parse_mig_layouts_option("scenario");
  const PlanResult own_only = run_plan(req, nullptr);
  EXPECT_FALSE(own_only.models[0].met);
  EXPECT_EQ(own_only.runs, 2u);  // one probe per placement
  std::ostringstream table;
  print_plan_table(own_only, table);
  EXPECT_NE(table.str().find("mig              not met: 12 jobs rejected at every size"),
            std::string::npos)
      << table.str();
}

// A job larger than every GPU is rejected at every size: the search stops at the first probe.
// A gang larger than a node is not: more nodes hold it, so the search goes on and answers.
TEST_F(PlanTest, RejectionsNoSizeCuresStopTheSearchAtTheFirstProbe) {
  const std::string big = write_scenario("", R"([{"name": "t4", "nodes": 1,
        "gpus_per_node": 2, "device": "T4"}])",
                                         R"({"memory_mib": 40960})");
  const PlanResult r = run_plan(request(big, {"exclusive"}, {"queue_p95_s<=60"}), nullptr);
  EXPECT_FALSE(r.models[0].met);
  EXPECT_EQ(r.runs, 2u);  // size 1 under each of the two placements
  EXPECT_NE(r.models[0].incurable.find("12 jobs rejected at every size"), std::string::npos)
      << r.models[0].incurable;
  EXPECT_NE(r.models[0].incurable.find("the largest GPU holds 15"), std::string::npos)
      << r.models[0].incurable;
  const std::string gangs = write_scenario("g0,120,4,100\n");
  const PlanResult g = run_plan(request(gangs, {"exclusive"}, {"queue_p95_s<=600"}), nullptr);
  ASSERT_TRUE(g.models[0].met);
  EXPECT_TRUE(g.models[0].incurable.empty());
  EXPECT_GE(g.models[0].answer->nodes, 2);
  EXPECT_EQ(g.models[0].probes.front().rejected_by_reason.front().reason,
            "gang larger than the cluster");
}

}  // namespace
}  // namespace gpumux
