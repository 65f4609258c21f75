// Out of memory in the engine: who dies, what work is lost, retries, failures, and that a GPU
// in fault recovery runs nothing.
#include <gtest/gtest.h>

#include <map>

#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;

struct FaultRecorder : EngineObserver {
  struct Kill {
    double at, lost_s;
  };
  std::map<std::string, std::vector<Kill>> kills;
  std::map<std::string, double> start, finish, failed;
  std::vector<std::size_t> cascades;
  void on_job_started(Time now, const ActiveJob& j) override {
    if (!start.count(j.spec.id)) start[j.spec.id] = now.seconds();
  }
  void on_job_finished(Time now, const ActiveJob& j) override { finish[j.spec.id] = now.seconds(); }
  void on_job_killed(Time now, const ActiveJob& j, double lost_us) override {
    kills[j.spec.id].push_back({now.seconds(), lost_us / 1e6});
  }
  void on_job_failed(Time now, const ActiveJob& j) override { failed[j.spec.id] = now.seconds(); }
  void on_memory_fault(Time, GpuIndex, std::size_t n) override { cascades.push_back(n); }
};

JobSpec with_memory(JobSpec j, std::int64_t mib, double checkpoint_s = 0) {
  j.memory = MemoryMiB(mib);
  j.checkpoint_interval = Time::from_seconds(checkpoint_s);
  return j;
}

FaultRecorder simulate_memory_faults(const SharingModel& model, std::vector<JobSpec> jobs,
                                     EngineOptions options, EngineStats* stats = nullptr) {
  Cluster cluster = testing::make_cluster(1, 1);  // one 16 GiB GPU
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source, options);
  FaultRecorder r;
  engine.add_observer(&r);
  const EngineStats s = engine.run();
  if (stats) *stats = s;
  return r;
}

TEST(MemoryFault, AllPolicyKillsEveryCoLocatedJobAndLosesWorkSinceCheckpoint) {
  testing::NoMemoryCheckModel model(OomPolicy::kAll, Time::from_seconds(5));
  EngineStats stats;
  // a runs alone from 0 with checkpoints every 30 s; b joins at 50 and memory overflows.
  auto r = simulate_memory_faults(
      model, {with_memory(job("a", 0, 1, 100), 10000, 30), with_memory(job("b", 50, 1, 10), 10000)},
      EngineOptions{Time::infinity(), 1, Time::from_seconds(10)}, &stats);
  ASSERT_FALSE(r.kills["a"].empty());
  EXPECT_DOUBLE_EQ(r.kills["a"][0].at, 50);
  EXPECT_DOUBLE_EQ(r.kills["a"][0].lost_s, 20);  // 50 s done, 30 s checkpointed
  EXPECT_DOUBLE_EQ(r.kills["b"][0].lost_s, 0);
  EXPECT_EQ(r.cascades.front(), 2u);
  // Both retry at 60, collide again, and exceed the retry limit of 1.
  EXPECT_EQ(r.kills["a"].size(), 2u);
  EXPECT_DOUBLE_EQ(r.kills["a"][1].lost_s, 0);  // it restarted from its checkpoint at 60
  EXPECT_TRUE(r.failed.count("a") && r.failed.count("b"));
  EXPECT_EQ(stats.failed, 2u);
  EXPECT_EQ(stats.memory_faults, 2u);
  EXPECT_TRUE(r.finish.empty());
}

TEST(MemoryFault, AllocatorPolicyKillsOnlyTheJobWhoseAllocationFailed) {
  testing::NoMemoryCheckModel model(OomPolicy::kAllocator, Time::zero());
  // b cannot fit next to a and dies at once; after the retry delay a is done and b runs alone.
  auto r = simulate_memory_faults(
      model, {with_memory(job("a", 0, 1, 20), 10000), with_memory(job("b", 5, 1, 10), 10000)},
      EngineOptions{Time::infinity(), 3, Time::from_seconds(30)});
  EXPECT_TRUE(r.kills["a"].empty());
  ASSERT_EQ(r.kills["b"].size(), 1u);
  EXPECT_DOUBLE_EQ(r.kills["b"][0].at, 5);
  EXPECT_EQ(r.cascades, (std::vector<std::size_t>{1}));
  EXPECT_DOUBLE_EQ(r.finish["a"], 20);  // a never slowed: b was gone the same instant
  EXPECT_DOUBLE_EQ(r.finish["b"], 45);  // requeued at 35, 10 s of work
}

TEST(MemoryFault, AllocatorKillsTheJobWhoseMemoryGrowsNotItsNeighbour) {
  testing::NoMemoryCheckModel model(OomPolicy::kAllocator, Time::zero());
  // a (placed first) uses 6000 MiB until 10 s of work, then 12000; b holds 8000 throughout.
  // At t = 20 (rate 1/2) a's rise overfills the GPU: a's own allocation fails, b runs on.
  JobSpec a = with_memory(job("a", 0, 1, 100), 12000);
  a.memory_profile = std::make_shared<const MemoryProfile>(
      "step", std::vector<MemoryProfile::Step>{{0, 0.5}, {10e6, 1.0}});
  EngineStats stats;
  auto r =
      simulate_memory_faults(model, {a, with_memory(job("b", 0, 1, 100), 8000)},
                             EngineOptions{Time::infinity(), 0, Time::from_seconds(10)}, &stats);
  ASSERT_EQ(r.kills["a"].size(), 1u);
  EXPECT_DOUBLE_EQ(r.kills["a"][0].at, 20);
  EXPECT_TRUE(r.kills["b"].empty()) << "b's memory did not change: its allocation never fails";
  EXPECT_TRUE(r.failed.count("a"));
  EXPECT_DOUBLE_EQ(r.finish["b"], 110);  // 10 s of work by t = 20, then alone
  EXPECT_EQ(stats.memory_faults, 1u);
  EXPECT_EQ(stats.memory_fault_kills, 1u);
}

TEST(MemoryFault, AllocatorWithSeveralAskersAtOnceKillsTheLaterPlacedUntilTheRestFits) {
  testing::NoMemoryCheckModel model(OomPolicy::kAllocator, Time::zero(), 4);
  // a holds 10000 MiB; b, c, d arrive together at 5 asking 4000, 4000 and 2000: b fits
  // (14000), c does not (18000), d still does (16000 of 16384). Only c dies.
  auto r = simulate_memory_faults(
      model,
      {with_memory(job("a", 0, 1, 100), 10000), with_memory(job("b", 5, 1, 10), 4000),
       with_memory(job("c", 5, 1, 10), 4000), with_memory(job("d", 5, 1, 10), 2000)},
      EngineOptions{Time::infinity(), 0, Time::from_seconds(10)});
  EXPECT_TRUE(r.kills["a"].empty());
  EXPECT_TRUE(r.kills["b"].empty());
  EXPECT_TRUE(r.kills["d"].empty());
  ASSERT_EQ(r.kills["c"].size(), 1u);
  EXPECT_DOUBLE_EQ(r.kills["c"][0].at, 5);
  EXPECT_EQ(r.cascades, (std::vector<std::size_t>{1}));
}

TEST(MemoryFault, AllStillKillsEveryJobWhenOneGrows) {
  testing::NoMemoryCheckModel model(OomPolicy::kAll, Time::from_seconds(5));
  JobSpec a = with_memory(job("a", 0, 1, 100), 12000);
  a.memory_profile = std::make_shared<const MemoryProfile>(
      "step", std::vector<MemoryProfile::Step>{{0, 0.5}, {10e6, 1.0}});
  EngineStats stats;
  auto r =
      simulate_memory_faults(model, {a, with_memory(job("b", 0, 1, 100), 8000)},
                             EngineOptions{Time::infinity(), 0, Time::from_seconds(10)}, &stats);
  ASSERT_EQ(r.kills["b"].size(), 1u);
  EXPECT_DOUBLE_EQ(r.kills["b"][0].at, 20);
  EXPECT_EQ(r.cascades, (std::vector<std::size_t>{2}));
  EXPECT_EQ(stats.memory_fault_kills, 2u);
}

TEST(MemoryFault, GpuInFaultRecoveryStartsNothing) {
  testing::NoMemoryCheckModel model(OomPolicy::kAll, Time::from_seconds(5));
  // a and b overflow at 50 and wait 100 s to retry; c arrives at 51 and must wait for the
  // recovery to end at 55.
  auto r = simulate_memory_faults(
      model,
      {with_memory(job("a", 0, 1, 100), 10000), with_memory(job("b", 50, 1, 10), 10000),
       with_memory(job("c", 51, 1, 10), 1000)},
      EngineOptions{Time::infinity(), 0, Time::from_seconds(100)});
  EXPECT_DOUBLE_EQ(r.start["c"], 55);
  EXPECT_DOUBLE_EQ(r.finish["c"], 65);
}

TEST(MemoryFault, AMemorySpikeFaultsWhenTheProfileRisesNotAtAdmission) {
  testing::NoMemoryCheckModel model(OomPolicy::kAll, Time::zero());
  // a: peak 12000 MiB but 6000 until 10 s of progress; b: 9000 MiB throughout. Together they
  // fit (15000 of 16384) until a reaches 10 s of work: at rate 1/2 that is t = 20.
  JobSpec a = with_memory(job("a", 0, 1, 100), 12000);
  a.memory_profile = std::make_shared<const MemoryProfile>(
      "step", std::vector<MemoryProfile::Step>{{0, 0.5}, {10e6, 1.0}});
  EngineStats stats;
  auto r =
      simulate_memory_faults(model, {a, with_memory(job("b", 0, 1, 100), 9000)},
                             EngineOptions{Time::infinity(), 0, Time::from_seconds(10)}, &stats);
  EXPECT_EQ(stats.memory_faults, 1u);
  ASSERT_EQ(r.kills["a"].size(), 1u);
  EXPECT_DOUBLE_EQ(r.kills["a"][0].at, 20);
  EXPECT_DOUBLE_EQ(r.kills["b"][0].at, 20);
}

TEST(MemoryFault, FittingMemoryNeverFaults) {
  testing::NoMemoryCheckModel model(OomPolicy::kAll, Time::from_seconds(5));
  EngineStats stats;
  auto r = simulate_memory_faults(
      model, {with_memory(job("a", 0, 1, 10), 8000), with_memory(job("b", 0, 1, 10), 8000)},
      EngineOptions{}, &stats);
  EXPECT_EQ(stats.memory_faults, 0u);
  EXPECT_DOUBLE_EQ(r.finish["a"], 20);
  EXPECT_DOUBLE_EQ(r.finish["b"], 20);
}

}  // namespace
}  // namespace gpumux

namespace gpumux {
namespace {

// Limits from JobSpec::memory_limit; up to 3 jobs per GPU without a memory check.
class PinnedLimitModel : public testing::NoMemoryCheckModel {
 public:
  PinnedLimitModel() : NoMemoryCheckModel(OomPolicy::kOffender, Time::zero(), 3) {}
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override {
    limits_.clear();
    for (const JobSpec* j : gpu.residents) limits_.push_back(j->memory_limit);
    return apply_oom_policy(OomPolicy::kOffender, gpu, Time::zero(), killed, recovery, limits_);
  }

 private:
  mutable std::vector<MemoryMiB> limits_;
};

TEST(MemoryFault, AllKillsTheWholeGpuButOffenderOnlyTheJobOverItsLimit) {
  // Three co-located jobs; c's memory profile rises past its pinned 4000 MiB at 10 s of work
  // (t = 30 at rate 1/3) while the GPU still has room (3000 + 3000 + 6000 < 16384).
  auto jobs = [] {
    JobSpec a = with_memory(job("a", 0, 1, 100), 3000), b = with_memory(job("b", 0, 1, 100), 3000);
    JobSpec c = with_memory(job("c", 0, 1, 100), 6000);
    c.memory_limit = MemoryMiB(4000);
    c.memory_profile = std::make_shared<const MemoryProfile>(
        "rise", std::vector<MemoryProfile::Step>{{0, 0.5}, {10e6, 1.0}});
    return std::vector<JobSpec>{a, b, c};
  };
  PinnedLimitModel offender;
  EngineStats stats;
  auto r = simulate_memory_faults(
      offender, jobs(), EngineOptions{Time::infinity(), 0, Time::from_seconds(10)}, &stats);
  ASSERT_EQ(r.kills["c"].size(), 1u);
  EXPECT_DOUBLE_EQ(r.kills["c"][0].at, 30);
  EXPECT_TRUE(r.kills["a"].empty());
  EXPECT_TRUE(r.kills["b"].empty());
  EXPECT_EQ(r.cascades, (std::vector<std::size_t>{1}));

  // The same GPU overfilled (a third 12000 MiB job) under `all`: every co-located job dies.
  testing::NoMemoryCheckModel all(OomPolicy::kAll, Time::from_seconds(5), 3);
  auto overfull = jobs();
  overfull[2].memory = MemoryMiB(12000);
  overfull[2].memory_limit = MemoryMiB(0);
  auto r2 = simulate_memory_faults(all, overfull,
                                   EngineOptions{Time::infinity(), 0, Time::from_seconds(10)});
  EXPECT_EQ(r2.cascades, (std::vector<std::size_t>{3}));
  EXPECT_EQ(r2.failed.size(), 3u);
}

}  // namespace
}  // namespace gpumux
