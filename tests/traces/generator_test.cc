#include "traces/formats/generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using json = nlohmann::json;

GeneratorSpec spec_from(const json& j) {
  JsonObject o(j, "g.json", "/trace/generator");
  return GeneratorSpec::parse(o);
}

std::vector<JobSpec> generate(const GeneratorSpec& spec, std::uint64_t seed) {
  GeneratedJobs gen(spec, seed);
  std::vector<JobSpec> jobs;
  JobSpec job;
  while (gen.next(job)) jobs.push_back(job);
  return jobs;
}

bool same_job(const JobSpec& a, const JobSpec& b) {
  return a.id == b.id && a.submit == b.submit && a.gpus == b.gpus && a.runtime == b.runtime &&
         a.sm_util == b.sm_util && a.sm_share == b.sm_share && a.memory == b.memory &&
         a.kind == b.kind && a.mig_profile == b.mig_profile && a.tenant == b.tenant &&
         a.priority == b.priority && a.kernel_length == b.kernel_length &&
         a.checkpoint_interval == b.checkpoint_interval;
}

// Inter-arrival gaps in seconds.
std::vector<double> gaps(const std::vector<JobSpec>& jobs) {
  std::vector<double> out;
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    out.push_back((jobs[i].submit - jobs[i - 1].submit).seconds());
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double coefficient_of_variation(const std::vector<double>& v) {
  const double m = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size())) / m;
}

TEST(GeneratorSpec, DefaultsAreDocumentedValues) {
  const auto s = spec_from(json::object());
  EXPECT_EQ(s.jobs, 1000u);
  EXPECT_EQ(s.process, "poisson");
  EXPECT_DOUBLE_EQ(s.rate_per_hour, 60.0);
  EXPECT_DOUBLE_EQ(s.inference_fraction, 0.0);
  const json j = s.to_json();
  EXPECT_EQ(j["jobs"], 1000);
  EXPECT_EQ(j["arrival"]["process"], "poisson");
  EXPECT_EQ(j["arrival"]["rate_per_hour"], 60.0);
  EXPECT_TRUE(j["runtime_s"].contains("lognormal"));
  EXPECT_TRUE(j["gpus"].contains("choice"));
  EXPECT_TRUE(j["memory_mib"].contains("choice"));
  for (const char* key :
       {"sm_util", "sm_share", "kernel_us", "checkpoint_s", "inference_fraction"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(GeneratorSpec, ReadsGivenValues) {
  const auto s = spec_from({{"jobs", 12},
                            {"arrival", {{"process", "bursty"}, {"rate_per_hour", 30}}},
                            {"gpus", 4},
                            {"inference_fraction", 0.5}});
  EXPECT_EQ(s.jobs, 12u);
  EXPECT_EQ(s.process, "bursty");
  EXPECT_DOUBLE_EQ(s.rate_per_hour, 30.0);
  EXPECT_TRUE(s.gpus.is_constant());
  EXPECT_DOUBLE_EQ(s.inference_fraction, 0.5);
  EXPECT_EQ(s.to_json()["gpus"], 4);
}

struct BadSpec {
  const char* label;
  json value;
  const char* where;
  const char* field;
};

void PrintTo(const BadSpec& c, std::ostream* os) { *os << c.label; }

class BadGeneratorSpec : public ::testing::TestWithParam<BadSpec> {};

TEST_P(BadGeneratorSpec, NamesPointerAndField) {
  const auto& c = GetParam();
  const std::string msg = input_error_message([&] { spec_from(c.value); });
  EXPECT_THAT(msg, HasSubstr(std::string("g.json#") + c.where)) << c.label;
  EXPECT_THAT(msg, HasSubstr(std::string("field '") + c.field + "'")) << c.label;
}

INSTANTIATE_TEST_SUITE_P(
    All, BadGeneratorSpec,
    ::testing::Values(
        BadSpec{"zero_jobs", {{"jobs", 0}}, "/trace/generator/jobs", "jobs"},
        BadSpec{"fractional_jobs", {{"jobs", 1.5}}, "/trace/generator/jobs", "jobs"},
        BadSpec{"bad_process",
                {{"arrival", {{"process", "hawkes"}}}},
                "/trace/generator/arrival/process",
                "process"},
        BadSpec{"zero_rate",
                {{"arrival", {{"rate_per_hour", 0}}}},
                "/trace/generator/arrival/rate_per_hour",
                "rate_per_hour"},
        BadSpec{"burst_fraction_one",
                {{"arrival", {{"burst_fraction", 1.0}}}},
                "/trace/generator/arrival/burst_fraction",
                "burst_fraction"},
        BadSpec{"arrival_unknown_key",
                {{"arrival", {{"rate", 3}}}},
                "/trace/generator/arrival/rate",
                "rate"},
        BadSpec{"unknown_key", {{"job_count", 3}}, "/trace/generator/job_count", "job_count"},
        BadSpec{"gpus_zero", {{"gpus", {{"choice", {0, 1}}}}}, "/trace/generator/gpus", "gpus"},
        BadSpec{"sm_util_above_one",
                {{"sm_util", {{"uniform", {0.5, 1.5}}}}},
                "/trace/generator/sm_util",
                "sm_util"},
        BadSpec{"inference_fraction",
                {{"inference_fraction", 2}},
                "/trace/generator/inference_fraction",
                "inference_fraction"}),
    [](const auto& p) { return std::string(p.param.label); });

TEST(GeneratedJobs, EmitsExactlyTheRequestedJobsInOrder) {
  const auto jobs = generate(spec_from({{"jobs", 250}}), 5);
  ASSERT_EQ(jobs.size(), 250u);
  EXPECT_EQ(jobs[0].id, "g0");
  EXPECT_EQ(jobs[249].id, "g249");
  EXPECT_EQ(jobs[0].submit, Time::zero());
  for (std::size_t i = 1; i < jobs.size(); ++i) ASSERT_LE(jobs[i - 1].submit, jobs[i].submit);
  for (const auto& j : jobs) {
    EXPECT_GE(j.gpus, 1);
    EXPECT_GT(j.runtime, Time::zero());
    EXPECT_GT(j.sm_util, 0.0);
    EXPECT_LE(j.sm_util, 1.0);
    EXPECT_GT(j.sm_share, 0.0);
    EXPECT_LE(j.sm_share, 1.0);
    EXPECT_GE(j.kernel_length, Time::from_us(5));
    EXPECT_EQ(j.kind, JobKind::kTraining);  // inference_fraction defaults to 0
  }
}

TEST(GeneratedJobs, SameSeedSameJobsDifferentSeedDifferentJobs) {
  const auto spec = spec_from({{"jobs", 300}, {"arrival", {{"process", "bursty"}}}});
  const auto a = generate(spec, 11);
  const auto b = generate(spec, 11);
  const auto c = generate(spec, 12);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), c.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(same_job(a[i], b[i])) << i;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differing += !same_job(a[i], c[i]);
  EXPECT_GT(differing, a.size() / 2);
}

TEST(GeneratedJobs, PoissonMeanInterArrivalIs3600OverRate) {
  for (double rate : {60.0, 720.0}) {
    const auto jobs =
        generate(spec_from({{"jobs", 40000}, {"arrival", {{"rate_per_hour", rate}}}}), 3);
    const auto g = gaps(jobs);
    // Standard error of the mean of 40k exponential gaps is 0.5% of the mean.
    EXPECT_NEAR(mean_of(g), 3600.0 / rate, 0.025 * 3600.0 / rate) << rate;
    EXPECT_NEAR(coefficient_of_variation(g), 1.0, 0.05) << rate;
  }
}

TEST(GeneratedJobs, BurstyKeepsTheLongRunRateButIsBurstier) {
  const double rate = 120.0;
  const auto jobs = generate(spec_from({{"jobs", 60000},
                                        {"arrival",
                                         {{"process", "bursty"},
                                          {"rate_per_hour", rate},
                                          {"burst_factor", 8},
                                          {"burst_fraction", 0.1},
                                          {"mean_burst_s", 600}}}}),
                             9);
  const auto g = gaps(jobs);
  EXPECT_NEAR(mean_of(g), 3600.0 / rate, 0.1 * 3600.0 / rate);  // seeds spread ~3%
  EXPECT_GT(coefficient_of_variation(g), 1.3);               // a Poisson process has 1.0
}

TEST(GeneratedJobs, BurstyStartsInABurstOnlyWithProbabilityBurstFraction) {
  // Bursts take 1% of the time and arrive 1000x faster than calm periods. A correct generator
  // starts calm in ~99% of runs, where the first gap is ~11 s on average; starting in a burst
  // gives a first gap of ~0.01 s.
  const auto spec = spec_from({{"jobs", 2},
                               {"arrival",
                                {{"process", "bursty"},
                                 {"rate_per_hour", 3600},
                                 {"burst_factor", 1000},
                                 {"burst_fraction", 0.01},
                                 {"mean_burst_s", 100}}}});
  int short_first_gap = 0;
  constexpr int kRuns = 100;
  for (int seed = 1; seed <= kRuns; ++seed) {
    const auto jobs = generate(spec, seed);
    short_first_gap += (jobs[1].submit - jobs[0].submit) < Time::from_seconds(0.1);
  }
  EXPECT_LE(short_first_gap, 8);
}

TEST(GeneratedJobs, GangMixFollowsWeights) {
  const auto jobs = generate(spec_from({{"jobs", 20000}}), 4);  // default mix 1/2/4/8
  std::map<int, int> count;
  for (const auto& j : jobs) ++count[j.gpus];
  ASSERT_EQ(count.size(), 4u);
  const double n = static_cast<double>(jobs.size());
  EXPECT_NEAR(count[1] / n, 0.7, 0.015);
  EXPECT_NEAR(count[2] / n, 0.1, 0.01);
  EXPECT_NEAR(count[4] / n, 0.1, 0.01);
  EXPECT_NEAR(count[8] / n, 0.1, 0.01);

  const auto custom = generate(
      spec_from({{"jobs", 20000}, {"gpus", {{"choice", {1, 16}}, {"weights", {1, 3}}}}}), 4);
  int big = 0;
  for (const auto& j : custom) {
    ASSERT_TRUE(j.gpus == 1 || j.gpus == 16) << j.gpus;
    big += j.gpus == 16;
  }
  EXPECT_NEAR(big / 20000.0, 0.75, 0.015);
}

TEST(GeneratedJobs, InferenceFractionAndConstantFields) {
  const auto jobs = generate(spec_from({{"jobs", 10000},
                                        {"inference_fraction", 0.25},
                                        {"runtime_s", 120},
                                        {"memory_mib", 2048},
                                        {"checkpoint_s", 60}}),
                             8);
  int inference = 0;
  for (const auto& j : jobs) {
    inference += j.kind == JobKind::kInference;
    ASSERT_EQ(j.runtime, Time::from_seconds(120));
    ASSERT_EQ(j.memory, MemoryMiB(2048));
    ASSERT_EQ(j.checkpoint_interval, Time::from_seconds(60));
  }
  EXPECT_NEAR(inference / 10000.0, 0.25, 0.02);
}

TEST(GeneratedJobs, RuntimeDefaultRespectsItsClamp) {
  const auto jobs = generate(spec_from({{"jobs", 5000}}), 2);
  for (const auto& j : jobs) {
    ASSERT_GE(j.runtime, Time::from_seconds(10));
    ASSERT_LE(j.runtime, Time::from_seconds(604800));
  }
}

}  // namespace
}  // namespace gpumux
