// `gpumux sweep` and `gpumux merge`: expansion order, bad sweep files, resume after SIGKILL,
// recorded failures, and the same merged bytes whatever ran the runs (threads, shards; MPI in
// mpi_sweep_test.sh).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "analysis/sweep/sweep_plan.h"
#include "analysis/sweep/sweep_store.h"
#include "sim/base/input_error.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_cli;
using testing::temp_dir;
using testing::write_file;

fs::path data_dir() { return testing::source_dir() / "tests" / "sweep" / "data"; }
std::string small_scenario() { return (data_dir() / "small.json").string(); }

// A sweep file in `dir` over the small scenario with the given extra keys.
std::string write_sweep(const fs::path& dir, const std::string& keys,
                        const std::string& name = "s.json") {
  const fs::path file = dir / name;
  write_file(file, "{\"scenarios\": [\"" + small_scenario() + "\"]" +
                       (keys.empty() ? "" : ", " + keys) + "}");
  return file.string();
}

TEST(SweepPlan, ExpandsScenarioModelAxesSeedInThatNesting) {
  const auto dir = temp_dir("sweep_expand");
  const std::string file = write_sweep(
      dir,
      R"("models": ["exclusive", "mps"],
         "axes": [{"set": "scheduler.queue", "values": ["fifo", "fifo-backfill"]},
                  {"set": "/cluster/node_groups/0/nodes", "values": [1, 2]}],
         "seeds": 2)");
  const SweepPlan plan = load_sweep(file);
  ASSERT_EQ(plan.runs.size(), 16u);  // 2 models x 2 queues x 2 sizes x 2 seeds
  EXPECT_EQ(plan.name, "s");
  // Index = ((model * 2 + queue) * 2 + nodes) * 2 + seed; seeds are the scenario's 7 and 8.
  const SweepRun& r5 = plan.runs[5];  // exclusive, fifo-backfill, 1 node, seed 8
  EXPECT_EQ(r5.index, 5u);
  EXPECT_EQ(r5.variant, "small exclusive scheduler.queue=fifo-backfill /cluster/node_groups/0/nodes=1");
  EXPECT_EQ(r5.seed, 8u);
  EXPECT_EQ(r5.document["scheduler"]["queue"], "fifo-backfill");
  EXPECT_EQ(r5.document["cluster"]["node_groups"][0]["nodes"], 1);
  EXPECT_EQ(r5.document["sharing"]["model"], "exclusive");
  EXPECT_EQ(r5.document["seed"], 8);
  const SweepRun& r14 = plan.runs[14];  // mps, fifo-backfill, 2 nodes, seed 7
  EXPECT_EQ(r14.variant, "small mps scheduler.queue=fifo-backfill /cluster/node_groups/0/nodes=2");
  EXPECT_EQ(r14.seed, 7u);
  EXPECT_EQ(r14.document["sharing"]["model"], "mps");
  EXPECT_EQ(r14.document["cluster"]["node_groups"][0]["nodes"], 2);
  EXPECT_EQ(r14.model, "mps");
  // By default a run keeps its summary only.
  EXPECT_EQ(r14.document["outputs"]["jobs_csv"], false);
  EXPECT_EQ(r14.document["outputs"]["timeseries_csv"], false);
  // Same documents, same digests; different documents, different digests.
  EXPECT_EQ(plan.runs[0].digest, load_sweep(file).runs[0].digest);
  EXPECT_NE(plan.runs[0].digest, plan.runs[1].digest);
  fs::remove_all(dir);
}

TEST(SweepPlan, SeedListsKeepTheirOrderAndTheScenarioDecidesItsOutputsWhenAsked) {
  const auto dir = temp_dir("sweep_seeds");
  const SweepPlan plan =
      load_sweep(write_sweep(dir, R"("seeds": [9, 3, 5], "run_files": "scenario")"));
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.runs[0].seed, 9u);
  EXPECT_EQ(plan.runs[1].seed, 3u);
  EXPECT_EQ(plan.runs[2].seed, 5u);
  EXPECT_EQ(plan.runs[2].variant, "small exclusive");  // the scenario's own model
  EXPECT_FALSE(plan.runs[2].document.contains("outputs"));
  // The plan file round-trips.
  const nlohmann::json json = plan_to_json(plan);
  EXPECT_EQ(plan_to_json(plan_from_json(json, "p.json")), json);
  fs::remove_all(dir);
}

// The bundled sweeps load, and expand to the sizes docs/sweeps.md gives.
TEST(SweepPlan, BundledSweepsExpand) {
  const fs::path dir = testing::source_dir() / "scenarios" / "sweeps";
  EXPECT_EQ(load_sweep((dir / "queues_tiny.json").string()).runs.size(), 8u);
  const SweepPlan grid = load_sweep((dir / "models_placement.json").string());
  ASSERT_EQ(grid.runs.size(), 24u);
  EXPECT_EQ(grid.runs[23].variant, "regression-timeslice mps scheduler.placement=spread");
  EXPECT_EQ(grid.runs[23].seed, 8u);  // the scenario's seed 5, four seeds
  // Two engines per A100 at five concurrencies, under time-slicing and MPS; LLM rows included.
  const SweepPlan llm = load_sweep((dir / "llm_two_qwen3_4b_a100.json").string());
  ASSERT_EQ(llm.runs.size(), 10u);
  EXPECT_TRUE(llm.runs[0].llm);
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_NO_THROW(load_sweep(entry.path().string())) << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 3u);
}

TEST(SweepPlan, BadSweepFilesNameTheJsonPointerAndExitTwoWritingNothing) {
  const auto dir = temp_dir("sweep_bad");
  const std::string s = "\"scenarios\": [\"" + small_scenario() + "\"]";
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{", "s.json:1:"},
      {"[]", "s.json#"},
      {"{}", "field 'scenarios'"},
      {R"({"scenarios": []})", "s.json#/scenarios: field 'scenarios'"},
      {R"({"scenarios": [3]})", "s.json#/scenarios/0: field 'scenarios'"},
      {R"({"scenarios": ["none.json"]})", "s.json#/scenarios/0"},
      {"{" + s + R"(, "modles": []})", "modles"},
      {"{" + s + R"(, "models": ["exclusive", "exclusive"]})", "s.json#/models/1: field 'name'"},
      {"{" + s + R"(, "models": ["nosuch"]})", "s.json#/models/0"},
      {"{" + s + R"(, "models": [{"name": "mps", "params": 3}]})",
       "s.json#/models/0/params: field 'params'"},
      {"{" + s + R"(, "axes": [{"set": "scheduler.queue", "values": []}]})",
       "s.json#/axes/0/values: field 'values'"},
      {"{" + s + R"(, "axes": [{"set": "scheduler.queue", "values": ["fifo", "fifo"]}]})",
       "s.json#/axes/0/values/1"},
      {"{" + s + R"(, "axes": [{"set": "scheduler.queue", "values": ["fifo", "bogus"]}]})",
       "run 1 (small scheduler.queue=bogus, seed 7)"},
      {"{" + s + R"(, "axes": [{"set": "seed", "values": [1, 2]}]})", "s.json#/axes/0/set"},
      {"{" + s + R"(, "axes": [{"set": "a.b", "values": [1]}, {"set": "/a/b", "values": [2]}]})",
       "s.json#/axes/1/set"},
      {"{" + s + R"(, "axes": [{"set": "x", "values": [1], "extra": 1}]})", "extra"},
      {"{" + s + R"(, "sets": ["outputs.dir=elsewhere"]})", "s.json#/sets/0"},
      {"{" + s + R"(, "sets": ["x.y=1", "no equals sign"]})", "s.json#/sets/1"},
      {"{" + s + R"(, "seeds": 0})", "s.json#/seeds: field 'seeds'"},
      {"{" + s + R"(, "seeds": [1, 1]})", "s.json#/seeds/1"},
      {"{" + s + R"(, "seeds": [-1]})", "s.json#/seeds/0"},
      {"{" + s + R"(, "run_files": "all"})", "s.json#/run_files"},
      {"{\"scenarios\": [\"" + small_scenario() + "\", \"" + small_scenario() + "\"]}",
       "s.json#/scenarios/1: scenario name 'small'"},
  };
  const fs::path out = dir / "out";
  for (const auto& c : cases) {
    write_file(dir / "s.json", c.text);
    try {
      load_sweep((dir / "s.json").string());
      ADD_FAILURE() << "no error for " << c.text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << c.text << "\n" << e.what();
    }
    const auto r = run_cli({"sweep", (dir / "s.json").string(), "--out", out.string()});
    EXPECT_EQ(r.code, 2) << c.text << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(out)) << c.text;
  }
  const auto shard = run_cli({"sweep", write_sweep(dir, ""), "--out", out.string(), "--shard", "3/3"});
  EXPECT_EQ(shard.code, 2);
  EXPECT_NE(shard.err.find("--shard 3/3"), std::string::npos) << shard.err;
  fs::remove_all(dir);
}

// The sweep of the threads test: 2 models x 2 queues x 3 seeds.
std::string grid_sweep(const fs::path& dir) {
  return write_sweep(dir, R"("name": "grid", "models": ["exclusive", "timeslice"],
      "axes": [{"set": "scheduler.queue", "values": ["fifo", "fifo-backfill"]}], "seeds": 3)");
}

TEST(Sweep, ThreadsAndShardsMergeToTheSameBytes) {
  const auto dir = temp_dir("sweep_equal");
  const std::string sweep = grid_sweep(dir);
  const auto one = run_cli({"sweep", sweep, "--out", (dir / "j1").string(), "-j", "1"});
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("sweep 'grid': 12 runs, 12 ended, 0 failed; 4 variants"),
            std::string::npos)
      << one.out;
  const auto three = run_cli({"sweep", sweep, "--out", (dir / "j3").string(), "-j", "3"});
  ASSERT_EQ(three.code, 0) << three.err;
  for (const char* shard : {"2/3", "0/3", "1/3"}) {
    // A trailing slash names the same folder (the shard's lock goes beside it, not into it).
    const auto r =
        run_cli({"sweep", sweep, "--out", (dir / "shards").string() + "/", "--shard", shard});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("4 of 12 runs, 4 run now"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "shards" / "sweep.csv"));  // a shard does not merge
  }
  const auto merged = run_cli({"merge", (dir / "shards").string()});
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(merged.out, one.out);
  const std::string csv = read_file(dir / "j1" / "sweep.csv");
  const std::string json = read_file(dir / "j1" / "sweep.json");
  EXPECT_EQ(csv.rfind("variant,seed,metric,value\nsmall exclusive scheduler.queue=fifo,7,", 0), 0u)
      << csv.substr(0, 200);
  EXPECT_EQ(read_file(dir / "j3" / "sweep.csv"), csv);
  EXPECT_EQ(read_file(dir / "shards" / "sweep.csv"), csv);
  EXPECT_EQ(read_file(dir / "j3" / "sweep.json"), json);
  EXPECT_EQ(read_file(dir / "shards" / "sweep.json"), json);
  // 12 runs x 16 metrics (no services), in run-index order.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 12 * 16);
  // A sweep run again over a finished folder runs nothing and merges the same bytes.
  const auto again = run_cli({"sweep", sweep, "--out", (dir / "j1").string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("0 runs in"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("12 finished before"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(dir / "j1" / "sweep.csv"), csv);
  fs::remove_all(dir);
}

// sweep.csv is compare.csv with the variant naming the scenario too: the same runs give the
// same numbers.
TEST(Sweep, RowsMatchCompare) {
  const auto dir = temp_dir("sweep_compare");
  const std::string quickstart =
      (testing::source_dir() / "scenarios" / "examples" / "quickstart.json").string();
  write_file(dir / "s.json", "{\"scenarios\": [\"" + quickstart +
                                 "\"], \"models\": [\"exclusive\", \"timeslice\", \"mps\"], "
                                 "\"seeds\": 3}");
  ASSERT_EQ(run_cli({"sweep", (dir / "s.json").string(), "--out", (dir / "sweep").string()}).code,
            0);
  ASSERT_EQ(run_cli({"compare", quickstart, "--models", "exclusive,timeslice,mps", "--seeds", "3",
                     "--out", (dir / "compare").string()})
                .code,
            0);
  std::string csv = read_file(dir / "sweep" / "sweep.csv");
  for (std::size_t at; (at = csv.find("\nquickstart ")) != std::string::npos;) {
    csv.erase(at + 1, std::string("quickstart ").size());
  }
  EXPECT_EQ(csv, read_file(dir / "compare" / "compare.csv"));
  fs::remove_all(dir);
}

// The per-endpoint rows too (each service's TTFT and TPOT p99 where a run has several): a sweep
// over two LLM engines sharing a GPU holds the rows compare holds.
TEST(Sweep, RowsMatchCompareWithThePerEndpointRows) {
  const auto dir = temp_dir("sweep_compare_endpoints");
  const std::string scenario =
      (testing::source_dir() / "scenarios" / "examples" / "llm_two_qwen3_4b_a100_timeslice.json")
          .string();
  write_file(dir / "s.json", "{\"scenarios\": [\"" + scenario +
                                 "\"], \"models\": [\"timeslice\", \"mps\"], \"seeds\": 2}");
  ASSERT_EQ(run_cli({"sweep", (dir / "s.json").string(), "--out", (dir / "sweep").string()}).code,
            0);
  ASSERT_EQ(run_cli({"compare", scenario, "--models", "timeslice,mps", "--seeds", "2", "--out",
                     (dir / "compare").string()})
                .code,
            0);
  std::string csv = read_file(dir / "sweep" / "sweep.csv");
  const std::string prefix = "llm-two-qwen3-4b-a100-timeslice ";
  for (std::size_t at; (at = csv.find("\n" + prefix)) != std::string::npos;) {
    csv.erase(at + 1, prefix.size());
  }
  EXPECT_NE(csv.find(",requests.ttft_ms.p99 for qwen-a,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",requests.tpot_ms.p99 for qwen-b,"), std::string::npos) << csv;
  EXPECT_EQ(csv, read_file(dir / "compare" / "compare.csv"));
  fs::remove_all(dir);
}

// The GPU-share rows (FGD fragmentation, share allocation) too: a sweep over a share-aware
// scenario holds every metric compare holds.
TEST(Sweep, RowsMatchCompareWithTheShareMetrics) {
  const auto dir = temp_dir("sweep_compare_shares");
  const std::string fgd =
      (testing::source_dir() / "scenarios" / "regression" / "fractional_fgd.json").string();
  write_file(dir / "s.json", "{\"scenarios\": [\"" + fgd +
                                 "\"], \"models\": [\"fractional\", \"timeslice\"], "
                                 "\"seeds\": 2}");
  ASSERT_EQ(run_cli({"sweep", (dir / "s.json").string(), "--out", (dir / "sweep").string()}).code,
            0);
  ASSERT_EQ(run_cli({"compare", fgd, "--models", "fractional,timeslice", "--seeds", "2", "--out",
                     (dir / "compare").string()})
                .code,
            0);
  std::string csv = read_file(dir / "sweep" / "sweep.csv");
  for (std::size_t at; (at = csv.find("\nregression-fractional-fgd ")) != std::string::npos;) {
    csv.erase(at + 1, std::string("regression-fractional-fgd ").size());
  }
  const std::string compare_csv = read_file(dir / "compare" / "compare.csv");
  EXPECT_NE(compare_csv.find(",shares.fragmentation_gpus,"), std::string::npos) << compare_csv;
  EXPECT_EQ(csv, compare_csv);
  const std::string json = read_file(dir / "sweep" / "sweep.json");
  for (const char* metric :
       {"shares.allocation_ratio", "shares.fragmentation_gpus", "shares.fragmentation_of_idle"}) {
    EXPECT_NE(json.find(std::string("\"") + metric + "\""), std::string::npos) << metric;
  }
  fs::remove_all(dir);
}

TEST(Sweep, AFailedRunIsRecordedWithItsErrorAndTheOthersGoOn) {
  const auto dir = temp_dir("sweep_fail");
  const std::string sweep = (data_dir() / "with_failures.json").string();
  const fs::path out = dir / "out";
  const auto r = run_cli({"sweep", sweep, "--out", out.string(), "-j", "2"});
  ASSERT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.out.find("8 runs, 4 ended, 4 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED run 2 (small exclusive trace={\"file\":\"bad_row.csv\"}, seed 1)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("bad_row.csv:3: field 'runtime_s'"), std::string::npos) << r.err;
  const auto error = nlohmann::json::parse(read_file(out / "runs" / "000002" / "error.json"));
  EXPECT_EQ(error["kind"], "input");
  EXPECT_NE(error["error"].get<std::string>().find("bad_row.csv:3"), std::string::npos);
  const auto summary = nlohmann::json::parse(read_file(out / "sweep.json"));
  EXPECT_EQ(summary["runs"]["failed"], 4);
  EXPECT_EQ(summary["runs"]["succeeded"], 4);
  ASSERT_EQ(summary["failures"].size(), 4u);
  EXPECT_EQ(summary["failures"][0]["index"], 2);
  // The variant holds quotes: quoted in the CSV, which has rows for the runs that ended only.
  const std::string csv = read_file(out / "sweep.csv");
  EXPECT_NE(csv.find("\"small exclusive trace={\"\"file\"\":\"\"good_rows.csv\"\"}\",1,"),
            std::string::npos)
      << csv.substr(0, 300);
  EXPECT_EQ(csv.find("bad_row"), std::string::npos);
  // A recorded failure is a result: a rerun skips it; --retry-failed runs it again.
  const auto again = run_cli({"sweep", sweep, "--out", out.string()});
  EXPECT_EQ(again.code, 3);
  EXPECT_NE(again.err.find("0 runs in"), std::string::npos) << again.err;
  const auto retry = run_cli({"sweep", sweep, "--out", out.string(), "--retry-failed"});
  EXPECT_EQ(retry.code, 3);
  EXPECT_NE(retry.err.find("4 runs in"), std::string::npos) << retry.err;
  EXPECT_EQ(read_file(out / "sweep.csv"), csv);
  fs::remove_all(dir);
}

TEST(Sweep, FoldersOfOtherSweepsOrFilesAreRefused) {
  const auto dir = temp_dir("sweep_folder");
  const std::string sweep = grid_sweep(dir);
  write_file(dir / "busy" / "notes.txt", "mine");
  const auto busy = run_cli({"sweep", sweep, "--out", (dir / "busy").string()});
  EXPECT_EQ(busy.code, 2);
  EXPECT_NE(busy.err.find("no sweep-plan.json (first: notes.txt)"), std::string::npos) << busy.err;
  EXPECT_EQ(read_file(dir / "busy" / "notes.txt"), "mine");

  // Half a sweep (one shard of two), then the sweep file changes: the folder is not mixed.
  const fs::path out = dir / "out";
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", out.string(), "--shard", "0/2"}).code, 0);
  const auto partial = run_cli({"merge", out.string()});
  EXPECT_EQ(partial.code, 2);
  EXPECT_NE(partial.err.find("6 of 12 runs have no result yet (runs 1, 3, 5, 7, 9, 11)"),
            std::string::npos)
      << partial.err;
  EXPECT_FALSE(fs::exists(out / "sweep.csv"));
  const auto listed = run_cli({"merge", out.string(), "--partial"});
  EXPECT_EQ(listed.code, 3);
  EXPECT_NE(listed.out.find("6 missing"), std::string::npos) << listed.out;
  write_file(dir / "s.json", "{\"scenarios\": [\"" + small_scenario() +
                                 "\"], \"name\": \"grid\", \"models\": [\"exclusive\", "
                                 "\"timeslice\"], \"axes\": [{\"set\": \"scheduler.queue\", "
                                 "\"values\": [\"fifo\", \"fifo-backfill\"]}], \"seeds\": 4}");
  const auto changed = run_cli({"sweep", sweep, "--out", out.string()});
  EXPECT_EQ(changed.code, 2);
  EXPECT_NE(changed.err.find("holds another sweep"), std::string::npos) << changed.err;
  EXPECT_NE(changed.err.find("first difference at run 3"), std::string::npos) << changed.err;
  const auto none = run_cli({"merge", (dir / "nothing").string()});
  EXPECT_EQ(none.code, 2);
  fs::remove_all(dir);
}

// A run folder whose summary.json has the wrong types was merged as a run that ended with every
// metric n/a; an error.json cut short as a failure with no text. Each is now bad input naming the
// file and the JSON pointer, and merge writes nothing.
TEST(Sweep, MergeRefusesARunSummaryOrErrorOfTheWrongShape) {
  const auto dir = temp_dir("sweep_merge_shape");
  const std::string sweep = (data_dir() / "with_failures.json").string();
  const fs::path out = dir / "out";
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", out.string(), "-j", "1"}).code, 3);
  fs::remove(out / "sweep.csv");
  fs::remove(out / "sweep.json");
  const fs::path summary = out / "runs" / "000000" / "summary.json";
  const fs::path error = out / "runs" / "000002" / "error.json";
  ASSERT_TRUE(fs::exists(summary));
  ASSERT_TRUE(fs::exists(error));
  const std::string good_summary = read_file(summary);
  const std::string good_error = read_file(error);
  struct Case {
    fs::path file;
    std::string text, where;
  };
  const std::vector<Case> cases = {
      {summary, R"({"metrics": {"jct_s": "fast"}})",
       "summary.json#/metrics/jct_s: expected an object"},
      {summary, R"({"metrics": {"jct_s": {"mean": "fast"}}})",
       "summary.json#/metrics/jct_s/mean: expected a number or null"},
      {summary, R"({"metrics": 3})", "summary.json#/metrics: expected the run's metrics"},
      {summary, R"([1])", "summary.json#: expected a run summary"},
      {error, R"({"error": "cut sh)", "error.json:1:"},
      {error, R"({"kind": "input"})", "error.json#/error: expected the run's error message"},
      {error, R"({"error": ""})", "error.json#/error: expected the run's error message"},
  };
  for (const auto& c : cases) {
    write_file(summary, good_summary);
    write_file(error, good_error);
    write_file(c.file, c.text);
    const auto r = run_cli({"merge", out.string()});
    EXPECT_EQ(r.code, 2) << c.text << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(c.file.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.where), std::string::npos) << c.text << ": " << r.err;
    EXPECT_FALSE(fs::exists(out / "sweep.csv")) << c.text;
    EXPECT_FALSE(fs::exists(out / "sweep.json")) << c.text;
  }
  write_file(summary, good_summary);
  write_file(error, good_error);
  EXPECT_EQ(run_cli({"merge", out.string()}).code, 3);
  fs::remove_all(dir);
}

std::size_t finished_runs(const fs::path& out, std::size_t total) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < total; ++i) {
    n += sweep_run_state(out.string(), i) != SweepRunState::kMissing;
  }
  return n;
}

// The real binary killed with SIGKILL in the middle of a sweep, then run again: the merged
// output is byte-identical to that of a sweep never interrupted.
TEST(Sweep, ResumeAfterSigkillGivesTheSameOutput) {
  const auto dir = temp_dir("sweep_kill");
  const std::string sweep = write_sweep(
      dir, R"("sets": ["trace.generator.jobs=4000"], "models": ["exclusive", "timeslice"],
              "seeds": 12)");
  constexpr std::size_t kRuns = 24;
  const fs::path killed = dir / "killed";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::freopen("/dev/null", "w", stderr);
    ::freopen("/dev/null", "w", stdout);
    ::execl(GPUMUX_BINARY, "gpumux", "sweep", sweep.c_str(), "--out", killed.c_str(), "-j", "1",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (finished_runs(killed, kRuns) < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep ended before it was killed: make its runs longer";
  const std::size_t before = finished_runs(killed, kRuns);
  ASSERT_GE(before, 3u);
  ASSERT_LT(before, kRuns) << "every run ended before the kill: make the sweep longer";
  EXPECT_FALSE(fs::exists(killed / "sweep.csv"));

  const auto resumed = run_cli({"sweep", sweep, "--out", killed.string(), "-j", "2"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(std::to_string(before) + " finished before"), std::string::npos)
      << resumed.err;
  const auto whole = run_cli({"sweep", sweep, "--out", (dir / "whole").string(), "-j", "2"});
  ASSERT_EQ(whole.code, 0) << whole.err;
  EXPECT_EQ(read_file(killed / "sweep.csv"), read_file(dir / "whole" / "sweep.csv"));
  EXPECT_EQ(read_file(killed / "sweep.json"), read_file(dir / "whole" / "sweep.json"));
  // The killed run's temporary folder went when that run was run again.
  for (const auto& entry : fs::directory_iterator(killed / "runs")) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos)
        << entry.path();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
