#include "analysis/metrics/metrics_collector.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace gpumux {
namespace {

ActiveJob make_job(const char* id, double submit, double runtime) {
  ActiveJob j;
  j.spec.id = id;
  j.spec.submit = Time::from_seconds(submit);
  j.spec.runtime = Time::from_seconds(runtime);
  j.spec.gpus = 1;
  j.gpus = {0};
  return j;
}

GpuState gpu_with(std::size_t residents, double busy) {
  GpuState g;
  for (std::size_t i = 0; i < residents; ++i) g.residents.push_back(static_cast<JobSlot>(i));
  g.load.useful_busy = busy;
  return g;
}

// Two GPUs; one job runs on GPU 0 from t=0 to t=10 at busy 0.5, after waiting 0 s; another
// arrives at 0, waits until 10 and runs on GPU 0 until 30 at busy 1.0. The run ends at 30.
TEST(MetricsCollector, TimeWeightedRatiosAndJobStatistics) {
  std::ostringstream jobs, series;
  MetricsCollector m(2, Time::from_seconds(10), &jobs, &series);
  ActiveJob a = make_job("a", 0, 10), b = make_job("b", 0, 20);
  m.on_job_arrived(Time::zero(), a);
  m.on_job_arrived(Time::zero(), b);
  a.start = Time::zero();
  m.on_job_started(Time::zero(), a);
  m.on_gpu_changed(Time::zero(), 0, gpu_with(1, 0.5));
  m.on_job_finished(Time::from_seconds(10), a);
  m.on_gpu_changed(Time::from_seconds(10), 0, gpu_with(0, 0));
  b.start = Time::from_seconds(10);
  m.on_job_started(Time::from_seconds(10), b);
  m.on_gpu_changed(Time::from_seconds(10), 0, gpu_with(1, 1.0));
  m.on_job_finished(Time::from_seconds(30), b);
  m.on_gpu_changed(Time::from_seconds(30), 0, gpu_with(0, 0));
  m.on_run_end(Time::from_seconds(30), {});
  const auto j = m.metrics();
  EXPECT_DOUBLE_EQ(j["makespan_s"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(j["gpu_allocation_ratio"].get<double>(), 30.0 / 60.0);
  EXPECT_DOUBLE_EQ(j["sm_busy_utilization"].get<double>(), (0.5 * 10 + 1.0 * 20) / 60.0);
  EXPECT_DOUBLE_EQ(j["jct_s"]["mean"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(j["queueing_delay_s"]["max"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(j["slowdown"]["max"].get<double>(), 1.5);
  EXPECT_EQ(j["peak_allocated_gpus"].get<int>(), 1);
  EXPECT_EQ(jobs.str(),
            "id,state,submit_s,gpus,runtime_s,start_s,finish_s,queue_s,jct_s,slowdown,"
            "placement_span,first_gpu,kills,reason,kind,tenant,memory_mib,sm_util,sm_share,"
            "device,mig_instance\n"
            "a,finished,0,1,10,0,10,0,10,1,same-gpu,0,0,,training,,0,1,1,,\n"
            "b,finished,0,1,20,10,30,10,30,1.5,same-gpu,0,0,,training,,0,1,1,,\n");
  // Samples at 0, 10, 20 (state just before each instant's changes) and 30 (end).
  EXPECT_EQ(series.str(),
            "time_s,allocated_gpus,allocation_ratio,sm_busy,overhead,queued,running,finished,"
            "failed,memory_faults,fatal_faults,jobs_killed\n"
            "0,1,0.5,0.25,0,1,1,0,0,0,0,0\n"
            "10,1,0.5,0.5,0,0,1,1,0,0,0,0\n"
            "20,1,0.5,0.5,0,0,1,1,0,0,0,0\n"
            "30,0,0,0,0,0,0,2,0,0,0,0\n");
}

// A pooled cluster of 2 GPUs: its jobs hold amounts, no GPU, and allocation counts the GPUs'
// worth they hold. p (0.25 GPU) runs 0-10, c (CPU-only, 4 cores) 0-20, q (2 GPUs at sm_share
// 0.75: 1.5 GPUs) 5-20. Allocated: 0.25 on [0, 5), 1.75 on [5, 10), 1.5 on [10, 20): 25 GPU-s
// of the 40 the run's 20 s offer, a mean of 1.25 GPUs, a peak of 1.75.
TEST(MetricsCollector, PooledJobsCountTheirGpuAmountInAllocation) {
  std::ostringstream series;
  MetricsCollector m(2, Time::from_seconds(5), nullptr, &series);
  auto pooled = [](const char* id, double submit, int gpus, double share, double runtime) {
    ActiveJob j = make_job(id, submit, runtime);
    j.spec.gpus = gpus;
    j.spec.sm_share = share;
    j.gpus.clear();  // a pooled job holds no GPU
    j.start = Time::from_seconds(submit);
    return j;
  };
  ActiveJob p = pooled("p", 0, 1, 0.25, 10), c = pooled("c", 0, 0, 1.0, 20),
            q = pooled("q", 5, 2, 0.75, 15);
  c.spec.cpus = 4;
  for (ActiveJob* j : {&p, &c}) {
    m.on_job_arrived(Time::zero(), *j);
    m.on_job_started(Time::zero(), *j);
  }
  m.on_job_arrived(Time::from_seconds(5), q);
  m.on_job_started(Time::from_seconds(5), q);
  m.on_job_finished(Time::from_seconds(10), p);
  m.on_job_finished(Time::from_seconds(20), q);
  m.on_job_finished(Time::from_seconds(20), c);
  m.on_run_end(Time::from_seconds(20), {});
  const auto j = m.metrics();
  EXPECT_DOUBLE_EQ(j["gpu_allocation_ratio"].get<double>(), 25.0 / 40.0);
  EXPECT_DOUBLE_EQ(j["mean_allocated_gpus"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(j["peak_allocated_gpus"].get<double>(), 1.75);
  EXPECT_EQ(series.str(),
            "time_s,allocated_gpus,allocation_ratio,sm_busy,overhead,queued,running,finished,"
            "failed,memory_faults,fatal_faults,jobs_killed\n"
            "0,0.25,0.125,0,0,0,2,0,0,0,0,0\n"
            "5,1.75,0.875,0,0,0,3,0,0,0,0,0\n"
            "10,1.5,0.75,0,0,0,2,1,0,0,0,0\n"
            "15,1.5,0.75,0,0,0,2,1,0,0,0,0\n"
            "20,0,0,0,0,0,0,3,0,0,0,0\n");
}

TEST(MetricsCollector, RejectedAndUnfinishedJobsAreReportedNotDropped) {
  std::ostringstream jobs;
  MetricsCollector m(1, Time::from_seconds(60), &jobs, nullptr);
  ActiveJob r = make_job("r", 0, 5), q = make_job("q", 1, 5);
  m.on_job_arrived(Time::zero(), r);
  m.on_job_rejected(Time::zero(), r, "gang larger than the cluster");
  m.on_job_arrived(Time::from_seconds(1), q);
  q.phase = JobPhase::kQueued;
  const ActiveJob* left[] = {&q};
  m.on_run_end(Time::from_seconds(2), left);
  const auto j = m.metrics();
  EXPECT_EQ(j["jobs"]["rejected"].get<int>(), 1);
  EXPECT_EQ(j["jobs"]["unfinished_queued"].get<int>(), 1);
  EXPECT_NE(jobs.str().find("r,rejected,0,1,5,,,,,,,,0,gang larger than the cluster"),
            std::string::npos);
  EXPECT_NE(jobs.str().find("q,queued,1,1,5"), std::string::npos);
}

// Every job percentile says which arrived jobs it leaves out: 1 rejected, 1 failed, 2
// unfinished (one queued, one running), and for the slowdowns 1 finished zero-runtime job.
TEST(MetricsCollector, PercentilesCountTheJobsTheyLeaveOut) {
  MetricsCollector m(2, Time::from_seconds(60), nullptr, nullptr);
  ActiveJob rej = make_job("rej", 0, 5), fail = make_job("fail", 0, 5), zero = make_job("z", 0, 0),
            done = make_job("d", 0, 4), queued = make_job("q", 0, 5),
            running = make_job("r", 0, 50);
  for (ActiveJob* j : {&rej, &fail, &zero, &done, &queued, &running}) {
    m.on_job_arrived(Time::zero(), *j);
  }
  m.on_job_rejected(Time::zero(), rej, "too large");
  m.on_job_failed(Time::zero(), fail);
  for (ActiveJob* j : {&zero, &done, &running}) m.on_job_started(Time::zero(), *j);
  m.on_job_finished(Time::zero(), zero);
  m.on_job_finished(Time::from_seconds(4), done);
  queued.phase = JobPhase::kQueued;
  running.phase = JobPhase::kRunning;
  const ActiveJob* left[] = {&queued, &running};
  m.on_run_end(Time::from_seconds(10), left);
  const auto j = m.metrics();
  for (const char* key : {"jct_s", "queueing_delay_s", "slowdown", "sharing_slowdown"}) {
    SCOPED_TRACE(key);
    const auto& e = j[key]["excluded"];
    EXPECT_EQ(e["rejected"].get<int>(), 1);
    EXPECT_EQ(e["failed"].get<int>(), 1);
    EXPECT_EQ(e["unfinished"].get<int>(), 2);
  }
  EXPECT_EQ(j["jct_s"]["count"].get<int>(), 2);
  EXPECT_FALSE(j["jct_s"]["excluded"].contains("zero_runtime"));
  EXPECT_EQ(j["slowdown"]["count"].get<int>(), 1);
  EXPECT_EQ(j["slowdown"]["excluded"]["zero_runtime"].get<int>(), 1);
  EXPECT_EQ(j["sharing_slowdown"]["excluded"]["zero_runtime"].get<int>(), 1);
}

}  // namespace
}  // namespace gpumux
