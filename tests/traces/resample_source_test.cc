#include "traces/transforms/resample_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gpumux {
namespace {

// A list held in memory, handed out in order.
class SkippingListSource : public JobSource {
 public:
  explicit SkippingListSource(std::vector<JobSpec> jobs) : jobs_(std::move(jobs)) {}
  bool next(JobSpec& job) override {
    if (i_ >= jobs_.size()) return false;
    job = jobs_[i_++];
    return true;
  }
  std::uint64_t skipped_rows() const override { return 7; }

 private:
  std::vector<JobSpec> jobs_;
  std::size_t i_ = 0;
};

// `n` jobs that differ in every field a copy must keep: gang sizes 1..8, inference services
// (a shared spec) among training jobs, submit times with ties (two jobs per instant).
std::vector<JobSpec> varied_list(int n) {
  auto service = std::make_shared<ServiceSpec>();
  service->rate_per_s = 5.0;
  std::vector<JobSpec> out;
  for (int i = 0; i < n; ++i) {
    JobSpec j;
    j.id = "job" + std::to_string(i);
    j.submit = Time::from_seconds(10.0 * (i / 2));
    j.gpus = 1 + i % 8;
    j.runtime = Time::from_seconds(100 + i);
    j.sm_util = 0.1 + 0.01 * i;
    j.memory = MemoryMiB(1024 + i);
    j.cpus = 0.5 * i;
    j.gpu_milli = 1000 - i;
    j.tenant = "t" + std::to_string(i % 3);
    j.priority = i % 5;
    if (i % 4 == 3) {
      j.kind = JobKind::kInference;
      j.service = service;
    }
    out.push_back(j);
  }
  return out;
}

// Every field but the id and submit time, for comparing a copy with its list job.
auto fields_of(const JobSpec& j) {
  return std::make_tuple(j.gpus, j.runtime.us(), j.sm_util, j.sm_share, j.mem_bw_util,
                         j.memory.mib(), j.cpus, j.gpu_milli, j.kind, j.mig_profile, j.tenant,
                         j.priority, j.kernel_length.us(), j.checkpoint_interval.us(),
                         j.service.get(), j.memory_profile.get(), j.defaulted_fields);
}

std::vector<JobSpec> drain_jobs(JobSource& source) {
  std::vector<JobSpec> out;
  JobSpec j;
  while (source.next(j)) out.push_back(j);
  return out;
}

std::vector<JobSpec> resample(const std::vector<JobSpec>& list, ResampleMethod method,
                              std::uint64_t seed) {
  SkippingListSource upstream(list);
  ResamplingSource source(upstream, method, seed, "s.json#/trace/resample");
  return drain_jobs(source);
}

// The list job a bootstrap copy comes from (its id up to the last '#') and its copy number.
std::pair<std::string, int> split_id(const std::string& id) {
  const auto hash = id.rfind('#');
  EXPECT_NE(hash, std::string::npos) << id;
  return {id.substr(0, hash), std::stoi(id.substr(hash + 1))};
}

TEST(ResamplingSource, BootstrapKeepsTheCountAndEveryCopyIsAListJobWithItsSubmitTime) {
  const auto list = varied_list(40);
  std::map<std::string, const JobSpec*> by_id;
  for (const auto& j : list) by_id[j.id] = &j;
  const auto out = resample(list, ResampleMethod::kBootstrap, 11);
  ASSERT_EQ(out.size(), list.size());
  std::set<std::string> ids;
  std::map<std::string, int> copies;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto [base, copy] = split_id(out[k].id);
    ASSERT_TRUE(by_id.count(base)) << out[k].id;
    const JobSpec& original = *by_id.at(base);
    EXPECT_EQ(fields_of(out[k]), fields_of(original)) << out[k].id;
    EXPECT_EQ(out[k].submit, original.submit) << out[k].id;
    EXPECT_TRUE(ids.insert(out[k].id).second) << "id given twice: " << out[k].id;
    // Copies of one job are numbered 1, 2, ... in a row.
    EXPECT_EQ(copy, ++copies[base]) << out[k].id;
    if (k > 0) EXPECT_LE(out[k - 1].submit, out[k].submit);
  }
  // Some job drawn twice or more, and so some never (40 draws of 40 collide almost surely).
  EXPECT_LT(copies.size(), list.size());
}

TEST(ResamplingSource, BootstrapTiesKeepTheListOrder) {
  // job0 and job1 share an instant: any copy of job0 comes before any of job1.
  const auto list = varied_list(40);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::vector<int> order;
    for (const auto& j : resample(list, ResampleMethod::kBootstrap, seed)) {
      order.push_back(std::stoi(split_id(j.id).first.substr(3)));
    }
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << "seed " << seed;
  }
}

TEST(ResamplingSource, TheSameSeedDrawsTheSameListAndOtherSeedsDrawOthers) {
  const auto list = varied_list(40);
  auto ids = [&](std::uint64_t seed, ResampleMethod method) {
    std::vector<std::string> out;
    for (const auto& j : resample(list, method, seed)) out.push_back(j.id);
    return out;
  };
  for (ResampleMethod m : {ResampleMethod::kBootstrap, ResampleMethod::kArrivalOrder}) {
    EXPECT_EQ(ids(5, m), ids(5, m)) << resample_method_name(m);
    EXPECT_NE(ids(5, m), ids(6, m)) << resample_method_name(m);
  }
}

// The number of distinct list jobs among N draws of N has mean N (1 - (1 - 1/N)^N), close to
// N (1 - 1/e), and variance N (N - 1) (1 - 2/N)^N + N (1 - 1/N)^N - N^2 (1 - 1/N)^(2N) (sums
// over the indicators "job i drawn" and their pairs). The mean fraction over R seeds must lie
// within 5 standard errors of its expectation.
TEST(ResamplingSource, BootstrapDrawsAboutOneMinusOneOverEOfTheJobs) {
  const int n = 100, seeds = 300;
  const auto list = varied_list(n);
  double sum = 0.0;
  std::map<std::string, int> drawn;  // copies per list job over every seed
  for (int s = 0; s < seeds; ++s) {
    SkippingListSource upstream(list);
    ResamplingSource source(upstream, ResampleMethod::kBootstrap, 1000 + s, "w");
    const auto out = drain_jobs(source);
    ASSERT_EQ(source.list_size(), static_cast<std::size_t>(n));
    std::set<std::string> distinct;
    for (const auto& j : out) {
      distinct.insert(split_id(j.id).first);
      ++drawn[split_id(j.id).first];
    }
    EXPECT_EQ(source.distinct_jobs(), distinct.size());
    sum += static_cast<double>(distinct.size()) / n;
  }
  const double N = n;
  const double q1 = std::pow(1.0 - 1.0 / N, N), q2 = std::pow(1.0 - 2.0 / N, N);
  const double expected = 1.0 - q1;
  const double variance = N * (N - 1) * q2 + N * q1 - N * N * q1 * q1;
  const double standard_error = std::sqrt(variance) / N / std::sqrt(double{seeds});
  EXPECT_NEAR(sum / seeds, expected, 5.0 * standard_error);
  EXPECT_NEAR(expected, 1.0 - std::exp(-1.0), 0.002);  // N = 100 is near the limit
  // Each list job is drawn Binomial(N x R, 1/N) times: mean R, variance R (1 - 1/N).
  ASSERT_EQ(drawn.size(), list.size());
  for (const auto& [id, count] : drawn) {
    EXPECT_NEAR(count, seeds, 5.0 * std::sqrt(seeds * (1.0 - 1.0 / N))) << id;
  }
}

TEST(ResamplingSource, ArrivalOrderKeepsTheInstantsAndShufflesTheJobsOverThem) {
  const auto list = varied_list(40);
  std::map<std::string, const JobSpec*> by_id;
  for (const auto& j : list) by_id[j.id] = &j;
  SkippingListSource upstream(list);
  ResamplingSource source(upstream, ResampleMethod::kArrivalOrder, 3, "w");
  const auto out = drain_jobs(source);
  ASSERT_EQ(out.size(), list.size());
  EXPECT_EQ(source.distinct_jobs(), list.size());
  std::set<std::string> ids;
  bool moved = false;
  for (std::size_t k = 0; k < out.size(); ++k) {
    // Position k keeps the list's k-th instant (the multiset of submit times, in order).
    EXPECT_EQ(out[k].submit, list[k].submit);
    ASSERT_TRUE(by_id.count(out[k].id)) << out[k].id;
    EXPECT_EQ(fields_of(out[k]), fields_of(*by_id.at(out[k].id))) << out[k].id;
    EXPECT_TRUE(ids.insert(out[k].id).second) << out[k].id;
    moved |= out[k].id != list[k].id;
  }
  EXPECT_TRUE(moved);
  EXPECT_EQ(source.skipped_rows(), 7u);  // the upstream's count
}

// Every one of the 3! orders of three jobs about equally often: 1/6 of 1,200 seeds each,
// within 5 standard deviations of the binomial count.
TEST(ResamplingSource, ArrivalOrderDrawsEveryPermutationAlike) {
  const auto list = varied_list(3);
  const int seeds = 1200;
  std::map<std::string, int> orders;
  for (int s = 0; s < seeds; ++s) {
    std::string order;
    for (const auto& j : resample(list, ResampleMethod::kArrivalOrder, s)) order += j.id.back();
    ++orders[order];
  }
  ASSERT_EQ(orders.size(), 6u);
  const double p = 1.0 / 6.0;
  for (const auto& [order, count] : orders) {
    EXPECT_NEAR(count, seeds * p, 5.0 * std::sqrt(seeds * p * (1 - p))) << order;
  }
}

TEST(ResamplingSource, AnEmptyListGivesNoJob) {
  for (ResampleMethod m : {ResampleMethod::kBootstrap, ResampleMethod::kArrivalOrder}) {
    EXPECT_TRUE(resample({}, m, 1).empty()) << resample_method_name(m);
  }
}

}  // namespace
}  // namespace gpumux
