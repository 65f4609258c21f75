#include "analysis/run/trace_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/compare/compare.h"
#include "analysis/plan/plan.h"
#include "analysis/run/run.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "tests/traces/test_files.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_writer.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

class TraceCacheTest : public ::testing::Test {
 protected:
  TraceCacheTest()
      : dir_(fs::temp_directory_path() / ("gpumux_trace_cache_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    // Defaults drawn per row (so the seed matters), a comment line (a skip count) and a row
    // filtered out by the scenario below.
    std::string trace = "id,submit_s,gpus,runtime_s\n# a comment\n";
    for (int i = 0; i < 30; ++i) {
      trace += "j" + std::to_string(i) + "," + std::to_string(20 * i) + "," +
               std::to_string(i == 7 ? 4 : 1) + "," + std::to_string(100 + 13 * i) + "\n";
    }
    std::ofstream(dir_ / "trace.csv") << trace;
    std::ofstream(dir_ / "s.json") << R"({"name": "cache", "seed": 11,
      "cluster": {"node_groups": [{"name": "a", "nodes": 2, "gpus_per_node": 2,
        "device": "A100-80GB"}]},
      "sharing": {"model": "mps"},
      "trace": {"file": "trace.csv", "filter": {"gpus": {"max": 2}},
        "defaults": {"sm_util": {"uniform": [0.1, 0.9]},
                     "memory_mib": {"choice": [4096, 30000]}}}})";
  }
  ~TraceCacheTest() override { fs::remove_all(dir_); }

  nlohmann::json summary(TraceCache* cache, std::uint64_t seed) {
    ScenarioOverrides o;
    o.seed = seed;
    RunOptions options;
    options.write_outputs = false;
    options.trace_cache = cache;
    return run_scenario(load_scenario((dir_ / "s.json").string(), o), options).summary;
  }

  // Every file a comparison wrote into `out`, by relative path, with its bytes; `out` is
  // removed after, so that the next comparison writes the same paths.
  std::map<std::string, std::string> compare_files(CompareRequest r) {
    const fs::path out = dir_ / "out";
    r.out_dir = out.string();
    run_compare(r, nullptr);
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(out)) {
      if (!e.is_regular_file()) continue;
      std::ostringstream bytes;
      bytes << std::ifstream(e.path(), std::ios::binary).rdbuf();
      files[fs::relative(e.path(), out).string()] = bytes.str();
    }
    fs::remove_all(out);
    return files;
  }

  fs::path dir_;
};

TEST_F(TraceCacheTest, ARunThroughTheCacheHasTheSameSummary) {
  TraceCache cache;
  for (std::uint64_t seed : {11u, 12u}) {
    SCOPED_TRACE(seed);
    const auto direct = summary(nullptr, seed);
    const auto first = summary(&cache, seed);   // read
    const auto second = summary(&cache, seed);  // replayed
    EXPECT_EQ(first.dump(), direct.dump());
    EXPECT_EQ(second.dump(), direct.dump());
  }
  // The defaults counted are those of the jobs the run saw: 29 kept of 30 (j7 asks 4 GPUs).
  const nlohmann::json used = summary(&cache, 11)["trace"]["defaults_used"];
  EXPECT_EQ(used["sm_util"]["rows"], 29);
  EXPECT_EQ(used["memory_mib"]["rows"], 29);
  // One read for both seeds: each replay draws the defaults from its own seed.
  EXPECT_EQ(cache.reads(), 1u);
  // The seeds' draws differ: the cache did not hand one seed's jobs to the other.
  EXPECT_NE(summary(&cache, 11)["metrics"].dump(), summary(&cache, 12)["metrics"].dump());
}

TEST_F(TraceCacheTest, APlanOverFourModelsAndTwoSeedsReadsTheTraceOnce) {
  PlanRequest r;
  r.scenario_file = (dir_ / "s.json").string();
  for (const char* m : {"exclusive", "timeslice", "mps", "mig"}) r.models.push_back({m, {}});
  r.objectives = plan_objectives({"queue_p95_s<=600"}, /*jct_guard=*/true);
  r.threads = 2;
  r.max_nodes = 8;
  r.seeds = 2;
  r.trace_cache = std::make_shared<TraceCache>();
  const PlanResult plan = run_plan(r, nullptr);
  EXPECT_GT(plan.runs, 20u);
  EXPECT_EQ(r.trace_cache->reads(), 1u);
  // The answers are those of a plan that reads the file at every run.
  PlanRequest uncached = r;
  uncached.trace_cache = std::make_shared<TraceCache>();
  uncached.read_trace_per_run = true;
  const PlanResult again = run_plan(uncached, nullptr);
  EXPECT_EQ(uncached.trace_cache->reads(), 0u);
  ASSERT_EQ(again.models.size(), plan.models.size());
  for (std::size_t m = 0; m < plan.models.size(); ++m) {
    SCOPED_TRACE(plan.models[m].model);
    EXPECT_EQ(again.models[m].met, plan.models[m].met);
    if (plan.models[m].met) {
      EXPECT_EQ(again.models[m].answer->nodes, plan.models[m].answer->nodes);
    }
    ASSERT_EQ(again.models[m].probes.size(), plan.models[m].probes.size());
    for (std::size_t p = 0; p < plan.models[m].probes.size(); ++p) {
      EXPECT_EQ(again.models[m].probes[p].metrics.dump(), plan.models[m].probes[p].metrics.dump());
    }
  }
}

TEST_F(TraceCacheTest, ACompareSharingTheTraceWritesTheSameFilesAsOneReadingItPerRun) {
  CompareRequest r;
  r.scenario_file = (dir_ / "s.json").string();
  for (const char* m : {"exclusive", "timeslice", "mps"}) r.models.push_back({m, {}});
  r.seeds = 2;
  r.threads = 2;
  r.trace_cache = std::make_shared<TraceCache>();
  const auto shared = compare_files(r);
  // Three models, two seeds: six runs, and the trace read once.
  EXPECT_EQ(r.trace_cache->reads(), 1u);
  CompareRequest per_run = r;
  per_run.trace_cache = std::make_shared<TraceCache>();
  per_run.read_trace_per_run = true;
  const auto own = compare_files(per_run);
  EXPECT_EQ(per_run.trace_cache->reads(), 0u);
  ASSERT_TRUE(shared.count("compare.json"));
  for (const char* m : {"exclusive", "timeslice", "mps"}) {
    for (const char* seed : {"seed-11", "seed-12"}) {
      const std::string run = std::string(m) + "/" + seed + "/";
      EXPECT_TRUE(shared.count(run + "summary.json")) << run;
      EXPECT_TRUE(shared.count(run + "jobs.csv")) << run;
    }
  }
  ASSERT_EQ(own.size(), shared.size());
  for (const auto& [path, bytes] : shared) {
    SCOPED_TRACE(path);
    ASSERT_TRUE(own.count(path));
    EXPECT_EQ(own.at(path), bytes);
  }
}

TEST_F(TraceCacheTest, APlanOverFourModelsAndACompareOverThreeReadTheTraceOnce) {
  PlanRequest plan;
  plan.scenario_file = (dir_ / "s.json").string();
  for (const char* m : {"exclusive", "timeslice", "mps", "mig"}) plan.models.push_back({m, {}});
  plan.objectives = plan_objectives({"queue_p95_s<=600"}, /*jct_guard=*/true);
  plan.threads = 2;
  plan.max_nodes = 8;
  plan.trace_cache = std::make_shared<TraceCache>();
  EXPECT_GT(run_plan(plan, nullptr).runs, 8u);
  EXPECT_EQ(plan.trace_cache->reads(), 1u);

  CompareRequest compare;
  compare.scenario_file = plan.scenario_file;
  for (const char* m : {"exclusive", "timeslice", "mps"}) compare.models.push_back({m, {}});
  compare.threads = 2;
  compare.trace_cache = std::make_shared<TraceCache>();
  const CompareResult result = run_compare(compare, nullptr);
  ASSERT_EQ(result.variants.size(), 3u);
  EXPECT_EQ(compare.trace_cache->reads(), 1u);
}

// Every job a source gives, as the native CSV writes it (every field, lossless), with the bits of
// its defaulted fields.
std::vector<std::string> rows_of(TraceSource& source) {
  std::vector<std::string> rows;
  JobSpec job;
  while (source.next(job)) {
    std::ostringstream row;
    write_trace_row(row, job);
    rows.push_back(row.str() + " defaulted " + std::to_string(job.defaulted_fields));
  }
  return rows;
}

TEST_F(TraceCacheTest, AReplayDrawsTheDefaultsTheReaderDrawsForEverySeedAndFormat) {
  // Every numeric field that may be missing drawn from a distribution, so that rows differ in
  // how many draws they take and in which fields.
  std::ofstream(dir_ / "d.json") << R"({"name": "d",
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 8, "device": "A100-80GB"}]},
    "trace": {"file": "trace.csv", "defaults": {
      "sm_util": {"uniform": [0.1, 0.9]}, "sm_share": {"uniform": [0.2, 1.0]},
      "memory_mib": {"choice": [4096, 30000], "weights": [1, 3]},
      "kernel_us": {"lognormal": {"median": 400, "sigma": 1}},
      "checkpoint_s": {"exponential": {"mean": 600}}, "cpus": {"uniform": [0, 8]},
      "mem_bw_util": {"uniform": [0, 1]}, "tenant": "t"}}})";
  // JSON Lines with fields missing on some rows only.
  std::ofstream(dir_ / "trace.jsonl")
      << R"({"id": "a", "submit_s": 0, "gpus": 1, "runtime_s": 50, "sm_util": 0.5})"
      << "\n"
      << R"({"id": "b", "submit_s": 3, "gpus": 2, "runtime_s": 70, "memory_mib": 100})"
      << "\n"
      << "# a comment\n"
      << R"({"id": "c", "submit_s": 3, "gpus": 1, "runtime_s": 10, "kernel_us": 10})"
      << "\n";
  const Scenario scenario = load_scenario((dir_ / "d.json").string(), {});
  const TraceDefaults& defaults = scenario.trace.defaults;
  const std::vector<std::pair<std::string, std::string>> traces = {
      {(dir_ / "trace.csv").string(), "csv"},
      {(dir_ / "trace.jsonl").string(), "jsonl"},
      {testing::source_path("traces/samples/tiresias_60_job.csv"), "tiresias"},
      {testing::source_path("tests/data/public-traces/philly_cluster_job_log.json"), "philly"},
      {testing::source_path("tests/data/public-traces/helios_cluster_log.csv"), "helios"},
      {testing::source_path("tests/data/public-traces/pai_sim.csv"), "pai-sim"},
      {testing::source_path("tests/data/public-traces/openb_pods_excerpt.csv"), "openb-pods"},
      {testing::source_path("tests/data/public-traces/dlrm2025_excerpt.csv"), "dlrm2025"}};
  for (const auto& [path, format] : traces) {
    SCOPED_TRACE(format);
    TraceCache cache;
    std::vector<std::string> first_seed;
    for (std::uint64_t seed : {5u, 6u, 5u}) {
      SCOPED_TRACE(seed);
      const auto reader = open_scenario_trace(path, format, defaults, seed);
      const auto replay = cache.open(path, format, defaults, seed);
      const auto read_rows = rows_of(*reader);
      ASSERT_GT(read_rows.size(), 1u);
      EXPECT_EQ(rows_of(*replay), read_rows);
      EXPECT_EQ(replay->skip_counts(), reader->skip_counts());
      EXPECT_EQ(replay->list_notes().dump(), reader->list_notes().dump());
      EXPECT_EQ(replay->stats().rows, reader->stats().rows);
      EXPECT_EQ(replay->stats().defaults.rows, reader->stats().defaults.rows);
      if (first_seed.empty()) {
        first_seed = read_rows;
      } else if (seed == 6u) {
        EXPECT_NE(read_rows, first_seed);  // the seed draws other values: the test can tell
      }
    }
    EXPECT_EQ(cache.reads(), 1u);
  }
}

TEST_F(TraceCacheTest, ReplaysOfTwoSeedsInterleavedDrawFromTheirOwnStreams) {
  const Scenario scenario = load_scenario((dir_ / "s.json").string(), {});
  const std::string path = (dir_ / "trace.csv").string();
  TraceCache cache;
  const auto a = cache.open(path, "csv", scenario.trace.defaults, 1);
  const auto b = cache.open(path, "csv", scenario.trace.defaults, 2);
  std::vector<std::string> rows_a, rows_b;
  JobSpec job;
  while (true) {
    const bool more_a = a->next(job);
    if (more_a) rows_a.push_back(job.id + " " + std::to_string(job.sm_util));
    const bool more_b = b->next(job);
    if (more_b) rows_b.push_back(job.id + " " + std::to_string(job.sm_util));
    if (!more_a && !more_b) break;
  }
  auto direct = [&](std::uint64_t seed) {
    std::vector<std::string> rows;
    const auto reader = open_scenario_trace(path, "csv", scenario.trace.defaults, seed);
    while (reader->next(job)) rows.push_back(job.id + " " + std::to_string(job.sm_util));
    return rows;
  };
  EXPECT_EQ(rows_a, direct(1));
  EXPECT_EQ(rows_b, direct(2));
  EXPECT_EQ(cache.reads(), 1u);
}

TEST_F(TraceCacheTest, AnUnreadableTraceFailsEveryRunThatAsks) {
  std::ofstream(dir_ / "trace.csv") << "id,submit_s,gpus,runtime_s\nj0,0,1,100\nj1,oops,1,100\n";
  TraceCache cache;
  for (int i = 0; i < 2; ++i) {
    try {
      summary(&cache, 11);
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("trace.csv:3"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(cache.reads(), 1u);
}

}  // namespace
}  // namespace gpumux
