#include "traces/transforms/load_factor_source.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"

namespace gpumux {
namespace {

using testing::TempFile;

struct Read {
  std::vector<double> submits;
  std::vector<double> runtimes;
};

Read read_with_factor(const std::string& rows, double factor) {
  TempFile trace("t.csv", "id,submit_s,gpus,runtime_s\n" + rows);
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  LoadFactorSource compressed(*inner, factor);
  Read out;
  JobSpec job;
  while (compressed.next(job)) {
    out.submits.push_back(job.submit.seconds());
    out.runtimes.push_back(job.runtime.seconds());
  }
  return out;
}

const char* kRows =
    "a,100,1,50\n"
    "b,110,1,60\n"
    "c,130,2,70\n"
    "d,130,1,80\n"
    "e,190,1,90\n";

TEST(LoadFactor, TwoHalvesEveryInterArrivalGapAndKeepsRuntimes) {
  const Read as_read = read_with_factor(kRows, 1.0);
  const Read doubled = read_with_factor(kRows, 2.0);
  ASSERT_EQ(doubled.submits.size(), 5u);
  // The first arrival stays where it is; gaps 10, 20, 0, 60 become 5, 10, 0, 30.
  EXPECT_EQ(doubled.submits, (std::vector<double>{100, 105, 115, 115, 145}));
  for (std::size_t i = 1; i < as_read.submits.size(); ++i) {
    EXPECT_DOUBLE_EQ(doubled.submits[i] - doubled.submits[i - 1],
                     (as_read.submits[i] - as_read.submits[i - 1]) / 2);
  }
  EXPECT_EQ(doubled.runtimes, as_read.runtimes);
}

TEST(LoadFactor, BelowOneStretchesTheTrace) {
  const Read halved = read_with_factor(kRows, 0.5);
  EXPECT_EQ(halved.submits, (std::vector<double>{100, 120, 160, 160, 280}));
}

TEST(LoadFactor, OneLeavesSubmitTimesAsRead) {
  EXPECT_EQ(read_with_factor(kRows, 1.0).submits, (std::vector<double>{100, 110, 130, 130, 190}));
}

}  // namespace
}  // namespace gpumux
