// `gpumux calibrate replay check`: a replay's measured rows against the simulation of the same
// trace on one GPU. JCT errors are computed per job and summarised (last line "MAE <value>"),
// out-of-memory and fault outcomes are compared (an injected fault is simulated at the same
// instant: under MPS it tears down every client, under time-slicing only the faulting one),
// and a measurement that is not a replay of the trace is bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "tests/e2e/e2e_support.h"

namespace gpumux::calibration {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

constexpr const char* kTraceHeader =
    "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib,kernel_us\n";
constexpr const char* kReplayHeader =
    "mode,job,device,submit_s,ready_s,start_s,end_s,jct_s,outcome,error,kernels_done,"
    "kernels_planned,alone_kernels_per_s,fault_after_s\n";

struct Files {
  fs::path dir, trace, measured;
};

Files write_case(const std::string& name, const std::string& trace_rows,
                 const std::string& replay_rows) {
  Files f;
  f.dir = testing::temp_dir("replay_check_" + name);
  f.trace = f.dir / "trace.csv";
  f.measured = f.dir / "replay.csv";
  testing::write_file(f.trace, kTraceHeader + trace_rows);
  testing::write_file(f.measured, kReplayHeader + replay_rows);
  return f;
}

testing::CliResult check(const Files& f, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"calibrate",         "replay",  "check",
                                   f.measured.string(), "--trace", f.trace.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return testing::run_cli(args);
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  return t.substr(t.rfind('\n') + 1);
}

TEST(ReplayCheck, JctErrorsArePerJobAndTheLastLineIsTheirMean) {
  // Two jobs that never meet: the simulation gives each its runtime alone.
  const Files f = write_case("exact", "a,0,1,10,1,1,1024,1000\nb,20,1,10,1,1,1024,1000\n",
                             "timeslice,a,H200-141GB,0,-1,0,12.5,12.5,completed,,10,10,991,\n"
                             "timeslice,b,H200-141GB,20,19,20,30,10,completed,,10,10,991,\n");
  const auto r = check(f);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("against the timeslice model with its built-in defaults"));
  EXPECT_THAT(r.out, HasSubstr("-20.0%"));  // 10 s simulated against 12.5 s measured
  EXPECT_THAT(r.out, HasSubstr("+0.0%"));
  EXPECT_THAT(r.out, HasSubstr("outcomes: 2 of 2 identical"));
  EXPECT_THAT(r.out, HasSubstr("median 0.0%, p95 20.0%, max 20.0%"));
  EXPECT_EQ(last_line(r.out), "MAE 0.1000");
  fs::remove_all(f.dir);
}

// A calibration measured on another device than the replay's is named on stderr, as `calibrate
// check` names it (issue 56, class 12); the new and the older form alike.
TEST(ReplayCheck, ACalibrationFromAnotherDeviceWarns) {
  const Files f = write_case("device", "a,0,1,10,1,1,1024,1000\n",
                             "timeslice,a,H200-141GB,0,-1,0,10,10,completed,,10,10,991,\n");
  const fs::path cal = f.dir / "cal.json";
  testing::write_file(cal, R"({"format": "gpumux-calibration", "device": "T4",
    "models": {"timeslice": {"params": {"interference": 0.02, "switch_cost_us": 35.5},
                             "fixed": []}}})");
  const auto r = check(f, {"--calibration", cal.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("measured on T4, applied here to H200-141GB")) << r.err;
  const auto older = testing::run_cli({"calibrate", "replay-check", f.measured.string(), "--trace",
                                       f.trace.string(), "--calibration", cal.string()});
  ASSERT_EQ(older.code, 0) << older.err;
  EXPECT_THAT(older.err, HasSubstr("measured on T4, applied here to H200-141GB")) << older.err;
  fs::remove_all(f.dir);
}

// The older `calibrate replay-check` runs the same and names the new form on stderr.
TEST(ReplayCheck, TheOlderFormPrintsTheSame) {
  const Files f = write_case("older", "a,0,1,10,1,1,1024,1000\n",
                             "timeslice,a,H200-141GB,0,-1,0,12.5,12.5,completed,,10,10,991,\n");
  const auto r = check(f);
  const auto older = testing::run_cli(
      {"calibrate", "replay-check", f.measured.string(), "--trace", f.trace.string()});
  ASSERT_EQ(older.code, 0) << older.err;
  EXPECT_EQ(older.out, r.out);
  EXPECT_THAT(older.err, HasSubstr("older form of `gpumux calibrate replay check`"));
  EXPECT_THAT(r.err, Not(HasSubstr("older form")));
  fs::remove_all(f.dir);
}

TEST(ReplayCheck, CsvFormatHasOneRowPerJobAndCommentsAround) {
  const Files f = write_case("csv", "a,0,1,10,1,1,1024,1000\n",
                             "timeslice,a,H200-141GB,0,-1,0,12.5,12.5,completed,,10,10,991,\n");
  const auto r = check(f, {"--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# replay-check: "));
  EXPECT_THAT(r.out, HasSubstr("job,measured,simulated,measured_jct_s,simulated_jct_s,"
                               "relative_error\na,completed,completed,12.500,10.000,-0.200000\n"));
  EXPECT_EQ(last_line(r.out), "MAE 0.2000");
  fs::remove_all(f.dir);
}

TEST(ReplayCheck, AnMpsAllocationThatDoesNotFitFailsTheAllocatorInBoth) {
  // 90,000 MiB held, then 60,000 MiB asked on a 141 GB GPU: the second job's allocation fails.
  const Files f = write_case("oom", "a,0,1,20,0.5,0.5,90000,1000\nb,1,1,10,0.5,0.5,60000,1000\n",
                             "mps,a,H200-141GB,0,-1,0,20.4,20.4,completed,,10,10,991,\n"
                             "mps,b,H200-141GB,1,0,,1.02,0.02,oom,out of memory,0,10,498,\n");
  const auto r = check(f);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("outcomes: 2 of 2 identical"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("b +oom +oom +0.020 +0.000"));
  fs::remove_all(f.dir);
}

TEST(ReplayCheck, AnInjectedMpsFaultTearsDownEveryClientAtItsInstant) {
  const Files f = write_case("fault",
                             "a,0,1,30,0.5,0.3,1024,1000\nb,0,1,30,0.5,0.3,1024,1000\n"
                             "c,2,1,30,0.5,0.3,1024,1000\n",
                             "mps,a,H200-141GB,0,-1,0,7.1,7.1,torn_down,x,10,99,498,\n"
                             "mps,b,H200-141GB,0,-1,0,5.0,5.0,fault,x,10,99,498,5\n"
                             "mps,c,H200-141GB,2,1,2,7.1,5.1,torn_down,x,10,99,498,\n");
  const auto r = check(f);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("b +fault +fault +5.000 +5.000"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("a +torn_down +torn_down +7.100 +5.000"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("c +torn_down +torn_down +5.100 +3.000"));
  EXPECT_THAT(r.out, HasSubstr("outcomes: 3 of 3 identical"));
  EXPECT_EQ(last_line(r.out), "MAE n/a");  // no job completed in both

  // The same fault under time-slicing takes down the faulting process only.
  const Files t = write_case("fault_ts", "a,0,1,30,0.5,0.3,1024,1000\nb,0,1,30,0.5,0.3,1024,1000\n",
                             "timeslice,a,H200-141GB,0,-1,0,7.1,7.1,torn_down,x,10,99,498,\n"
                             "timeslice,b,H200-141GB,0,-1,0,5.0,5.0,fault,x,10,99,498,5\n");
  const auto ts = check(t);
  ASSERT_EQ(ts.code, 0) << ts.err;
  EXPECT_THAT(ts.out, ::testing::ContainsRegex("a +torn_down +completed .*MISMATCH"));
  EXPECT_THAT(ts.out, HasSubstr("outcomes: 1 of 2 identical"));
  fs::remove_all(f.dir);
  fs::remove_all(t.dir);
}

TEST(ReplayCheck, EachJobRunsAtTheDutyItsLoopMeasuredAlone) {
  // 1000 us kernels at 400 per second alone: busy 40% of the time, whatever the trace said.
  const Files f = write_case("duty", "a,0,1,10,1,1,1024,1000\n",
                             "timeslice,a,H200-141GB,0,-1,0,10,10,completed,,10,10,400,\n");
  const auto r = check(f, {"--out", (f.dir / "sim").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("each job's sm_util: the duty its loop measured alone"));
  const std::string jobs = testing::read_file(f.dir / "sim" / "jobs.csv");
  EXPECT_THAT(jobs, HasSubstr(",0.4,1,H200-141GB,")) << jobs;  // sm_util,sm_share,device
  fs::remove_all(f.dir);
}

TEST(ReplayCheck, LateStartsAreNotedAndTheSimulatedRunCanBeKept) {
  const Files f = write_case("late", "a,0,1,10,1,1,1024,1000\n",
                             "timeslice,a,H200-141GB,0,0.4,0.5,10.5,10.5,completed,,10,10,991,\n");
  const auto r = check(f, {"--out", (f.dir / "sim").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("note: job 'a' began its work 0.500 s after its submit time"));
  EXPECT_TRUE(fs::exists(f.dir / "sim" / "jobs.csv"));
  EXPECT_THAT(testing::read_file(f.dir / "sim" / "summary.json"), HasSubstr("\"kernel_lengths\""));
  fs::remove_all(f.dir);
}

TEST(ReplayCheck, AMeasurementThatIsNotAReplayOfTheTraceIsBadInput) {
  const std::string trace = "a,0,1,10,1,1,1024,1000\nb,20,1,10,1,1,1024,1000\n";
  const std::string a = "timeslice,a,H200-141GB,0,-1,0,12.5,12.5,completed,,10,10,991,\n";
  struct Case {
    std::string rows;
    std::vector<std::string> extra;
    std::string says;
  };
  const std::vector<Case> cases = {
      {a, {}, "no row for job 'b'"},
      {a + "timeslice,b,H200-141GB,20,19,20,30,10,completed,,10,10,991,\n"
           "timeslice,z,H200-141GB,20,19,20,30,10,completed,,10,10,991,\n",
       {},
       "replay.csv:4: field 'job': job 'z' is not in"},
      {a + "timeslice,b,H200-141GB,21,19,21,30,9,completed,,10,10,991,\n",
       {},
       "replay.csv:3: field 'submit_s': 21, but the trace submits job 'b' at 20"},
      {a + "timeslice,b,H200-141GB,20,19,20,30,10,completed,,10,10,991,\n",
       {"--mode", "mps"},
       "--mode"},
      {a + "timeslice,b,H200-141GB,20,19,20,30,10,completed,,10,10,991,\n",
       {"--device", "Z100-1GB"},
       "Z100-1GB"},
      {a + "timeslice,b,A100-80GB,20,19,20,30,10,completed,,10,10,991,\n",
       {},
       "field 'device': 'A100-80GB' after rows of 'H200-141GB'"},
  };
  for (const Case& c : cases) {
    const Files f = write_case("bad", trace, c.rows);
    const auto r = check(f, c.extra);
    EXPECT_EQ(r.code, 2) << c.says;
    EXPECT_THAT(r.err, HasSubstr(c.says)) << r.err;
    EXPECT_EQ(r.out, "") << c.says;
    fs::remove_all(f.dir);
  }
}

}  // namespace
}  // namespace gpumux::calibration
