// Progress lines: share of jobs done, estimate of the time left, and the expected job count.
#include "analysis/run/progress.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

TEST(Progress, LineGivesShareAndTimeLeft) {
  // 250 ended and 750 arrived: 1000 of the 2000 arrivals and ends, half the work, in 10 s.
  EXPECT_EQ(progress_line(250, 750, 1000, 7200, 10.0),
            "[gpumux] 25.0 % of 1000 jobs done (250; 750 arrived), simulated 2.0 h, 10.0 s "
            "elapsed, about 10.0 s left");
  // Unknown total, or more than expected (skipped rows were counted): counts only.
  EXPECT_EQ(progress_line(250, 300, std::nullopt, 1800, 1.0),
            "[gpumux] 250 jobs done (300 arrived), simulated 0.5 h, 1.0 s elapsed");
  EXPECT_EQ(progress_line(10, 1001, 1000, 0, 1.0),
            "[gpumux] 10 jobs done (1001 arrived), simulated 0.0 h, 1.0 s elapsed");
  EXPECT_EQ(progress_line(0, 0, 1000, 0, 0.0),
            "[gpumux] 0.0 % of 1000 jobs done (0; 0 arrived), simulated 0.0 h, 0.0 s elapsed");
}

TEST(Progress, ReporterCountsFinishedRejectedAndFailedJobs) {
  std::ostringstream out;
  ProgressReporter reporter(out, 4, std::chrono::steady_clock::duration::zero());
  ActiveJob job;
  for (int i = 0; i < 4; ++i) reporter.on_job_arrived(Time::zero(), job);
  reporter.on_job_finished(Time::from_seconds(3600), job);
  reporter.on_job_rejected(Time::from_seconds(3600), job, "too large");
  reporter.on_job_failed(Time::from_seconds(7200), job);
  const std::string text = out.str();
  EXPECT_NE(text.find("25.0 % of 4 jobs done (1; 4 arrived), simulated 1.0 h"), std::string::npos)
      << text;
  EXPECT_NE(text.find("50.0 % of 4 jobs done (2; 4 arrived)"), std::string::npos) << text;
  EXPECT_NE(text.find("75.0 % of 4 jobs done (3; 4 arrived), simulated 2.0 h"), std::string::npos)
      << text;
}

TEST(Progress, ExpectedJobCount) {
  Scenario generated;
  generated.trace.generated = true;
  generated.trace.generator.jobs = 123;
  EXPECT_EQ(expected_job_count(generated), 123u);

  testing::TempFile csv("t.csv", "id,submit_s,gpus,runtime_s\na,0,1,1\n\nb,1,1,1\nc,2,1,1");
  Scenario file;
  file.trace.path = csv.path();
  file.trace.format = "csv";
  EXPECT_EQ(expected_job_count(file), 3u);  // header and blank line left out, last line counted
  file.trace.format = "jsonl";
  EXPECT_EQ(expected_job_count(file), 4u);  // no header in JSON Lines
  file.trace.format = "alibaba-pai2020";
  EXPECT_FALSE(expected_job_count(file));
  file.trace.format = "csv";
  file.trace.path = csv.path() + ".missing";
  EXPECT_FALSE(expected_job_count(file));
}

// A gzipped trace counts its decompressed lines, as the trace readers read them.
TEST(Progress, ExpectedJobCountOfAGzipTrace) {
  if (!testing::can_test_gzip()) GTEST_SKIP() << "no zlib in this build, or no gzip command";
  testing::TempFile gz("t.csv.gz", "");
  testing::write_gzip(gz.path(), "id,submit_s,gpus,runtime_s\r\na,0,1,1\r\n\r\nb,1,1,1\r\n");
  Scenario file;
  file.trace.path = gz.path();
  file.trace.format = "csv";
  EXPECT_EQ(expected_job_count(file), 2u);
}

}  // namespace
}  // namespace gpumux
