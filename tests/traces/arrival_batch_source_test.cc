#include "traces/formats/trace_opening.h"
#include "traces/transforms/arrival_batch_source.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/formats/trace_source.h"

namespace gpumux {
namespace {

using testing::TempFile;

std::vector<std::pair<std::string, double>> drain(JobSource& source) {
  std::vector<std::pair<std::string, double>> out;
  JobSpec job;
  while (source.next(job)) out.emplace_back(job.id, job.submit.seconds());
  return out;
}

using Rows = std::vector<std::pair<std::string, double>>;

TEST(ArrivalBatchSource, RanksBySubmitThenIdAndRewritesToBatchStarts) {
  // Rank by (submit, id): 3@0, 12@0 (numeric ids: 3 < 12), 5@10, a@10, b@10, 1@30, 2@31.
  // Two jobs per batch, every 60 s: ranks 0-1 -> 0, 2-3 -> 60, 4-5 -> 120, 6 -> 180.
  TempFile trace("t.csv",
                 "id,submit_s,gpus,runtime_s\n"
                 "12,0,1,100\n"
                 "3,0,1,100\n"
                 "b,10,1,100\n"
                 "5,10,2,100\n"
                 "a,10,1,100\n"
                 "1,30,1,100\n"
                 "2,31,1,100\n");
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  ArrivalBatchSource batched(*inner, 2, Time::from_seconds(60));
  EXPECT_EQ(drain(batched),
            (Rows{{"3", 0}, {"12", 0}, {"5", 60}, {"a", 60}, {"b", 120}, {"1", 120}, {"2", 180}}));
}

TEST(ArrivalBatchSource, OneJobPerBatchSpacesEveryJobAndZeroIntervalCollapses) {
  TempFile trace("t.csv", "id,submit_s,gpus,runtime_s\nx,5,1,1\ny,7,1,1\nz,7,1,1\n");
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  ArrivalBatchSource spaced(*inner, 1, Time::from_seconds(0.5));
  EXPECT_EQ(drain(spaced), (Rows{{"x", 0}, {"y", 0.5}, {"z", 1.0}}));

  auto again = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  ArrivalBatchSource together(*again, 1000, Time::zero());
  EXPECT_EQ(drain(together), (Rows{{"x", 0}, {"y", 0}, {"z", 0}}));
}

TEST(ArrivalBatchSource, KeepsEveryOtherFieldAndTheSkippedRowCount) {
  TempFile trace("t.csv", "id,submit_s,gpus,runtime_s\n# note\nj,100,4,250\n");
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  ArrivalBatchSource batched(*inner, 10, Time::from_seconds(60));
  JobSpec job;
  ASSERT_TRUE(batched.next(job));
  EXPECT_EQ(job.submit, Time::zero());
  EXPECT_EQ(job.gpus, 4);
  EXPECT_EQ(job.runtime, Time::from_seconds(250));
  EXPECT_FALSE(batched.next(job));
  EXPECT_FALSE(batched.next(job));  // stays at the end
  EXPECT_EQ(batched.skipped_rows(), inner->skipped_rows());
}

}  // namespace
}  // namespace gpumux
