#include "sim/scheduler.h"

#include <gtest/gtest.h>

#include <map>

#include "models/exclusive_model.h"
#include "sim/engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;

struct StartRecorder : EngineObserver {
  std::map<std::string, double> start, finish;
  void on_job_started(Time now, const ActiveJob& j) override { start[j.spec.id] = now.seconds(); }
  void on_job_finished(Time now, const ActiveJob& j) override { finish[j.spec.id] = now.seconds(); }
};

StartRecorder run(QueuePolicy policy, std::vector<JobSpec> jobs, int gpus = 4) {
  Cluster cluster = testing::make_cluster(1, gpus);
  ExclusiveModel model;
  Scheduler scheduler(policy, make_placement_policy("first-fit"), 64);
  testing::ListSource source(std::move(jobs));
  Engine engine(cluster, model, scheduler, source);
  StartRecorder r;
  engine.add_observer(&r);
  engine.run();
  return r;
}

// A holds 3 of 4 GPUs until t=100; B needs 2 and must wait; C needs 1 and is short.
std::vector<JobSpec> blocked_head() {
  return {job("A", 0, 3, 100), job("B", 1, 2, 10), job("C", 2, 1, 10)};
}

TEST(Scheduler, StrictFifoNeverStartsAJobBehindABlockedHead) {
  auto r = run(QueuePolicy::kFifo, blocked_head());
  EXPECT_DOUBLE_EQ(r.start["B"], 100);
  EXPECT_DOUBLE_EQ(r.start["C"], 100);
}

TEST(Scheduler, BackfillStartsAShortJobThatEndsBeforeTheReservation) {
  auto r = run(QueuePolicy::kFifoBackfill, blocked_head());
  EXPECT_DOUBLE_EQ(r.start["C"], 2);
  EXPECT_DOUBLE_EQ(r.start["B"], 100);  // the head is not delayed
}

TEST(Scheduler, BackfillDoesNotDelayTheHead) {
  // B needs all 4 GPUs at t=100; C is long (200 s) and would hold one of them: no backfill.
  auto r = run(QueuePolicy::kFifoBackfill,
               {job("A", 0, 3, 100), job("B", 1, 4, 10), job("C", 2, 1, 200)});
  EXPECT_DOUBLE_EQ(r.start["B"], 100);
  EXPECT_DOUBLE_EQ(r.start["C"], 110);
}

TEST(Scheduler, BackfillMayUseGpusTheHeadDoesNotNeed) {
  // 6 GPUs: A holds 4 until t=100; B needs 4 (2 free now, 6 at t=100 -> 2 spare); a long
  // 1-GPU job C fits in the spare GPUs.
  auto r = run(QueuePolicy::kFifoBackfill,
               {job("A", 0, 4, 100), job("B", 1, 4, 10), job("C", 2, 1, 500)}, 6);
  EXPECT_DOUBLE_EQ(r.start["C"], 2);
  EXPECT_DOUBLE_EQ(r.start["B"], 100);
}

TEST(Scheduler, PolicyNamesRoundTrip) {
  for (const auto& name : queue_policy_names()) {
    EXPECT_EQ(queue_policy_name(parse_queue_policy(name)), name);
  }
  EXPECT_THROW(parse_queue_policy("lifo"), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
