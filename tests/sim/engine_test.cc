#include "sim/engine/engine.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "models/exclusive_model.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;

struct Record {
  double start = -1, finish = -1;
  std::string rejected;
};

struct Recorder : EngineObserver {
  std::map<std::string, Record> jobs;
  std::vector<std::string> unfinished;
  double max_busy = 0.0;
  void on_job_started(Time now, const ActiveJob& j) override {
    jobs[j.spec.id].start = now.seconds();
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    jobs[j.spec.id].finish = now.seconds();
  }
  void on_job_rejected(Time, const ActiveJob& j, std::string_view reason) override {
    jobs[j.spec.id].rejected = reason;
  }
  void on_gpu_changed(Time, GpuIndex, const GpuState& g) override {
    max_busy = std::max(max_busy, g.load.useful_busy + g.load.overhead);
  }
  void on_run_end(Time, std::span<const ActiveJob* const> left) override {
    for (auto* j : left) unfinished.push_back(j->spec.id);
  }
};

struct Run {
  Recorder recorder;
  EngineStats stats;
};

Run simulate(const SharingModel& model, std::vector<JobSpec> jobs, int nodes = 1, int gpus = 1,
             EngineOptions options = {}, std::string_view policy = "fifo") {
  Cluster cluster = testing::make_cluster(nodes, gpus);
  Scheduler scheduler(policy, make_placement_policy("first-fit"), 64);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source, options);
  Run r;
  engine.add_observer(&r.recorder);
  r.stats = engine.run();
  return r;
}

TEST(Engine, ExclusiveJobRunsForItsRuntime) {
  ExclusiveModel m;
  auto r = simulate(m, {job("a", 5, 1, 10)});
  EXPECT_DOUBLE_EQ(r.recorder.jobs["a"].start, 5);
  EXPECT_DOUBLE_EQ(r.recorder.jobs["a"].finish, 15);
  EXPECT_EQ(r.stats.finished, 1u);
}

TEST(Engine, SharedGpuSplitsProgressAndConservesWork) {
  testing::PairModel m;
  // Both at rate 1/2 until a is done at t=20 (10 s of work); b then has 20 s left at rate 1.
  auto r = simulate(m, {job("a", 0, 1, 10), job("b", 0, 1, 30)});
  EXPECT_DOUBLE_EQ(r.recorder.jobs["a"].finish, 20);
  EXPECT_DOUBLE_EQ(r.recorder.jobs["b"].finish, 40);
}

TEST(Engine, GangProgressesAtItsSlowestGpu) {
  testing::PairModel m;
  // g spans GPUs 0 and 1; s shares GPU 0 with it: both run at 1/2 there, so g is at 1/2 too.
  auto r = simulate(m, {job("g", 0, 2, 10), job("s", 0, 1, 10)}, 1, 2);
  EXPECT_DOUBLE_EQ(r.recorder.jobs["g"].finish, 20);
  EXPECT_DOUBLE_EQ(r.recorder.jobs["s"].finish, 20);
}

TEST(Engine, SimultaneousFinishesFreeGpusBeforePlacement) {
  ExclusiveModel m;
  // a and b finish at t=10 together; c needs both GPUs and starts exactly then.
  auto r = simulate(m, {job("a", 0, 1, 10), job("b", 0, 1, 10), job("c", 1, 2, 5)}, 1, 2);
  EXPECT_DOUBLE_EQ(r.recorder.jobs["c"].start, 10);
}

TEST(Engine, JobsThatCanNeverRunAreRejectedWithAReason) {
  ExclusiveModel m;
  JobSpec big_memory = job("m", 0, 1, 10);
  big_memory.memory = MemoryMiB(1'000'000);
  auto r = simulate(m, {job("wide", 0, 5, 10), big_memory, job("ok", 1, 1, 10)}, 1, 4);
  EXPECT_EQ(r.recorder.jobs["wide"].rejected, "gang larger than the cluster");
  EXPECT_NE(r.recorder.jobs["m"].rejected.find("admits"), std::string::npos);
  EXPECT_DOUBLE_EQ(r.recorder.jobs["ok"].finish, 11);
  EXPECT_EQ(r.stats.rejected, 2u);
}

TEST(Engine, HorizonStopsTheRunAndReportsUnfinishedJobs) {
  ExclusiveModel m;
  auto r = simulate(m, {job("long", 0, 1, 100), job("waiting", 1, 1, 5)}, 1, 1,
                    EngineOptions{Time::from_seconds(50)});
  EXPECT_TRUE(r.stats.hit_horizon);
  EXPECT_EQ(r.stats.end_time, Time::from_seconds(50));
  EXPECT_EQ(r.recorder.unfinished, (std::vector<std::string>{"long", "waiting"}));
}

TEST(Engine, ZeroRuntimeJobFinishesWhereItStarts) {
  ExclusiveModel m;
  auto r = simulate(m, {job("z", 3, 1, 0)});
  EXPECT_DOUBLE_EQ(r.recorder.jobs["z"].finish, 3);
}

// Property: over random workloads every job finishes, no job beats its exclusive runtime, the
// exclusive model gives exactly its runtime, and no GPU reports more than full use.
TEST(EngineProperty, RandomWorkloadsKeepInvariants) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<JobSpec> jobs;
    double t = 0;
    for (int i = 0; i < 200; ++i) {
      t += std::exponential_distribution<double>(0.5)(rng);
      JobSpec j =
          job("j" + std::to_string(i), t, 1 << std::uniform_int_distribution<int>(0, 2)(rng),
              std::uniform_real_distribution<double>(1, 50)(rng));
      j.sm_util = std::uniform_real_distribution<double>(0.05, 1.0)(rng);
      j.memory = MemoryMiB(std::uniform_int_distribution<int>(0, 9000)(rng));
      jobs.push_back(j);
    }
    ExclusiveModel exclusive;
    testing::PairModel pair;
    for (const SharingModel* model :
         {static_cast<const SharingModel*>(&exclusive), static_cast<const SharingModel*>(&pair)}) {
      for (auto policy : {"fifo", "fifo-backfill"}) {
        auto r = simulate(*model, jobs, 2, 4, {}, policy);
        ASSERT_EQ(r.stats.finished, jobs.size()) << "seed " << seed;
        EXPECT_LE(r.recorder.max_busy, 1.0 + 1e-12);
        for (const auto& j : jobs) {
          const Record& rec = r.recorder.jobs[j.id];
          const double took = rec.finish - rec.start;
          EXPECT_GE(rec.start, j.submit.seconds());
          if (model == &exclusive) {
            EXPECT_NEAR(took, j.runtime.seconds(), 1e-6) << j.id;
          } else {
            EXPECT_GE(took, j.runtime.seconds() - 1e-6) << j.id;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gpumux
