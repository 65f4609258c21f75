// gpumux-probe replay against the fake GPU: every job of a small trace becomes a process that
// starts at its submit time and runs its planned kernels; out-of-memory, an injected fault and
// an MPS teardown are recorded as such; bad traces and options are refused before any GPU is
// touched.
#include "calibrate/probe/replay_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calibrate/replay/replay_rows.h"
#include "sim/base/input_error.h"
#include "tests/calibrate/fake_backend.h"

namespace gpumux::calibration {
namespace {

using namespace testing_fake;
using nlohmann::json;
using ::testing::HasSubstr;

std::string write_trace(const std::string& dir, const std::string& body) {
  fs::create_directories(dir);
  const std::string path = dir + "/trace.csv";
  std::ofstream(path) << "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib,kernel_us\n"
                      << body;
  return path;
}

ReplayOptions options_for(const std::string& trace, const std::string& out) {
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ReplayOptions o;
  o.trace = trace;
  o.out_dir = out;
  o.lead_s = 0.2;
  o.alone_s = 0.05;
  o.budget_s = 30;
  o.command_line = "gpumux-probe replay --test";
  return o;
}

const ReplayRow& row(const std::vector<ReplayRow>& rows, const std::string& id) {
  for (const ReplayRow& r : rows) {
    if (r.job == id) return r;
  }
  throw std::runtime_error("no row " + id);
}

TEST(ProbeReplay, TimeSlicedJobsCompleteRunOutOfMemoryAndFaultAtTheirInstants) {
  const std::string dir = fresh_dir("replay-ts");
  const std::string trace = write_trace(dir,
                                        "a,0,1,0.3,0.5,0.5,1024,1000\n"
                                        "b,0.1,1,0.2,1,1,51200,1000\n"      // 50 GiB > fake's 40
                                        "c,0.2,1,1.0,1,0.25,1024,2000\n");  // faults at 0.1 s
  ReplayOptions o = options_for(trace, dir + "/out");
  o.faults = {{"c", 0.1}};
  FakeBackend gpu;
  std::ostringstream log;
  ReplayRunner runner(o, gpu, log);
  ASSERT_EQ(runner.run(), 0) << log.str();

  const std::vector<ReplayRow> rows = read_replay_csv(dir + "/out/replay.csv");
  ASSERT_EQ(rows.size(), 3u);
  const ReplayRow& a = row(rows, "a");
  EXPECT_EQ(a.outcome, ReplayOutcome::kCompleted);
  EXPECT_EQ(a.kernels_done, a.kernels_planned);
  // Alone: 1000 us kernel + 10 us overhead + 1000 us gap per kernel, so 0.3 s of work is
  // ~149 kernels, and the fake's JCT is its work (no neighbour slows it down).
  EXPECT_NEAR(static_cast<double>(a.kernels_planned), 0.3 / 2010e-6, 8);
  EXPECT_NEAR(a.jct_s(), 0.3, 0.08);
  EXPECT_GE(a.start_s, a.submit_s - 1e-3);
  EXPECT_LT(a.ready_s, a.start_s);
  const ReplayRow& b = row(rows, "b");
  EXPECT_EQ(b.outcome, ReplayOutcome::kOom);
  EXPECT_THAT(b.error, HasSubstr("out of memory"));
  EXPECT_NEAR(b.end_s, 0.1, 0.05);
  EXPECT_EQ(b.kernels_done, 0);
  const ReplayRow& c = row(rows, "c");
  EXPECT_EQ(c.outcome, ReplayOutcome::kFault);
  EXPECT_THAT(c.error, HasSubstr("illegal"));
  EXPECT_DOUBLE_EQ(c.fault_after_s, 0.1);
  EXPECT_NEAR(c.end_s, 0.3, 0.05);
  EXPECT_LT(c.kernels_done, c.kernels_planned);

  std::ifstream side_in(dir + "/out/replay.json");
  const json side = json::parse(side_in);
  EXPECT_EQ(side["complete"], true);
  EXPECT_EQ(side["mode"], "timeslice");
  EXPECT_EQ(side["device"]["profile"], "H200-141GB");
  EXPECT_EQ(side["loops"].size(), 3u);  // three distinct loops, each measured alone
  EXPECT_EQ(side["faults"][0]["job"], "c");
  fs::remove_all(dir);
}

TEST(ProbeReplay, AnMpsFaultTearsDownTheOtherClientsAndTheDaemonIsQuit) {
  const std::string dir = fresh_dir("replay-mps");
  const std::string trace = write_trace(dir,
                                        "a,0,1,1.0,1,0.5,1024,1000\n"
                                        "f,0.1,1,1.0,1,0.5,1024,1000\n");
  ReplayOptions o = options_for(trace, dir + "/out");
  o.mode = "mps";
  o.faults = {{"f", 0.2}};
  FakeBackend gpu;
  gpu.fault_flag = dir + "/fault-flag";
  std::ostringstream log;
  ReplayRunner runner(o, gpu, log, fake_control(dir + "/bin"));
  ASSERT_EQ(runner.run(), 0) << log.str();
  const ReplayRow& f = row(runner.rows(), "f");
  EXPECT_EQ(f.outcome, ReplayOutcome::kFault);
  EXPECT_NEAR(f.end_s, 0.3, 0.05);
  const ReplayRow& a = row(runner.rows(), "a");
  EXPECT_EQ(a.outcome, ReplayOutcome::kTornDown);
  EXPECT_THAT(a.error, HasSubstr("MPS"));
  EXPECT_NEAR(a.end_s, 0.3, 0.05);
  EXPECT_EQ(a.mode, "mps");
  // The private daemon is gone: its control pipe was removed by `quit`.
  std::ifstream pipe_file(dir + "/out/mps_pipe_dir.txt");
  std::string pipe;
  std::getline(pipe_file, pipe);
  ASSERT_FALSE(pipe.empty());
  EXPECT_FALSE(fs::exists(pipe + "/control"));
  fs::remove_all(dir);
}

TEST(ProbeReplay, JobsStillRunningAtTheBudgetAreUnfinished) {
  const std::string dir = fresh_dir("replay-budget");
  // The job alone needs 1 s, within the budget; the fake GPU's context creation is slow
  // enough that the job cannot finish before it.
  const std::string trace = write_trace(dir, "a,0,1,1.0,1,1,0,1000\n");
  ReplayOptions o = options_for(trace, dir + "/out");
  o.budget_s = 6;
  FakeBackend gpu;
  gpu.prepare_s = 2.5;  // the alone run and the job's own context: past the deadline's margin
  std::ostringstream log;
  ReplayRunner runner(o, gpu, log);
  ASSERT_EQ(runner.run(), 0) << log.str();
  const ReplayRow& a = row(runner.rows(), "a");
  EXPECT_EQ(a.outcome, ReplayOutcome::kUnfinished) << log.str();
  EXPECT_LT(a.kernels_done, a.kernels_planned);
  fs::remove_all(dir);
}

TEST(ProbeReplay, BadTracesAndOptionsAreRefusedBeforeAnyGpuIsTouched) {
  struct Case {
    std::string rows;
    std::vector<ReplayFault> faults;
    double budget_s;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"a,0,2,1,1,1,0,1000\n", {}, 30, "asks for 2 GPUs"},
      {"a,0,1,1,1,1,0,1000\n", {{"zz", 1}}, 30, "job 'zz' is not in"},
      {"a,0,1,100,1,1,0,1000\n", {}, 30, "--budget-s"},
      {"a,0,1,1,1,1,oops,1000\n", {}, 30, "memory_mib"},
  };
  for (const Case& c : cases) {
    const std::string dir = fresh_dir("replay-bad");
    ReplayOptions o = options_for(write_trace(dir, c.rows), dir + "/out");
    o.faults = c.faults;
    o.budget_s = c.budget_s;
    FakeBackend gpu;
    gpu.fail_query = true;  // touching the GPU would fail differently
    std::ostringstream log;
    ReplayRunner runner(o, gpu, log);
    try {
      runner.run();
      ADD_FAILURE() << "accepted: " << c.rows;
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr(c.says)) << c.rows;
    }
    EXPECT_FALSE(fs::exists(dir + "/out")) << c.rows;
    fs::remove_all(dir);
  }
}

TEST(ProbeReplay, DryRunPrintsEachJobsLoopAndWritesNothing) {
  const std::string dir = fresh_dir("replay-dry");
  ReplayOptions o = options_for(write_trace(dir, "a,0,1,2,0.5,0.25,4096,200\n"), dir + "/out");
  o.dry_run = true;
  o.faults = {{"a", 1.5}};
  FakeBackend gpu;
  gpu.fail_query = true;
  std::ostringstream log;
  ReplayRunner runner(o, gpu, log);
  EXPECT_EQ(runner.run(), 0);
  // 0.25 of 132 SMs is 33 blocks; duty 0.5 with 200 us kernels is a 200 us gap.
  EXPECT_THAT(log.str(), HasSubstr("a: submit 0 s, work 2 s, kernel 200 us on 33 of 132 SMs, "
                                   "gap 200.0 us, memory 4096 MiB, faults 1.5 s after start"));
  EXPECT_FALSE(fs::exists(dir + "/out"));
  fs::remove_all(dir);
}

TEST(ProbeReplay, CommandLineParsesFaultsAndRefusesBadValues) {
  const char* good[] = {"gpumux-probe", "replay",  "t.csv", "--mode",     "mps", "--fault",
                        "j1@2.5",       "--fault", "a@b@1", "--budget-s", "120"};
  const ParsedReplayCommandLine p = parse_replay_command_line(11, good);
  EXPECT_EQ(p.options.trace, "t.csv");
  EXPECT_EQ(p.options.mode, "mps");
  ASSERT_EQ(p.options.faults.size(), 2u);
  EXPECT_EQ(p.options.faults[0].job, "j1");
  EXPECT_DOUBLE_EQ(p.options.faults[0].after_s, 2.5);
  EXPECT_EQ(p.options.faults[1].job, "a@b");  // the last '@' separates
  EXPECT_EQ(p.options.budget_s, 120);

  const std::vector<std::vector<const char*>> bad = {
      {"gpumux-probe", "replay", "t.csv", "--fault", "j1"},
      {"gpumux-probe", "replay", "t.csv", "--fault", "j1@soon"},
      {"gpumux-probe", "replay", "t.csv", "--fault", "j1@-1"},
      {"gpumux-probe", "replay", "t.csv", "--fault", "j1@1", "--fault", "j1@2"},
      {"gpumux-probe", "replay", "t.csv", "--mode", "mig"},
      {"gpumux-probe", "replay", "t.csv", "--budget-s", "0"},
      {"gpumux-probe", "replay"},
  };
  for (const auto& args : bad) {
    EXPECT_THROW(parse_replay_command_line(static_cast<int>(args.size()), args.data()), InputError)
        << args.back();
  }
  const char* help[] = {"gpumux-probe", "replay", "--help"};
  const ParsedReplayCommandLine h = parse_replay_command_line(3, help);
  EXPECT_TRUE(h.help);
  EXPECT_THAT(h.help_text, HasSubstr("calibrate replay check"));
}

}  // namespace
}  // namespace gpumux::calibration
