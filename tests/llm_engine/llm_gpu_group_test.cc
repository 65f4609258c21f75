// LLM endpoints sharing one GPU (sim/llm/llm_gpu_group.h), computed by hand: concurrent
// iterations under MPS share the SMs up to their caps and the memory bandwidth; under
// time-slicing an iteration's GPU part waits for the holder's part or slice, plus the switch.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/llm/llm_gpu_group.h"
#include "sim/llm/llm_replica.h"
#include "sim/llm/llm_stats.h"

namespace gpumux {
namespace {

// Every iteration: host_us on the host, then gpu_us on the GPU, whatever the batch.
class FixedTime final : public IterationTimeModel {
 public:
  FixedTime(double gpu_us, double host_us) : gpu_(gpu_us), host_(host_us) {}
  double iteration_us(const IterationBatch&) const override { return gpu_ + host_; }
  Split split(const IterationBatch&) const override { return {gpu_ + host_, host_}; }

 private:
  double gpu_, host_;
};

// One request at t = 0 of `prompt` tokens and `output` tokens: one prefill iteration (which
// samples the first token) and output - 1 decode iterations. `memory_us`: the GPU part's
// memory-bound share (what it gains at half the bandwidth).
struct Endpoint {
  std::shared_ptr<LlmEndpointSpec> llm = std::make_shared<LlmEndpointSpec>();
  ServiceSpec spec;

  Endpoint(double gpu_us, double memory_us, double host_us = 0.0, int output = 3) {
    llm->time_model = std::make_shared<FixedTime>(gpu_us, host_us);
    llm->half_bandwidth_model = std::make_shared<FixedTime>(gpu_us + memory_us, host_us);
    llm->engine.max_model_len = 100000;
    llm->engine.kv_blocks = 1000;
    llm->load.kind = LlmLoadKind::kTrace;
    llm->load.rows = std::make_shared<const std::vector<LlmRequestRow>>(
        std::vector<LlmRequestRow>{{0.0, 16, output}});
    spec.llm = llm;
  }
};

struct Pair {
  LlmReplica a, b;
  Pair(const Endpoint& x, const Endpoint& y) : a(x.spec, 0.0, 1), b(y.spec, 0.0, 2) {}
  void run(LlmGpuGroup& group, double fraction_a = 1.0, double fraction_b = 1.0) {
    a.join_group(0.0, group, fraction_a);
    b.join_group(0.0, group, fraction_b);
    a.set_rate(0.0, 1.0);
    b.set_rate(0.0, 1.0);
    a.end(1e7);
    b.end(1e7);
  }
};

double ttft(const LlmReplica& r) { return r.llm_stats()->ttft.mean_us(); }
double latency(const LlmReplica& r) { return r.latencies().mean_us(); }

TEST(LlmGpuGroup, TwoDecodeBatchesUnderMpsShareTheBandwidth) {
  // Both iterations are memory-bound throughout (1,000 us of GPU, all of it bandwidth): run at
  // once they use twice the device's bandwidth, so each takes 2,000 us.
  const Endpoint e(1000.0, 1000.0);
  LlmGpuGroup group(LlmGpuGroup::Mode::kConcurrent);
  Pair p(e, e);
  p.run(group);
  EXPECT_DOUBLE_EQ(ttft(p.a), 2000.0);
  EXPECT_DOUBLE_EQ(latency(p.a), 6000.0);
  EXPECT_DOUBLE_EQ(latency(p.b), 6000.0);
  EXPECT_EQ(p.a.counts().served, 1);
  EXPECT_EQ(p.b.counts().served, 1);
  // The bandwidth was fully used for 6,000 us, the SMs not at all (memory-bound throughout).
  const LlmGpuGroup::Usage& u = group.usage();
  EXPECT_DOUBLE_EQ(u.busy_us, 6000.0);
  EXPECT_DOUBLE_EQ(u.bandwidth_us, 6000.0);
  EXPECT_DOUBLE_EQ(u.sm_us, 0.0);
  EXPECT_EQ(u.peak_members, 2u);
}

TEST(LlmGpuGroup, ComputeBoundClientsAtHalfTheThreadsTakeTheirCapsAloneOrTogether) {
  // Compute-bound at 50 % of the SMs each: alone an iteration takes 2,000 us; together they
  // hold 50 % + 50 % of the SMs, so nothing more is lost.
  const Endpoint e(1000.0, 0.0);
  LlmGpuGroup together(LlmGpuGroup::Mode::kConcurrent);
  Pair p(e, e);
  p.run(together, 0.5, 0.5);
  EXPECT_DOUBLE_EQ(latency(p.a), 6000.0);
  EXPECT_DOUBLE_EQ(latency(p.b), 6000.0);

  // Uncapped, the two oversubscribe the SMs twice over: the same 2,000 us per iteration.
  LlmGpuGroup uncapped(LlmGpuGroup::Mode::kConcurrent);
  Pair q(e, e);
  q.run(uncapped);
  EXPECT_DOUBLE_EQ(latency(q.a), 6000.0);

  // Alone at 50 % it is as slow as together: the cap binds even on an idle GPU.
  LlmGpuGroup alone(LlmGpuGroup::Mode::kConcurrent);
  LlmReplica r(e.spec, 0.0, 1);
  r.join_group(0.0, alone, 0.5);
  r.set_rate(0.0, 1.0);
  r.end(1e7);
  EXPECT_DOUBLE_EQ(latency(r), 6000.0);
}

TEST(LlmGpuGroup, AComputeBoundAndAMemoryBoundClientOverlapFully) {
  const Endpoint compute(1000.0, 0.0);
  const Endpoint memory(1000.0, 1000.0);
  LlmGpuGroup group(LlmGpuGroup::Mode::kConcurrent);
  Pair p(compute, memory);
  p.run(group);
  EXPECT_DOUBLE_EQ(latency(p.a), 3000.0);
  EXPECT_DOUBLE_EQ(latency(p.b), 3000.0);
}

TEST(LlmGpuGroup, HostTimeLeavesTheGpuToTheOther) {
  // 500 us of host, then 1,000 us of memory-bound GPU work: A's and B's GPU parts overlap
  // fully (both start after their host parts at 500 us), so each iteration takes 500 + 2,000.
  const Endpoint e(1000.0, 1000.0, 500.0);
  LlmGpuGroup group(LlmGpuGroup::Mode::kConcurrent);
  Pair p(e, e);
  p.run(group);
  EXPECT_DOUBLE_EQ(ttft(p.a), 2500.0);
  EXPECT_DOUBLE_EQ(latency(p.a), 7500.0);
}

TEST(LlmGpuGroup, TimeSlicedIterationsTakeTurnsWithASwitchBetweenContexts) {
  // 1,000 us GPU parts, no host time, a 100 us context switch, slices longer than any part:
  // A [0, 1000], switch, B [1100, 2100], switch, A [2200, 3200], B [3300, 4300],
  // A [4400, 5400], B [5500, 6500].
  const Endpoint e(1000.0, 0.0);
  LlmGpuGroup group(LlmGpuGroup::Mode::kTurns, 1e6, 100.0);
  Pair p(e, e);
  p.run(group);
  EXPECT_DOUBLE_EQ(ttft(p.a), 1000.0);
  EXPECT_DOUBLE_EQ(ttft(p.b), 2100.0);
  EXPECT_DOUBLE_EQ(latency(p.a), 5400.0);
  EXPECT_DOUBLE_EQ(latency(p.b), 6500.0);
  EXPECT_EQ(group.switches(), 5);
  // Six GPU parts of 1,000 us computed; the five switches computed nothing.
  EXPECT_DOUBLE_EQ(group.usage().busy_us, 6000.0);
  EXPECT_DOUBLE_EQ(group.usage().sm_us, 6000.0);
}

TEST(LlmGpuGroup, AnIterationWaitsForTheHoldersSliceToExpire) {
  // A's one iteration needs 10,000 us of GPU, B's 1,000 us; slices of 2,000 us, switches of
  // 100 us. A runs [0, 2000], its slice expires with B waiting: switch, B [2100, 3100], switch,
  // A [3200, 11200].
  const Endpoint long_part(10000.0, 0.0, 0.0, 1);
  const Endpoint short_part(1000.0, 0.0, 0.0, 1);
  LlmGpuGroup group(LlmGpuGroup::Mode::kTurns, 2000.0, 100.0);
  Pair p(long_part, short_part);
  p.run(group);
  EXPECT_DOUBLE_EQ(latency(p.b), 3100.0);
  EXPECT_DOUBLE_EQ(latency(p.a), 11200.0);
  EXPECT_EQ(group.switches(), 2);
}

TEST(LlmGpuGroup, LongPartsAlternateSliceBySliceWhateverTheRoundsSkipped) {
  // Two 10,000 us GPU parts, 1,000 us slices, 100 us switches: A's and B's slices alternate,
  // A's 10th ends at 9 x 2,200 + 1,000 = 20,800 us, B's at 21,900 us; 19 hand-overs. Nine
  // whole rounds are taken at once (the state after them is a slice's start), the rest slice
  // by slice.
  const Endpoint e(10000.0, 0.0, 0.0, 1);
  LlmGpuGroup group(LlmGpuGroup::Mode::kTurns, 1000.0, 100.0);
  Pair p(e, e);
  p.run(group);
  EXPECT_NEAR(latency(p.a), 20800.0, 1e-6);
  EXPECT_NEAR(latency(p.b), 21900.0, 1e-6);
  EXPECT_EQ(group.switches(), 19);
  EXPECT_NEAR(group.usage().busy_us, 20000.0, 1e-6);
}

TEST(LlmGpuGroup, AnEndpointAloneInItsGroupRunsAsItWouldAlone) {
  const Endpoint e(1000.0, 600.0, 250.0);
  LlmGpuGroup group(LlmGpuGroup::Mode::kTurns, 2000.0, 100.0);
  LlmReplica grouped(e.spec, 0.0, 1);
  grouped.join_group(0.0, group, 1.0);
  grouped.set_rate(0.0, 1.0);
  grouped.end(1e7);
  LlmReplica solo(e.spec, 0.0, 1);
  solo.set_rate(0.0, 1.0);
  solo.end(1e7);
  EXPECT_DOUBLE_EQ(latency(grouped), latency(solo));
  EXPECT_DOUBLE_EQ(latency(solo), 3.0 * 1250.0);
}

TEST(LlmGpuGroup, LeavingMidIterationKeepsTheWorkLeft) {
  // A and B share the bandwidth for 1,000 us (half of their first iteration's GPU part done),
  // then B leaves: A finishes the other half alone in 500 us.
  const Endpoint e(1000.0, 1000.0, 0.0, 1);
  LlmGpuGroup group(LlmGpuGroup::Mode::kConcurrent);
  LlmReplica a(e.spec, 0.0, 1), b(e.spec, 0.0, 2);
  a.join_group(0.0, group, 1.0);
  b.join_group(0.0, group, 1.0);
  a.set_rate(0.0, 1.0);
  b.set_rate(0.0, 1.0);
  b.kill(1000.0);
  EXPECT_EQ(b.group(), nullptr);
  a.leave_group(1000.0);
  a.end(1e7);
  EXPECT_DOUBLE_EQ(latency(a), 1500.0);
  EXPECT_EQ(b.counts().dropped, 1);
}

}  // namespace
}  // namespace gpumux
