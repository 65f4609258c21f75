#include "traces/formats/trace_opening.h"
#include "traces/transforms/integer_seconds_source.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/transforms/arrival_batch_source.h"
#include "traces/formats/trace_source.h"

namespace gpumux {
namespace {

using testing::TempFile;

JobSpec timed(double submit_s, double runtime_s) {
  JobSpec j;
  j.submit = Time::from_seconds(submit_s);
  j.runtime = Time::from_seconds(runtime_s);
  return j;
}

std::pair<double, double> whole(double submit_s, double runtime_s) {
  JobSpec j = timed(submit_s, runtime_s);
  to_integer_seconds(j);
  return {j.submit.seconds(), j.runtime.seconds()};
}

using Pair = std::pair<double, double>;

TEST(IntegerSeconds, SubmitRoundsHalfToEvenRuntimeTruncatesToAtLeastOneSecond) {
  EXPECT_EQ(whole(10.5, 12.7), Pair(10, 12));  // 10.5 -> 10 (even); 12.7 -> 12 (truncated)
  EXPECT_EQ(whole(11.5, 12.0), Pair(12, 12));  // 11.5 -> 12 (even)
  EXPECT_EQ(whole(10.4, 0.0), Pair(10, 1));    // a 0 s runtime becomes 1 s
  EXPECT_EQ(whole(10.6, 0.9), Pair(11, 1));    // as does a sub-second one
  EXPECT_EQ(whole(0.0, 3600.999), Pair(0, 3600));
}

TEST(IntegerSeconds, RankingForBatchesSeesTheRoundedSubmitTimes) {
  // Read: 2@10.2, 1@10.4, 3@10.6, 4@12. Rounded: 2@10, 1@10, 3@11, 4@12: jobs 1 and 2 now tie
  // and rank by id. Two per batch every 60 s: 1, 2 -> 0; 3, 4 -> 60.
  TempFile trace("t.csv",
                 "id,submit_s,gpus,runtime_s\n"
                 "2,10.2,1,0\n"
                 "1,10.4,1,5.5\n"
                 "3,10.6,1,7\n"
                 "4,12,1,9\n");
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  IntegerSecondsSource whole_seconds(*inner);
  ArrivalBatchSource batched(whole_seconds, 2, Time::from_seconds(60));
  std::vector<std::pair<std::string, Pair>> got;
  JobSpec job;
  while (batched.next(job)) {
    got.emplace_back(job.id, Pair(job.submit.seconds(), job.runtime.seconds()));
  }
  const std::vector<std::pair<std::string, Pair>> want = {
      {"1", {0, 5}}, {"2", {0, 1}}, {"3", {60, 7}}, {"4", {60, 9}}};
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace gpumux
