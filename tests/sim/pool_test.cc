// A pooled cluster (sim/state/pool.h): fractional GPU amounts counted against one capacity, CPU
// cores, CPU-only jobs, and the queue policies on it. Every expected time below is worked out by
// hand in the comment above its check.
#include "sim/state/pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "models/exclusive_model.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/pool_releases.h"
#include "sim/scheduling/scheduler.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

JobSpec pooled(std::string id, double submit_s, double gpus, double cpus, double runtime_s) {
  JobSpec j = testing::job(std::move(id), submit_s, gpus == 0 ? 0 : 1, runtime_s);
  if (gpus > 1) j.gpus = static_cast<int>(gpus);
  if (gpus > 0 && gpus < 1) j.sm_share = gpus;
  j.cpus = cpus;
  return j;
}

struct Times : EngineObserver {
  std::map<std::string, std::pair<double, double>> at;  // id -> (start, finish)
  std::map<std::string, std::string> rejected;
  void on_job_started(Time now, const ActiveJob& j) override {
    at[j.spec.id].first = now.seconds();
  }
  void on_job_finished(Time now, const ActiveJob& j) override {
    at[j.spec.id].second = now.seconds();
  }
  void on_job_rejected(Time, const ActiveJob& j, std::string_view reason) override {
    rejected[j.spec.id] = std::string(reason);
  }
};

using Span = std::pair<double, double>;

Times run_pool(int gpus, double cpus_per_gpu, std::vector<JobSpec> jobs,
               std::string_view policy = "greedy", QueueOrder order = QueueOrder::kArrival) {
  Cluster cluster({testing::test_device()}, {NodeSpec{"pool", 0, gpus, 0, false}},
                  PoolSpec{gpus, cpus_per_gpu});
  ExclusiveModel model;
  Scheduler scheduler(policy, make_placement_policy("first-fit"), 1'000'000, order);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  Times t;
  engine.add_observer(&t);
  const EngineStats stats = engine.run();
  EXPECT_EQ(cluster.pool_free(), cluster.pool_capacity()) << "the pool must be whole again";
  EXPECT_EQ(stats.finished + stats.rejected, stats.arrived);
  return t;
}

TEST(PoolAmount, RequestsRoundToHundredthsTiesToEven) {
  EXPECT_EQ(pool_request(pooled("a", 0, 0.25, 1.5, 1)), (PoolAmount{25, 150}));
  EXPECT_EQ(pool_request(pooled("a", 0, 8, 0, 1)), (PoolAmount{800, 0}));
  EXPECT_EQ(pool_request(pooled("a", 0, 0, 23.22, 1)), (PoolAmount{0, 2322}));
  // 0.125 GPU is 12.5 hundredths: Python's round (and the PAI simulator) gives 12, not 13.
  EXPECT_EQ(pool_request(pooled("a", 0, 0.125, 0.375, 1)), (PoolAmount{12, 38}));
  EXPECT_EQ(pool_capacity(PoolSpec{6500, 23.22}), (PoolAmount{650000, 15093000}));
  EXPECT_EQ(round_half_even(2.5), 2);
  EXPECT_EQ(round_half_even(3.5), 4);
}

// Two GPUs pooled. A (0.6), B (0.6) and C (0.8) sum to exactly 2.0: all start at 0, although no
// per-GPU packing could hold them (0.6 + 0.8 > 1 on either GPU). D (0.1, t=1) waits until C
// ends at 50, then takes 0.1 of the 0.8 freed; E (1.0, t=2) does not fit the 0.7 left and waits
// until A and B end at 100.
TEST(Pool, FractionsShareOneCapacityNotPerGpuBins) {
  const Times t = run_pool(
      2, 4,
      {pooled("A", 0, 0.6, 0, 100), pooled("B", 0, 0.6, 0, 100), pooled("C", 0, 0.8, 0, 50),
       pooled("D", 1, 0.1, 0, 10), pooled("E", 2, 1.0, 0, 30)});
  EXPECT_EQ(t.at.at("A"), Span(0, 100));
  EXPECT_EQ(t.at.at("B"), Span(0, 100));
  EXPECT_EQ(t.at.at("C"), Span(0, 50));
  EXPECT_EQ(t.at.at("D"), Span(50, 60));
  EXPECT_EQ(t.at.at("E"), Span(100, 130));
}

// Greedy: the earliest-queued job that fits starts, again and again; nothing waits for a blocked
// head. One GPU: A (0.5) runs to 100; B (0.75, t=1) cannot fit; C (0.25, t=2) and D (0.25, t=3)
// start at once behind it (0.5 + 0.25 + 0.25 = 1.0), E (0.25, t=4) finds nothing left. At 40 C
// ends: E (0.25) starts, B still cannot. At 100 A ends: free 0.5 + ... B needs 0.75: A's 0.5 and
// D's (ended at 60) 0.25 give 0.75 at 100.
TEST(Pool, GreedyStartsEveryLaterJobThatFits) {
  const Times t = run_pool(
      1, 4,
      {pooled("A", 0, 0.5, 0, 100), pooled("B", 1, 0.75, 0, 10), pooled("C", 2, 0.25, 0, 38),
       pooled("D", 3, 0.25, 0, 57), pooled("E", 4, 0.25, 0, 70)});
  EXPECT_EQ(t.at.at("A"), Span(0, 100));
  EXPECT_EQ(t.at.at("C"), Span(2, 40));
  EXPECT_EQ(t.at.at("D"), Span(3, 60));
  EXPECT_EQ(t.at.at("E"), Span(40, 110));
  // At 100: A's 0.5 + D's 0.25 are free (E holds 0.25): B's 0.75 fits.
  EXPECT_EQ(t.at.at("B"), Span(100, 110));
}

// One GPU, 8 cores. A (0.25 GPU, 6 cores) runs to 100. B (0.25 GPU, 4 cores) has GPU room but
// not the cores: it waits. C (0.25 GPU, 2 cores), queued after B, fits both and starts at once.
// At 100 A's cores come back and B starts.
TEST(Pool, CpuCapacityBlocksAJobWhoseGpusFit) {
  const Times t = run_pool(
      1, 8,
      {pooled("A", 0, 0.25, 6, 100), pooled("B", 0, 0.25, 4, 10), pooled("C", 0, 0.25, 2, 10)});
  EXPECT_EQ(t.at.at("A"), Span(0, 100));
  EXPECT_EQ(t.at.at("B"), Span(100, 110));
  EXPECT_EQ(t.at.at("C"), Span(0, 10));
}

// CPU-only jobs hold cores, queue and run like the others. One GPU, 4 cores. A takes the whole
// GPU and no core; B (0 GPU, 4 cores) starts beside it and holds every core to 50; C (0 GPU,
// 1 core, t=10) waits for B. D asks for nothing at t=20, when neither GPU nor core is free: like
// the PAI simulator, no job starts then (it stops at an exhausted cluster); D starts at 50 after
// C, in queue order.
TEST(Pool, CpuOnlyJobsHoldCoresQueueAndRun) {
  const Times t = run_pool(1, 4,
                           {pooled("A", 0, 1, 0, 100), pooled("B", 0, 0, 4, 50),
                            pooled("C", 10, 0, 1, 5), pooled("D", 20, 0, 0, 5)});
  EXPECT_EQ(t.at.at("A"), Span(0, 100));
  EXPECT_EQ(t.at.at("B"), Span(0, 50));
  EXPECT_EQ(t.at.at("C"), Span(50, 55));
  EXPECT_EQ(t.at.at("D"), Span(50, 55));
}

// Shortest first, as the PAI simulator's SJF: runtime, then job id (not submit time). A fills the
// GPU to 100; at 100 the queue holds B (50 s), D (10 s, t=2) and C (10 s, t=3): C (id before D,
// though submitted later), then D, then B, each alone on the GPU.
TEST(Pool, GreedyShortestOrdersByRuntimeThenId) {
  const Times t = run_pool(1, 4,
                           {pooled("A", 0, 1, 0, 100), pooled("B", 1, 1, 0, 50),
                            pooled("D", 2, 1, 0, 10), pooled("C", 3, 1, 0, 10)},
                           "greedy", QueueOrder::kShortest);
  EXPECT_EQ(t.at.at("C"), Span(100, 110));
  EXPECT_EQ(t.at.at("D"), Span(110, 120));
  EXPECT_EQ(t.at.at("B"), Span(120, 170));
}

// Strict FIFO stops behind the head; EASY backfill lets a job past it when the head's
// reservation holds. One GPU: A (0.75) to 100; B (0.5) heads the queue, reserved at 100 when
// 1.0 is free, 0.5 of it spare; C (0.25, 200 s) ends after 100 but fits the spare: backfilled at
// 0 (B still starts at 100). Under FIFO C waits behind B and both start at 100.
TEST(Pool, FifoWaitsBehindTheHeadBackfillUsesTheSpare) {
  const std::vector<JobSpec> jobs = {pooled("A", 0, 0.75, 0, 100), pooled("B", 1, 0.5, 0, 10),
                                     pooled("C", 2, 0.25, 0, 200)};
  const Times fifo = run_pool(1, 4, jobs, "fifo");
  EXPECT_EQ(fifo.at.at("B"), Span(100, 110));
  EXPECT_EQ(fifo.at.at("C"), Span(100, 300));
  const Times easy = run_pool(1, 4, jobs, "fifo-backfill");
  EXPECT_EQ(easy.at.at("B"), Span(100, 110));
  EXPECT_EQ(easy.at.at("C"), Span(2, 202));
}

// Backfill must not delay the head: with 0.5 the head's need and no spare at its shadow time, a
// job that fits now but ends after it stays queued. A (0.5) to 100, A2 (0.25) to 100; B (0.75)
// reserved at 100 (1.0 free, 0.25 spare); C (0.25, 200 s) fits now (0.25 free) and the spare
// 0.25: backfilled; D (0.25, t=3) finds nothing free. After C the spare is gone.
TEST(Pool, BackfillNeverDelaysTheHead) {
  const Times t = run_pool(
      1, 4,
      {pooled("A", 0, 0.5, 0, 100), pooled("A2", 0, 0.25, 0, 100), pooled("B", 1, 0.75, 0, 10),
       pooled("C", 2, 0.25, 0, 200), pooled("D", 3, 0.25, 0, 5)},
      "fifo-backfill");
  EXPECT_EQ(t.at.at("C"), Span(2, 202));
  EXPECT_EQ(t.at.at("B"), Span(100, 110));
  // D: at 100 B takes 0.75 of the 0.75 free; at 110 B ends and D starts.
  EXPECT_EQ(t.at.at("D"), Span(110, 115));
}

// The backfill reservation from the index of running jobs (sim/scheduling/pool_releases.h) equals
// the one found by ordering every running job's (finish, amount), as before the index: random
// starts, completions (released slots, reused by later starts under a new version), ties of finish
// times and needs from nothing to more than the pool can ever free.
TEST(PoolReleases, ReservationEqualsOrderingEveryRunningJob) {
  std::mt19937_64 rng(14);
  auto pick = [&](std::uint64_t n) { return static_cast<std::int64_t>(rng() % n); };
  JobTable jobs;
  PoolReleases releases;
  std::vector<JobSlot> running;
  int checked = 0;
  for (int step = 0; step < 4000; ++step) {
    if (!running.empty() && pick(3) == 0) {
      // A completion: the slot is released (phase free, version bumped), maybe reused later.
      const std::size_t i = static_cast<std::size_t>(pick(running.size()));
      jobs.release(running[i]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const JobSlot slot = jobs.acquire();
      ActiveJob& job = jobs[slot];
      job.spec = pooled("j", 0, pick(4) == 0 ? 0.0 : 0.05 * static_cast<double>(1 + pick(40)),
                        static_cast<double>(pick(8)), 1);
      job.phase = JobPhase::kRunning;
      ++job.version;
      job.expected_finish = Time::from_seconds(static_cast<double>(pick(50)));  // many ties
      releases.add(slot, job);
      running.push_back(slot);
    }
    if (pick(5) == 0) {
      releases.drop_finished(Time::from_seconds(static_cast<double>(pick(50))), jobs);
    }
    const PoolAmount free{pick(300), pick(500)};
    const PoolAmount need{pick(3000), pick(3000)};
    // The reference: every running job, ordered by finish time, an instant's releases together.
    std::vector<std::pair<Time, PoolAmount>> all;
    for (JobSlot s : running) all.emplace_back(jobs[s].expected_finish, pool_request(jobs[s].spec));
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    PoolReservation want;
    PoolAmount sum = free;
    auto enough = [&] { return sum.gpu >= need.gpu && sum.cpu >= need.cpu; };
    if (enough()) {
      want = PoolReservation{Time::zero(), {sum.gpu - need.gpu, sum.cpu - need.cpu}};
    } else {
      for (std::size_t i = 0; i < all.size();) {
        const Time when = all[i].first;
        for (; i < all.size() && all[i].first == when; ++i) {
          sum.gpu += all[i].second.gpu;
          sum.cpu += all[i].second.cpu;
        }
        if (enough()) {
          want = PoolReservation{when, {sum.gpu - need.gpu, sum.cpu - need.cpu}};
          break;
        }
      }
    }
    const PoolReservation got = releases.reserve(need, free, jobs);
    ASSERT_EQ(got.shadow, want.shadow) << "step " << step;
    ASSERT_EQ(got.extra, want.extra) << "step " << step;
    if (want.shadow != Time::zero() && want.shadow != Time::infinity()) ++checked;
  }
  EXPECT_GT(checked, 500);  // most steps found a shadow time among the running jobs
  // Once every job has left, dropping the finished empties the index.
  for (JobSlot s : running) jobs.release(s);
  releases.drop_finished(Time::infinity(), jobs);
  EXPECT_EQ(releases.size(), 0u);
}

TEST(Pool, RejectsWhatTheWholePoolCannotHold) {
  const Times t = run_pool(
      2, 1,
      {pooled("big", 0, 3, 0, 10), pooled("cores", 0, 1, 2.5, 10), pooled("ok", 0, 2, 2, 10)});
  EXPECT_EQ(t.rejected.at("big"), "GPU amount larger than the pool");
  EXPECT_EQ(t.rejected.at("cores"), "CPU cores more than the pool has");
  EXPECT_EQ(t.at.at("ok"), Span(0, 10));
}

TEST(Pool, CpuOnlyJobOnAClusterOfNodesIsRejectedWithItsReason) {
  Cluster cluster = testing::make_cluster(1, 2);
  ExclusiveModel model;
  Scheduler scheduler("greedy", make_placement_policy("first-fit"), 64);
  testing::ListSource source({pooled("cpu", 0, 0, 2, 10), testing::job("gpu", 0, 1, 10)});
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  Times t;
  engine.add_observer(&t);
  engine.run();
  EXPECT_NE(t.rejected.at("cpu").find("cluster.pool"), std::string::npos);
  EXPECT_EQ(t.at.at("gpu"), Span(0, 10));
}

}  // namespace
}  // namespace gpumux
