#include "traces/transforms/inflation_source.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/base/input_error.h"

namespace gpumux {
namespace {

// A list held in memory, handed out in order.
class ListSource : public JobSource {
 public:
  explicit ListSource(std::vector<JobSpec> jobs) : jobs_(std::move(jobs)) {}
  bool next(JobSpec& job) override {
    if (i_ >= jobs_.size()) return false;
    job = jobs_[i_++];
    return true;
  }

 private:
  std::vector<JobSpec> jobs_;
  std::size_t i_ = 0;
};

JobSpec job(const std::string& id, int gpus, int milli, double runtime_s) {
  JobSpec j;
  j.id = id;
  j.gpus = gpus;
  j.gpu_milli = milli;
  j.runtime = Time::from_seconds(runtime_s);
  return j;
}

// short: 1 x 500 milli for 100 s; edge: 1 x 1000 for exactly the clip (600 s); long: 2 x 1000
// for 5,000 s, past the clip.
std::vector<JobSpec> list() {
  return {job("short", 1, 500, 100), job("edge", 1, 1000, 600), job("long", 2, 1000, 5000)};
}

// The list job an arrival copies: its id up to '#'.
std::string base_id(const std::string& id) { return id.substr(0, id.find('#')); }

// Draws `n` arrivals and the runtimes they carry, per list job.
std::map<std::string, std::vector<Time>> runtimes_by_job(InflatingSource& source, int n) {
  std::map<std::string, std::vector<Time>> out;
  JobSpec j;
  for (int k = 0; k < n; ++k) {
    EXPECT_TRUE(source.next(j));
    out[base_id(j.id)].push_back(j.runtime);
  }
  return out;
}

TEST(InflatingSource, ClipsRuntimesLongerThanMaxRuntimeToExactlyIt) {
  ListSource upstream(list());
  InflationConfig config;
  config.load = 1.0;
  config.jobs = 300;
  config.max_runtime = Time::from_seconds(600);
  InflatingSource source(upstream, config, 8000, 7, "s.json#/trace/inflation");
  const auto runtimes = runtimes_by_job(source, 300);
  ASSERT_EQ(runtimes.size(), 3u) << "300 uniform draws from 3 jobs reach each of them";
  // Longer than the clip: exactly the clip. Shorter, or equal to it: unchanged.
  for (Time t : runtimes.at("long")) EXPECT_EQ(t, Time::from_seconds(600));
  for (Time t : runtimes.at("edge")) EXPECT_EQ(t, Time::from_seconds(600));
  for (Time t : runtimes.at("short")) EXPECT_EQ(t, Time::from_seconds(100));
  EXPECT_EQ(source.clipped(), 1u);  // "edge" is not longer than the clip
  EXPECT_EQ(source.list_size(), 3u);
  // The rate follows the clipped demand (gpus x milli x runtime, milli-GPU-s):
  // 1 x 500 x 100 + 1 x 1000 x 600 + 2 x 1000 x 600 = 1,850,000, mean 1,850,000 / 3; load 1.0
  // of 8,000 milli-GPU gives 8,000 x 3 / 1,850,000 arrivals per second.
  EXPECT_DOUBLE_EQ(source.arrivals_per_s(), 8000.0 * 3.0 / 1'850'000.0);
}

TEST(InflatingSource, WithoutMaxRuntimeNothingIsClipped) {
  ListSource upstream(list());
  InflationConfig config;
  config.load = 1.0;
  config.jobs = 300;
  InflatingSource source(upstream, config, 8000, 7, "s.json#/trace/inflation");
  const auto runtimes = runtimes_by_job(source, 300);
  ASSERT_EQ(runtimes.size(), 3u);
  for (Time t : runtimes.at("long")) EXPECT_EQ(t, Time::from_seconds(5000));
  for (Time t : runtimes.at("edge")) EXPECT_EQ(t, Time::from_seconds(600));
  for (Time t : runtimes.at("short")) EXPECT_EQ(t, Time::from_seconds(100));
  EXPECT_EQ(source.clipped(), 0u);
  // 1 x 500 x 100 + 1 x 1000 x 600 + 2 x 1000 x 5000 = 10,650,000 milli-GPU-s over 3 jobs.
  EXPECT_DOUBLE_EQ(source.arrivals_per_s(), 8000.0 * 3.0 / 10'650'000.0);
}

TEST(InflatingSource, ClipOnlyShortensItNeverChangesOtherFieldsOrTheDraws) {
  // The same seed with and without the clip draws the same list jobs at the same times (the
  // rate differs, so only the order of draws is compared), with the same gang and share.
  ListSource a(list()), b(list());
  InflationConfig clipped;
  clipped.load = 1.0;
  clipped.jobs = 50;
  clipped.max_runtime = Time::from_seconds(600);
  InflationConfig plain = clipped;
  plain.max_runtime = Time::zero();
  InflatingSource sa(a, clipped, 8000, 9, "w"), sb(b, plain, 8000, 9, "w");
  JobSpec ja, jb;
  for (int k = 0; k < 50; ++k) {
    ASSERT_TRUE(sa.next(ja));
    ASSERT_TRUE(sb.next(jb));
    EXPECT_EQ(ja.id, jb.id);
    EXPECT_EQ(ja.gpus, jb.gpus);
    EXPECT_EQ(ja.gpu_milli, jb.gpu_milli);
    EXPECT_LE(ja.runtime, jb.runtime);
  }
  EXPECT_FALSE(sa.next(ja));
}

}  // namespace
}  // namespace gpumux
