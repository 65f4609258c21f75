// analysis/metrics/kind_metrics.h: job metrics per kind of job.
#include "analysis/metrics/kind_metrics.h"

#include <gtest/gtest.h>

#include <memory>

#include "sim/core/service.h"

namespace gpumux {
namespace {

JobSpec job_of(JobKind kind, bool service, double runtime_s) {
  JobSpec j;
  j.kind = kind;
  j.runtime = Time::from_seconds(runtime_s);
  if (service) j.service = std::make_shared<ServiceSpec>();
  return j;
}

TEST(KindMetricsUnit, OneKindAloneIsNotSplit) {
  KindMetrics k;
  const JobSpec training = job_of(JobKind::kTraining, false, 10);
  k.arrived(training);
  k.finished(training, 12, 2);
  EXPECT_TRUE(k.to_json().is_null());
}

TEST(KindMetricsUnit, EachKindCountsItsOwnJobsAndOnlyKindsThatArrivedAreListed) {
  KindMetrics k;
  const JobSpec training = job_of(JobKind::kTraining, false, 10);
  const JobSpec service = job_of(JobKind::kInference, true, 0);  // a lifetime of 0: no slowdown
  for (int i = 0; i < 3; ++i) k.arrived(training);
  k.arrived(service);
  k.finished(training, 20, 10);
  k.finished(training, 10, 0);
  k.finished(service, 5, 1);
  const nlohmann::json j = k.to_json();
  ASSERT_TRUE(j.is_object());
  EXPECT_FALSE(j.contains("inference"));  // no batch inference job arrived
  EXPECT_EQ(j["training"]["arrived"], 3);
  EXPECT_EQ(j["training"]["finished"], 2);
  EXPECT_DOUBLE_EQ(j["training"]["jct_s"]["mean"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(j["training"]["queueing_delay_s"]["max"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(j["training"]["slowdown"]["max"].get<double>(), 2.0);
  EXPECT_EQ(j["services"]["finished"], 1);
  EXPECT_EQ(j["services"]["slowdown"]["count"], 0);
}

TEST(KindMetricsUnit, BatchInferenceIsItsOwnKind) {
  KindMetrics k;
  k.arrived(job_of(JobKind::kInference, false, 5));
  k.arrived(job_of(JobKind::kTraining, false, 5));
  const nlohmann::json j = k.to_json();
  EXPECT_EQ(j["inference"]["arrived"], 1);
  EXPECT_EQ(j["training"]["arrived"], 1);
  EXPECT_EQ(j["inference"]["finished"], 0);
}

}  // namespace
}  // namespace gpumux
