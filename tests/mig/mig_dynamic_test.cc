// Dynamic repartitioning with the mig model: candidate layouts, the choice of GPU and layout,
// hysteresis, and an engine run where a blocked job gets its instance after a drain.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "models/mig/mig_model.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

using mig_test::device;
using mig_test::job;

// Candidate 0: seven 1g.5gb; candidate 1: 4g.20gb + 3g.20gb; candidate 2: MIG off.
MigModel dynamic_model(double hysteresis_s = 0) {
  const nlohmann::json params = {
      {"layouts", {mig_test::times(7, "1g.5gb"), {"4g.20gb", "3g.20gb"}, nlohmann::json::array()}},
      {"repartition",
       {{"reconfiguration_s", 10}, {"reset_s", 60}, {"hysteresis_s", hysteresis_s}}}};
  JsonObject o(params, "s.json", "/sharing/params");
  return MigModel(o);
}

Cluster a100_cluster(int gpus) {
  return Cluster({device("A100-40GB")}, {NodeSpec{"n0", 0, gpus, 0, true}});
}

TEST(MigDynamic, LayoutsAreCandidatesOnMigDevicesOnly) {
  const MigModel m = dynamic_model();
  EXPECT_EQ(m.layout_count(device("A100-40GB")), 3);
  EXPECT_EQ(m.layout_count(device("T4")), 1);
  const JobSpec big = job(15000);  // fits 4g.20gb / 3g.20gb, not 1g.5gb
  const GpuView in_1g{device("A100-40GB"), {}, MemoryMiB(0), {}, 0};
  const GpuView in_4g3g{device("A100-40GB"), {}, MemoryMiB(0), {}, 1};
  const GpuView whole{device("A100-40GB"), {}, MemoryMiB(0), {}, 2};
  EXPECT_FALSE(m.admits(in_1g, big));
  EXPECT_TRUE(m.admits(in_4g3g, big));
  EXPECT_TRUE(m.admits(whole, big));
}

TEST(MigDynamic, PlansTheEmptiestGpuAndALayoutThatFits) {
  const MigModel m = dynamic_model();
  Cluster c = a100_cluster(3);
  JobTable jobs;
  GpuViewBuilder views(c, jobs);
  // GPU 0 holds two small jobs, GPU 1 one, GPU 2 two: GPU 1 drains first.
  const JobSlot a = jobs.acquire(), b = jobs.acquire(), d = jobs.acquire(), e = jobs.acquire(),
                f = jobs.acquire();
  for (JobSlot s : {a, b, d, e, f}) jobs[s].spec = job(3000);
  c.add_resident(0, a, MemoryMiB(3000));
  c.add_resident(0, b, MemoryMiB(3000));
  c.add_resident(1, d, MemoryMiB(3000));
  c.add_resident(2, e, MemoryMiB(3000));
  c.add_resident(2, f, MemoryMiB(3000));
  Reconfiguration r;
  ASSERT_TRUE(m.plan_reconfiguration(Time::from_seconds(1000), c, views, job(15000), {}, r));
  EXPECT_EQ(r.gpu, 1u);
  EXPECT_EQ(r.layout, 1);  // the first candidate that takes the job: 4g.20gb + 3g.20gb
  EXPECT_EQ(r.delay, Time::from_seconds(10));
  // Gangs never get a MIG layout planned for them.
  EXPECT_FALSE(
      m.plan_reconfiguration(Time::from_seconds(1000), c, views, job(15000, 1, 1, "", 2), {}, r));
}

TEST(MigDynamic, TheNewLayoutIsTheOneThatStartsTheMostWaitingJobs) {
  // Candidates that take a 15 GB head: 4g.20gb + 3g.20gb (two instances) and MIG off (one
  // job); the balanced 3g + 2g + 2x1g also takes it and starts four jobs.
  const nlohmann::json params = {{"layouts",
                                  {mig_test::times(7, "1g.5gb"),
                                   {"4g.20gb", "3g.20gb"},
                                   nlohmann::json::array(),
                                   {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}},
                                 {"repartition", {{"hysteresis_s", 0}, {"lookahead", 4}}}};
  JsonObject o(params, "s.json", "/sharing/params");
  const MigModel m(o);
  Cluster c = a100_cluster(1);
  JobTable jobs;
  GpuViewBuilder views(c, jobs);
  Reconfiguration r;
  // Alone, the head is served equally by 4g+3g and balanced (one job): the earlier candidate.
  ASSERT_TRUE(m.plan_reconfiguration(Time::from_seconds(10), c, views, job(15000), {}, r));
  EXPECT_EQ(r.layout, 1);
  // With small jobs waiting behind it, balanced starts four of them at once.
  const JobSpec small = job(3000);
  const JobSpec* behind[] = {&small, &small, &small, &small, &small};
  ASSERT_TRUE(m.plan_reconfiguration(Time::from_seconds(10), c, views, job(15000), behind, r));
  EXPECT_EQ(r.layout, 3);
  // A GPU whose layout takes the head once the right instance frees is left alone unless
  // another layout starts more of the queue. Balanced with small jobs waiting: nothing better.
  c.gpu(0).layout = 3;
  EXPECT_FALSE(m.plan_reconfiguration(Time::from_seconds(10), c, views, job(15000), behind, r));
  // With large jobs waiting, 4g+3g starts two of them where balanced starts one.
  const JobSpec large = job(15000);
  const JobSpec* large_behind[] = {&large, &large};
  ASSERT_TRUE(
      m.plan_reconfiguration(Time::from_seconds(10), c, views, job(15000), large_behind, r));
  EXPECT_EQ(r.layout, 1);
}

TEST(MigDynamic, HysteresisKeepsRecentlyChangedGpusAndMigToggleNeedsAReset) {
  const MigModel m = dynamic_model(600);
  Cluster c = a100_cluster(1);
  JobTable jobs;
  GpuViewBuilder views(c, jobs);
  c.gpu(0).last_reconfigured = Time::from_seconds(500);
  Reconfiguration r;
  EXPECT_FALSE(m.plan_reconfiguration(Time::from_seconds(900), c, views, job(15000), {}, r));
  ASSERT_TRUE(m.plan_reconfiguration(Time::from_seconds(1200), c, views, job(30000), {}, r));
  EXPECT_EQ(r.layout, 2);                      // only MIG off holds 30000 MiB
  EXPECT_EQ(r.delay, Time::from_seconds(60));  // toggling MIG mode on Ampere: reset
}

struct Starts : EngineObserver {
  std::map<std::string, double> start;
  int reconfigured = 0;
  void on_job_started(Time now, const ActiveJob& j) override { start[j.spec.id] = now.seconds(); }
  void on_gpu_reconfigured(Time, GpuIndex, Time, Time) override { ++reconfigured; }
};

TEST(MigDynamic, ABlockedJobWaitsForTheDrainThenRuns) {
  const MigModel m = dynamic_model();
  Cluster c = a100_cluster(1);
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  JobSpec small = job(3000, 0.5, 0.1), big = job(15000, 0.5, 0.5);
  small.id = "small";
  small.runtime = Time::from_seconds(100);
  big.id = "big";
  big.submit = Time::from_seconds(1);
  big.runtime = Time::from_seconds(100);
  mig_test::ListSource source({small, big});
  testing::CheckedEngine engine(c, m, scheduler, source);
  Starts s;
  engine.add_observer(&s);
  const EngineStats stats = engine.run();
  EXPECT_EQ(stats.rejected, 0u);  // the job fits another layout: not rejected
  EXPECT_DOUBLE_EQ(s.start["small"], 0);
  EXPECT_DOUBLE_EQ(s.start["big"], 110);  // small drains at 100, then 10 s of reconfiguration
  EXPECT_EQ(s.reconfigured, 1);
}

TEST(MigDynamic, BadRepartitionParametersNameTheKey) {
  const nlohmann::json params = {{"layouts", {mig_test::times(7, "1g.5gb")}},
                                 {"repartition", {{"hysteresis", 5}}}};
  JsonObject o(params, "s.json", "/sharing/params");
  try {
    MigModel m(o);
    FAIL() << "accepted an unknown key";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("s.json#/sharing/params/repartition/hysteresis"));
  }
}

}  // namespace
}  // namespace gpumux
