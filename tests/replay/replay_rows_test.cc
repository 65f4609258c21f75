// replay.csv, the schema gpumux-probe replay writes and replay-check reads: a round trip keeps
// every field (never-reached instants included), and malformed files are errors naming the
// file, line and column.
#include "calibrate/replay/replay_rows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "sim/base/input_error.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux::calibration {
namespace {

using ::testing::HasSubstr;

constexpr const char* kHeader =
    "mode,job,device,submit_s,ready_s,start_s,end_s,jct_s,outcome,error,kernels_done,"
    "kernels_planned,alone_kernels_per_s,fault_after_s\n";

TEST(ReplayRows, RoundTripKeepsEveryFieldAndNeverReachedInstants) {
  ReplayRow a;
  a.mode = "mps";
  a.job = "j1";
  a.device = "H200-141GB";
  a.submit_s = 1.5;
  a.ready_s = -0.25;  // context created before the trace's time 0
  a.start_s = 1.5;
  a.end_s = 4.25;
  a.outcome = ReplayOutcome::kCompleted;
  a.kernels_done = a.kernels_planned = 1234;
  a.alone_kernels_per_s = 496.125;
  ReplayRow b = a;
  b.job = "j2";
  b.start_s = NAN;
  b.end_s = 1.75;
  b.outcome = ReplayOutcome::kOom;
  b.error = "cudaErrorMemoryAllocation: out of memory, \"really\"";
  b.kernels_done = 0;
  b.fault_after_s = 0.5;
  const auto dir = testing::temp_dir("replay_rows");
  std::ostringstream text;
  write_replay_csv({a, b}, text);
  testing::write_file(dir / "replay.csv", text.str());
  const std::vector<ReplayRow> rows = read_replay_csv((dir / "replay.csv").string());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].job, "j1");
  EXPECT_DOUBLE_EQ(rows[0].ready_s, -0.25);
  EXPECT_DOUBLE_EQ(rows[0].jct_s(), 2.75);
  EXPECT_DOUBLE_EQ(rows[0].alone_kernels_per_s, 496.125);
  EXPECT_TRUE(std::isnan(rows[0].fault_after_s));
  EXPECT_EQ(rows[1].outcome, ReplayOutcome::kOom);
  EXPECT_TRUE(std::isnan(rows[1].start_s));
  EXPECT_EQ(rows[1].error, b.error);
  EXPECT_DOUBLE_EQ(rows[1].fault_after_s, 0.5);
  EXPECT_EQ(rows[1].line, 3);
  testing::fs::remove_all(dir);
}

TEST(ReplayRows, MalformedFilesNameTheLineAndColumn) {
  const std::string good = "mps,j1,H200-141GB,0,0,0,2,2,completed,,10,10,5,\n";
  struct Case {
    std::string text, says;
  };
  const std::vector<Case> cases = {
      {"", "empty file"},
      {"mode,job\n", "missing column"},
      {kHeader, "no rows"},
      {std::string(kHeader) + "mig,j1,H200-141GB,0,0,0,2,2,completed,,10,10,5,\n",
       "replay.csv:2: field 'mode'"},
      {std::string(kHeader) + "mps,j1,H200-141GB,0,0,0,2,2,finished,,10,10,5,\n",
       "unknown outcome 'finished'"},
      {std::string(kHeader) + good + good, "replay.csv:3: field 'job': job 'j1' appears twice"},
      {std::string(kHeader) + good + "timeslice,j2,H200-141GB,0,0,0,2,2,completed,,10,10,5,\n",
       "holds one mode"},
      {std::string(kHeader) + "mps,j1,H200-141GB,0,0,0,,,completed,,10,10,5,\n",
       "field 'end_s': empty, but the job ended"},
      {std::string(kHeader) + "mps,j1,H200-141GB,3,0,0,2,2,completed,,10,10,5,\n",
       "field 'end_s': before submit_s"},
      {std::string(kHeader) + "mps,j1,H200-141GB,0,0,0,2,2,completed,,ten,10,5,\n",
       "field 'kernels_done'"},
      {std::string(kHeader) + "mps,j1,H200-141GB,0,0,0,2,2,completed,,10,10,5\n",
       "expected 14 fields, got 13"},
  };
  const auto dir = testing::temp_dir("replay_rows_bad");
  for (const Case& c : cases) {
    testing::write_file(dir / "replay.csv", c.text);
    try {
      read_replay_csv((dir / "replay.csv").string());
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr(c.says)) << c.text;
    }
  }
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux::calibration
