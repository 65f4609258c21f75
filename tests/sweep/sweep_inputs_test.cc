// A sweep's input files and their digests (analysis/sweep/sweep_inputs.h): recorded in the plan
// when the sweep begins, checked when it resumes and when its runs are merged, so that a trace
// edited between two shards or before a resume is refused instead of merged.
#include <gtest/gtest.h>

#include <chrono>

#include "analysis/sweep/sweep_plan.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_cli;
using testing::temp_dir;
using testing::write_file;

// `sha256sum` of each trace below.
const std::string kTrace = "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1,20\n";
const std::string kTraceSha = "dbc323afb85828b6619f4ef88bfb1ca0cef2302d8094e9aa2dcc52a420b120b6";
const std::string kEdited = "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1,21\n";  // one byte
const std::string kEditedSha = "80e9e381aa804564a031ef5fbb7860f7d7b0762ba32b1247ff82b8d6afdddd1e";

// Writes the trace. The digests are cached per process by path, size and modification time, and
// these tests run several commands in one process within a few milliseconds: a later
// modification time stands for the time a real edit between two commands takes.
void write_trace(const fs::path& dir, const std::string& text) {
  const fs::path file = dir / "t.csv";
  const bool existed = fs::exists(file);
  const auto before = existed ? fs::last_write_time(file) : fs::file_time_type{};
  write_file(file, text);
  if (existed) fs::last_write_time(file, before + std::chrono::seconds(2));
}

// A scenario reading t.csv and a sweep of it: 2 queues x 2 seeds = 4 runs.
std::string write_inputs_sweep(const fs::path& dir) {
  write_trace(dir, kTrace);
  write_file(dir / "s.json", R"({"name": "traced", "seed": 1,
    "cluster": {"node_groups": [{"nodes": 1, "gpus_per_node": 2, "device": "T4"}]},
    "trace": {"file": "t.csv"}})");
  write_file(dir / "sweep.json", R"({"name": "inputs", "scenarios": ["s.json"],
    "axes": [{"set": "scheduler.queue", "values": ["fifo", "fifo-backfill"]}], "seeds": 2})");
  return (dir / "sweep.json").string();
}

nlohmann::json read_json(const fs::path& file) { return nlohmann::json::parse(read_file(file)); }

TEST(SweepInputs, ThePlanRecordsEachInputOnceWithItsDigest) {
  const auto dir = temp_dir("sweep_inputs_plan");
  const std::string sweep = write_inputs_sweep(dir);
  const SweepPlan plan = load_sweep(sweep);
  ASSERT_EQ(plan.runs.size(), 4u);
  ASSERT_EQ(plan.inputs.size(), 1u);  // four runs, one file
  EXPECT_EQ(plan.inputs[0].scenario, "traced");
  EXPECT_EQ(plan.inputs[0].role, "trace.file");
  EXPECT_EQ(plan.inputs[0].file, "t.csv");
  EXPECT_EQ(plan.inputs[0].bytes, kTrace.size());
  EXPECT_EQ(plan.inputs[0].sha256, kTraceSha);
  // One changed byte: the same size, another digest.
  write_trace(dir, kEdited);
  const SweepPlan edited = load_sweep(sweep);
  ASSERT_EQ(edited.inputs.size(), 1u);
  EXPECT_EQ(edited.inputs[0].bytes, kTrace.size());
  EXPECT_EQ(edited.inputs[0].sha256, kEditedSha);
  // The run documents name the file, not its bytes: their digests alone cannot tell.
  EXPECT_EQ(edited.runs[0].digest, plan.runs[0].digest);

  // Written to the plan file and read back; sweep.json carries them with the build.
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", (dir / "out").string()}).code, 0);
  const auto written = read_json(dir / "out" / "sweep-plan.json");
  ASSERT_EQ(written["inputs"].size(), 1u);
  EXPECT_EQ(written["inputs"][0]["sha256"], kEditedSha);
  EXPECT_EQ(plan_from_json(written, "sweep-plan.json").inputs[0].sha256, kEditedSha);
  const auto merged = read_json(dir / "out" / "sweep.json");
  EXPECT_EQ(merged["provenance"]["inputs"], written["inputs"]);
  EXPECT_EQ(merged["provenance"]["build"]["version"], GPUMUX_VERSION);
  fs::remove_all(dir);
}

// Half a sweep, a one-byte edit of the trace, then the other half or a resume: refused with
// exit 2 naming the file, its role and both digests, and nothing run or merged. With the
// original bytes back the sweep resumes and merges.
TEST(SweepInputs, ResumeRefusesAOneByteEditOfTheTrace) {
  const auto dir = temp_dir("sweep_inputs_resume");
  const std::string sweep = write_inputs_sweep(dir);
  const fs::path out = dir / "out";
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", out.string(), "--shard", "0/2"}).code, 0);
  const std::string plan_before = read_file(out / "sweep-plan.json");
  write_trace(dir, kEdited);
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--shard", "1/2"}, std::vector<std::string>{}}) {
    std::vector<std::string> args = {"sweep", sweep, "--out", out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(
        r.err.find("sweep-plan.json: field 'inputs': the trace.file 't.csv' of scenario "
                   "'traced' has changed since the sweep began (SHA-256 " +
                   kTraceSha.substr(0, 16) + "... then, " + kEditedSha.substr(0, 16) + "... now)"),
        std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("rerun the sweep from scratch into a new --out"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out / "runs" / "000001"));  // the other shard's runs: not run
    EXPECT_FALSE(fs::exists(out / "sweep.csv"));
    EXPECT_EQ(read_file(out / "sweep-plan.json"), plan_before);
  }
  write_trace(dir, kTrace);
  const auto resumed = run_cli({"sweep", sweep, "--out", out.string()});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("2 finished before"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.out.find("4 runs, 4 ended, 0 failed"), std::string::npos) << resumed.out;
  fs::remove_all(dir);
}

// Shards run into two folders, one before and one after a one-byte edit of the trace, their
// runs then gathered into one folder: merge refuses, naming the run, the file and both
// digests, and writes nothing. Shards of the same bytes gathered the same way merge, whatever
// build ran them.
TEST(SweepInputs, MergeRefusesShardsMadeFromDifferentTraceBytes) {
  const auto dir = temp_dir("sweep_inputs_merge");
  const std::string sweep = write_inputs_sweep(dir);
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", (dir / "a").string(), "--shard", "0/2"}).code, 0);
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", (dir / "same").string(), "--shard", "1/2"}).code, 0);
  write_trace(dir, kEdited);
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", (dir / "b").string(), "--shard", "1/2"}).code, 0);
  fs::copy(dir / "a", dir / "mixed", fs::copy_options::recursive);
  fs::copy(dir / "b" / "runs", dir / "mixed" / "runs", fs::copy_options::recursive);
  const auto mixed = run_cli({"merge", (dir / "mixed").string()});
  EXPECT_EQ(mixed.code, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("runs/000001/summary.json#/provenance/inputs/0/sha256: field "
                           "'sha256': run 1 (traced exclusive scheduler.queue=fifo, seed 2) read "
                           "trace.file 't.csv' of scenario 'traced' with SHA-256 " +
                           kEditedSha.substr(0, 16) + "..., but the sweep began with " +
                           kTraceSha.substr(0, 16) + "..."),
            std::string::npos)
      << mixed.err;
  EXPECT_NE(mixed.err.find("nothing was merged"), std::string::npos) << mixed.err;
  EXPECT_FALSE(fs::exists(dir / "mixed" / "sweep.csv"));
  EXPECT_FALSE(fs::exists(dir / "mixed" / "sweep.json"));

  fs::copy(dir / "same" / "runs", dir / "a" / "runs", fs::copy_options::recursive);
  // A shard run by another build of gpumux: its build differs, its inputs do not.
  const fs::path other_build = dir / "a" / "runs" / "000003" / "summary.json";
  nlohmann::json summary = read_json(other_build);
  summary["provenance"]["build"] = {{"version", "9.9.9"}, {"git", "0123abc-dirty"}};
  write_file(other_build, summary.dump(2) + "\n");
  const auto same = run_cli({"merge", (dir / "a").string()});
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.out.find("4 runs, 4 ended, 0 failed"), std::string::npos) << same.out;
  fs::remove_all(dir);
}

// A sweep folder begun before the plan recorded inputs still resumes and merges (unchecked),
// and a plan whose inputs are not a list is bad input naming the pointer.
TEST(SweepInputs, PlansWithoutInputsStillResumeAndBadInputsAreNamed) {
  const auto dir = temp_dir("sweep_inputs_old");
  const std::string sweep = write_inputs_sweep(dir);
  const fs::path out = dir / "out";
  ASSERT_EQ(run_cli({"sweep", sweep, "--out", out.string(), "--shard", "0/2"}).code, 0);
  nlohmann::json plan = read_json(out / "sweep-plan.json");
  plan.erase("inputs");
  write_file(out / "sweep-plan.json", plan.dump(1) + "\n");
  const auto resumed = run_cli({"sweep", sweep, "--out", out.string()});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_TRUE(read_json(out / "sweep.json")["provenance"]["inputs"].is_null());
  plan["inputs"] = "t.csv";
  write_file(out / "sweep-plan.json", plan.dump(1) + "\n");
  const auto bad = run_cli({"merge", out.string()});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("sweep-plan.json#/inputs: field 'inputs': expected an array"),
            std::string::npos)
      << bad.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux
