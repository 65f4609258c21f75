// Fatal GPU faults in the engine: their rate (per process and GPU-hour), who dies (the model's
// blast radius), the GPU's recovery, determinism, and that a rate of 0 changes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;

struct FatalFaultRecorder : EngineObserver {
  std::map<std::string, std::vector<double>> kills;
  std::map<std::string, double> start, finish;
  std::vector<std::pair<double, std::size_t>> faults;  // (time, jobs killed)
  std::size_t memory_faults = 0;
  void on_job_started(Time now, const ActiveJob& j) override {
    if (!start.count(j.spec.id)) start[j.spec.id] = now.seconds();
  }
  void on_job_finished(Time now, const ActiveJob& j) override { finish[j.spec.id] = now.seconds(); }
  void on_job_killed(Time now, const ActiveJob& j, double) override {
    kills[j.spec.id].push_back(now.seconds());
  }
  void on_fatal_fault(Time now, GpuIndex, std::size_t n) override {
    faults.emplace_back(now.seconds(), n);
  }
  void on_memory_fault(Time, GpuIndex, std::size_t) override { ++memory_faults; }
};

// Processor sharing, up to `per_gpu` jobs per GPU; a fatal fault kills every resident and the GPU
// then recovers for `recovery` (the MPS shape), unless `blast` is false (the default hook).
class BlastModel : public testing::NoMemoryCheckModel {
 public:
  BlastModel(bool blast, Time recovery, std::size_t per_gpu = 2)
      : NoMemoryCheckModel(OomPolicy::kAllocator, Time::zero(), per_gpu),
        blast_(blast),
        recovery_(recovery) {}
  void fatal_fault(const GpuView& gpu, std::size_t faulting, std::span<std::uint8_t> killed,
                   Time& recovery) const override {
    if (!blast_) return SharingModel::fatal_fault(gpu, faulting, killed, recovery);
    for (auto& k : killed) k = 1;
    recovery = recovery_;
  }

 private:
  bool blast_;
  Time recovery_;
};

// A model that breaks the contract: the faulting process survives.
class SparingModel : public testing::NoMemoryCheckModel {
 public:
  SparingModel() : NoMemoryCheckModel(OomPolicy::kAllocator, Time::zero()) {}
  void fatal_fault(const GpuView&, std::size_t, std::span<std::uint8_t>,
                   Time& recovery) const override {
    recovery = Time::zero();
  }
};

EngineOptions with_faults(double per_gpu_hour, std::uint64_t seed = 7, int retry_limit = 1000) {
  EngineOptions o;
  o.retry_limit = retry_limit;
  o.retry_delay = Time::from_seconds(10);
  o.fatal_faults_per_gpu_hour = per_gpu_hour;
  o.fault_seed = seed;
  return o;
}

FatalFaultRecorder simulate_fatal_faults(const SharingModel& model, std::vector<JobSpec> jobs,
                                         EngineOptions options, EngineStats* stats = nullptr,
                                         int gpus = 1) {
  Cluster cluster = testing::make_cluster(1, gpus);
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source, options);
  FatalFaultRecorder r;
  engine.add_observer(&r);
  const EngineStats s = engine.run();
  if (stats) *stats = s;
  return r;
}

// Two one-hour jobs sharing a GPU, checkpointing every minute so that retries make progress.
std::vector<JobSpec> pair_of_long_jobs() {
  std::vector<JobSpec> jobs{job("a", 0, 1, 3600), job("b", 0, 1, 3600)};
  for (JobSpec& j : jobs) j.checkpoint_interval = Time::from_seconds(60);
  return jobs;
}

TEST(FatalFault, ByDefaultOnlyTheFaultingJobDies) {
  BlastModel model(false, Time::zero());
  EngineStats stats;
  // About one fault per process every 20 minutes: several faults in the pair's two hours.
  auto r = simulate_fatal_faults(model, pair_of_long_jobs(), with_faults(3.0), &stats);
  ASSERT_GE(r.faults.size(), 2u);
  for (const auto& [at, n] : r.faults) EXPECT_EQ(n, 1u) << "fault at " << at;
  EXPECT_EQ(stats.fatal_faults, r.faults.size());
  EXPECT_EQ(stats.fatal_fault_kills, stats.fatal_faults);
  EXPECT_EQ(stats.killed, stats.fatal_faults);
  EXPECT_EQ(stats.memory_faults, 0u);
  // The neighbour of a faulting job is never killed at the same instant.
  for (const double t : r.kills["a"]) {
    for (const double u : r.kills["b"]) EXPECT_NE(t, u);
  }
  EXPECT_EQ(r.finish.size(), 2u);  // they retry until done
}

TEST(FatalFault, ABlastRadiusModelKillsEveryCoResidentAndBlocksTheGpuForItsRecovery) {
  BlastModel model(true, Time::from_seconds(5.1));
  EngineStats stats;
  // a and b share the GPU; c waits for a place. Retries wait 1000 s, so c gets the GPU first,
  // but only once the recovery after the first fault is over.
  EngineOptions o = with_faults(3.0, 11, 0);
  o.retry_delay = Time::from_seconds(1000);
  auto r = simulate_fatal_faults(
      model, {job("a", 0, 1, 3600), job("b", 0, 1, 3600), job("c", 0, 1, 10)}, o, &stats);
  ASSERT_FALSE(r.faults.empty());
  const double first = r.faults.front().first;
  ASSERT_LT(first, 3600.0 * 2) << "the seed should fault before the pair finishes";
  EXPECT_EQ(r.faults.front().second, 2u);
  ASSERT_EQ(r.kills["a"].size(), 1u);
  ASSERT_EQ(r.kills["b"].size(), 1u);
  EXPECT_DOUBLE_EQ(r.kills["a"][0], first);
  EXPECT_DOUBLE_EQ(r.kills["b"][0], first);
  EXPECT_NEAR(r.start["c"], first + 5.1, 1e-6);
  EXPECT_EQ(stats.fatal_fault_kills, 2u * stats.fatal_faults);
}

TEST(FatalFault, RateZeroChangesNothing) {
  BlastModel model(true, Time::from_seconds(5));
  EngineStats off, zero;
  const auto a = simulate_fatal_faults(model, pair_of_long_jobs(), EngineOptions{}, &off);
  const auto b = simulate_fatal_faults(model, pair_of_long_jobs(), with_faults(0.0, 99, 3), &zero);
  EXPECT_EQ(a.finish, b.finish);
  EXPECT_EQ(off.events, zero.events);
  EXPECT_EQ(zero.fatal_faults, 0u);
  EXPECT_TRUE(b.faults.empty());
}

TEST(FatalFault, SameSeedSameFaultsOtherSeedOtherFaults) {
  BlastModel model(false, Time::zero());
  const auto a = simulate_fatal_faults(model, pair_of_long_jobs(), with_faults(3.0, 5));
  const auto b = simulate_fatal_faults(model, pair_of_long_jobs(), with_faults(3.0, 5));
  const auto c = simulate_fatal_faults(model, pair_of_long_jobs(), with_faults(3.0, 6));
  EXPECT_EQ(a.faults, b.faults);
  EXPECT_EQ(a.kills, b.kills);
  EXPECT_EQ(a.finish, b.finish);
  EXPECT_NE(a.faults, c.faults);
}

// The count of faults matches the rate x the GPU-hours run; a gang job of 2 GPUs has two
// processes and faults twice as often per job-hour.
TEST(FatalFault, CountFollowsTheRatePerGpuHour) {
  testing::NoMemoryCheckModel exclusive(OomPolicy::kAllocator, Time::zero(), 1);
  const double rate = 0.05;
  auto long_jobs = [](int n, int gpus) {
    std::vector<JobSpec> jobs;
    for (int i = 0; i < n; ++i) {
      JobSpec j = job("j" + std::to_string(i), 0, gpus, 100 * 3600.0);
      j.checkpoint_interval = Time::from_seconds(1);  // little work lost: GPU-hours ~ 1600
      jobs.push_back(j);
    }
    return jobs;
  };
  EngineStats single, gangs;
  simulate_fatal_faults(exclusive, long_jobs(16, 1), with_faults(rate, 3), &single, 16);
  simulate_fatal_faults(exclusive, long_jobs(8, 2), with_faults(rate, 3), &gangs, 16);
  const double expected = rate * 1600.0;  // 80, Poisson standard deviation ~9
  EXPECT_NEAR(static_cast<double>(single.fatal_faults), expected, 4 * std::sqrt(expected));
  EXPECT_NEAR(static_cast<double>(gangs.fatal_faults), expected, 4 * std::sqrt(expected));
  EXPECT_EQ(single.fatal_fault_kills, single.fatal_faults);
  EXPECT_EQ(gangs.fatal_fault_kills, gangs.fatal_faults);  // a gang job dies once per fault
}

TEST(FatalFault, AModelThatSparesTheFaultingProcessIsAnError) {
  SparingModel model;
  EXPECT_THROW(simulate_fatal_faults(model, pair_of_long_jobs(), with_faults(3.0)),
               std::logic_error);
}

}  // namespace
}  // namespace gpumux
