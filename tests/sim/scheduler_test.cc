#include "sim/scheduling/scheduler.h"

#include <gtest/gtest.h>

#include <map>

#include "models/exclusive_model.h"
#include "sim/core/job_order.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;

struct StartRecorder : EngineObserver {
  std::map<std::string, double> start, finish;
  void on_job_started(Time now, const ActiveJob& j) override { start[j.spec.id] = now.seconds(); }
  void on_job_finished(Time now, const ActiveJob& j) override { finish[j.spec.id] = now.seconds(); }
};

StartRecorder run(std::string_view policy, std::vector<JobSpec> jobs, int gpus = 4,
                  QueueOrder order = QueueOrder::kArrival) {
  Cluster cluster = testing::make_cluster(1, gpus);
  ExclusiveModel model;
  Scheduler scheduler(policy, make_placement_policy("first-fit"), 64, order);
  testing::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, model, scheduler, source);
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
  auto r = run("fifo", blocked_head());
  EXPECT_DOUBLE_EQ(r.start["B"], 100);
  EXPECT_DOUBLE_EQ(r.start["C"], 100);
}

TEST(Scheduler, BackfillStartsAShortJobThatEndsBeforeTheReservation) {
  auto r = run("fifo-backfill", blocked_head());
  EXPECT_DOUBLE_EQ(r.start["C"], 2);
  EXPECT_DOUBLE_EQ(r.start["B"], 100);  // the head is not delayed
}

TEST(Scheduler, BackfillDoesNotDelayTheHead) {
  // B needs all 4 GPUs at t=100; C is long (200 s) and would hold one of them: no backfill.
  auto r = run("fifo-backfill", {job("A", 0, 3, 100), job("B", 1, 4, 10), job("C", 2, 1, 200)});
  EXPECT_DOUBLE_EQ(r.start["B"], 100);
  EXPECT_DOUBLE_EQ(r.start["C"], 110);
}

TEST(Scheduler, BackfillMayUseGpusTheHeadDoesNotNeed) {
  // 6 GPUs: A holds 4 until t=100; B needs 4 (2 free now, 6 at t=100 -> 2 spare); a long
  // 1-GPU job C fits in the spare GPUs.
  auto r = run("fifo-backfill", {job("A", 0, 4, 100), job("B", 1, 4, 10), job("C", 2, 1, 500)}, 6);
  EXPECT_DOUBLE_EQ(r.start["C"], 2);
  EXPECT_DOUBLE_EQ(r.start["B"], 100);
}

TEST(Scheduler, GreedyStartsALaterSmallJobWhileTheHeadWaits) {
  // A holds 3 of 4 GPUs until t=100; B (the head) needs all 4; C needs 1 for 200 s.
  // fifo: C waits behind B (B 100-110, C from 110). fifo-backfill: C would delay B's
  // reservation, so it waits too. greedy: C fits now and starts at t=2; B waits until C ends.
  const std::vector<JobSpec> jobs = {job("A", 0, 3, 100), job("B", 1, 4, 10), job("C", 2, 1, 200)};
  auto fifo = run("fifo", jobs);
  EXPECT_DOUBLE_EQ(fifo.start["C"], 110);
  auto greedy = run("greedy", jobs);
  EXPECT_DOUBLE_EQ(greedy.start["C"], 2);
  EXPECT_DOUBLE_EQ(greedy.finish["C"], 202);
  EXPECT_DOUBLE_EQ(greedy.start["B"], 202);
  EXPECT_DOUBLE_EQ(greedy.finish["B"], 212);
}

TEST(Scheduler, GreedyStartsEveryJobThatFitsInQueueOrder) {
  // 4 GPUs, A holds 2 until t=100. B (3 GPUs) arrives at 1 and never fits before A ends.
  // C (1) starts at 2 and E (1) at 4, while D (2, at 3) finds 1 empty GPU; C ends at 12 (1
  // empty: D still waits), E at 14 (2 empty: D starts, skipping B). D ends at 64 (2 empty, B
  // still waits); A ends at 100 and B starts.
  auto r = run("greedy", {job("A", 0, 2, 100), job("B", 1, 3, 10), job("C", 2, 1, 10),
                          job("D", 3, 2, 50), job("E", 4, 1, 10)});
  EXPECT_DOUBLE_EQ(r.start["C"], 2);
  EXPECT_DOUBLE_EQ(r.start["E"], 4);
  EXPECT_DOUBLE_EQ(r.start["D"], 14);
  EXPECT_DOUBLE_EQ(r.start["B"], 100);
}

TEST(Scheduler, GreedyBreaksSubmitTiesByNumericJobId) {
  // One GPU busy until t=100; "10" arrives before "9" at the same instant: "9" goes first.
  const std::vector<JobSpec> jobs = {job("A", 0, 1, 100), job("10", 5, 1, 10), job("9", 5, 1, 10)};
  auto greedy = run("greedy", jobs, 1);
  EXPECT_DOUBLE_EQ(greedy.start["9"], 100);
  EXPECT_DOUBLE_EQ(greedy.start["10"], 110);
  auto fifo = run("fifo", jobs, 1);  // fifo keeps the stream's order
  EXPECT_DOUBLE_EQ(fifo.start["10"], 100);
}

TEST(Scheduler, GreedyShortestOrdersByRuntimeThenSubmit) {
  // 2 GPUs held until t=100; B (50 s), C (10 s), D (30 s), F (10 s, later than C) wait.
  const std::vector<JobSpec> jobs = {job("A", 0, 2, 100), job("B", 1, 1, 50), job("C", 2, 1, 10),
                                     job("D", 3, 1, 30), job("F", 4, 1, 10)};
  auto shortest = run("greedy", jobs, 2, QueueOrder::kShortest);
  EXPECT_DOUBLE_EQ(shortest.start["C"], 100);
  EXPECT_DOUBLE_EQ(shortest.start["F"], 100);
  EXPECT_DOUBLE_EQ(shortest.start["D"], 110);
  EXPECT_DOUBLE_EQ(shortest.start["B"], 110);
  auto arrival = run("greedy", jobs, 2);
  EXPECT_DOUBLE_EQ(arrival.start["B"], 100);
  EXPECT_DOUBLE_EQ(arrival.start["C"], 100);
  EXPECT_DOUBLE_EQ(arrival.start["D"], 110);
  EXPECT_DOUBLE_EQ(arrival.start["F"], 140);
}

TEST(Scheduler, ShortestOrderIsOnlyForGreedy) {
  EXPECT_THROW(Scheduler("fifo", make_placement_policy("first-fit"), 64, QueueOrder::kShortest),
               std::invalid_argument);
  for (const auto& name : queue_order_names()) {
    EXPECT_EQ(queue_order_name(parse_queue_order(name)), name);
  }
  EXPECT_THROW(parse_queue_order("longest"), std::invalid_argument);
}

// The queue's order as front() reports it, by job id.
std::vector<std::string> front_ids(const Scheduler& s, const JobTable& jobs) {
  std::vector<JobSlot> slots;
  s.front(100, slots);
  std::vector<std::string> ids;
  for (JobSlot slot : slots) ids.push_back(jobs[slot].spec.id);
  return ids;
}

TEST(Scheduler, GreedyRequeueTakesItsPlaceByOrderWhileFifoPutsItFirst) {
  JobTable jobs;
  auto add = [&](JobSpec spec) {
    const JobSlot slot = jobs.acquire();
    jobs[slot].spec = std::move(spec);
    return slot;
  };
  const JobSlot late = add(job("late", 50, 2, 10));
  const JobSlot b = add(job("b", 5, 1, 10));
  const JobSlot a = add(job("a", 5, 4, 10));
  const JobSlot early = add(job("early", 1, 1, 10));
  Scheduler greedy("greedy", make_placement_policy("first-fit"), 64);
  Scheduler fifo("fifo", make_placement_policy("first-fit"), 64);
  for (JobSlot slot : {b, a, early}) {
    greedy.enqueue(slot, jobs);
    fifo.enqueue(slot, jobs);
  }
  // A killed job coming back: greedy files it by its submit time, fifo puts it at the head.
  greedy.requeue(late, jobs);
  fifo.requeue(late, jobs);
  EXPECT_EQ(greedy.queued(), 4u);
  EXPECT_EQ(front_ids(greedy, jobs), (std::vector<std::string>{"early", "a", "b", "late"}));
  EXPECT_EQ(front_ids(fifo, jobs), (std::vector<std::string>{"late", "b", "a", "early"}));
  std::vector<JobSlot> two;
  greedy.front(2, two);
  EXPECT_EQ(two, (std::vector<JobSlot>{early, a}));
}

TEST(JobOrder, DigitIdsCompareAsNumbersOthersByBytes) {
  EXPECT_LT(compare_job_ids("9", "10"), 0);
  EXPECT_GT(compare_job_ids("10", "9"), 0);
  EXPECT_LT(compare_job_ids("7", "007"), 0);  // same number: the shorter spelling first
  EXPECT_EQ(compare_job_ids("42", "42"), 0);
  EXPECT_LT(compare_job_ids("job10", "job9"), 0);  // not all digits: bytes
  EXPECT_LT(compare_job_ids("10", "a"), 0);
}

// The precomputed key (JobIdNumber) orders every pair as compare_job_ids does: numbered pairs
// by (value, length), any pair with an id it does not number by the text. Every pair of a set
// that mixes short and long numbers, leading zeros, 18- and 19-digit numbers, all-zero ids,
// empty and non-digit ids.
TEST(JobOrder, PrecomputedKeysOrderAsTheTextComparison) {
  const std::vector<std::string> ids = {"0",
                                        "00",
                                        "000",
                                        "1",
                                        "01",
                                        "9",
                                        "10",
                                        "010",
                                        "0010",
                                        "99",
                                        "100",
                                        "7",
                                        "007",
                                        "123456789012345678",
                                        "999999999999999999",
                                        "0999999999999999999",
                                        "1000000000000000000",
                                        "1000000000000000001",
                                        "12345678901234567890123",
                                        "",
                                        "a",
                                        "job10",
                                        "job9",
                                        "10a",
                                        "-1",
                                        "1.5",
                                        " 1"};
  std::size_t numbered = 0;
  for (const auto& a : ids) {
    const JobIdNumber ka(a);
    numbered += ka.numbered() ? 1 : 0;
    for (const auto& b : ids) {
      const JobIdNumber kb(b);
      EXPECT_EQ(compare_job_ids(ka, a, kb, b), compare_job_ids(a, b)) << a << " vs " << b;
    }
  }
  EXPECT_EQ(numbered, 16u);  // the digits-only ids of at most 18 significant digits
  EXPECT_EQ(JobIdNumber("0010").value, 10u);
  EXPECT_EQ(JobIdNumber("0010").length, 4u);
  EXPECT_FALSE(JobIdNumber("1000000000000000000").numbered());  // 19 digits: by text
  EXPECT_TRUE(JobIdNumber("0999999999999999999").numbered());   // 18 once zeros are stripped
}

TEST(Scheduler, OrderNamesRoundTrip) {
  for (const auto& name : queue_order_names()) {
    EXPECT_EQ(queue_order_name(parse_queue_order(name)), name);
  }
  EXPECT_THROW(parse_queue_order("random"), std::invalid_argument);
}

}  // namespace
}  // namespace gpumux
