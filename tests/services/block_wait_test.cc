// Requests under MPS on hand-computed cases (docs/services.md "Requests under MPS"): a request
// beside a co-runner whose blocks hold every SM waits for them to end and then runs its own
// work; one whose blocks fit beside the co-runner's starts at once; interference stretches it
// by the share of SMs the co-runner holds.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/services/block_schedule.h"
#include "sim/services/service_replica.h"

namespace gpumux {
namespace {

constexpr double kMs = 1000.0;  // us
constexpr double kS = 1e6;      // us

// An A100's 108 SMs, a service of 22 blocks (sm_share 0.2) and a never-idle co-runner of fixed
// 10 s kernels of `other_blocks` blocks.
BlockContext beside(int other_blocks, double interference = 0.0) {
  BlockContext c;
  c.sms = 108;
  c.interference = interference;
  c.fixed_lengths = true;
  c.service_blocks = 22;
  c.service_cap = 108;
  c.others = {BlockContender{1.0, 10 * kS, other_blocks, 108}};
  return c;
}

TEST(BlockSchedule, ARequestBesideAKernelHoldingEverySmWaitsForItsBlocks) {
  BlockSchedule s(7);
  s.reset(0.0, beside(108));
  // The co-runner's first kernel starts at a random phase within 10 s and holds all 108 SMs
  // until it ends; a request ready at 10.5 s waits for that end (within 10 s), then its 22
  // blocks run 1 ms, while the co-runner's next kernel takes the other 86 SMs and waits for 22.
  const double t1 = 10.5 * kS;
  const double end1 = s.serve(t1, 1 * kMs);
  EXPECT_GT(end1 - t1, 1 * kMs);
  EXPECT_LE(end1 - t1, 10 * kS + 1 * kMs + 1e-6);
  // At end1 the co-runner's last 22 blocks start (they end at end1 + 10 s) and its 86 first
  // ones end 10 s after they started, at end1 - 1 ms + 10 s: a request ready 35 ms after end1
  // finds no free SM and waits for those 86 to end, then runs 1 ms: it ends at end1 + 10 s.
  const double t2 = end1 + 35 * kMs;
  EXPECT_NEAR(s.serve(t2, 1 * kMs), end1 + 10 * kS, 1e-6);
}

TEST(BlockSchedule, ARequestWhoseBlocksFitBesideTheCorunnerStartsAtOnce) {
  BlockSchedule s(7);
  s.reset(0.0, beside(54));  // 54 + 22 <= 108: room for both, whatever the phase
  for (double t : {0.0, 3.3 * kS, 12.0 * kS}) {
    EXPECT_NEAR(s.serve(t, 4 * kMs), t + 4 * kMs, 1e-6);
  }
}

TEST(BlockSchedule, InterferenceStretchesTheRequestByTheSmsTheOthersHold) {
  BlockSchedule s(7);
  s.reset(0.0, beside(54, 0.5));
  // From 10.5 s the co-runner surely holds 54 of 108 SMs: the request's blocks last
  // 4 ms x (1 + 0.5 x 54 / 108) = 5 ms.
  const double t = 10.5 * kS;
  EXPECT_NEAR(s.serve(t, 4 * kMs), t + 5 * kMs, 1e-6);
}

TEST(RequestLevelReplica, OnAnMpsGpuLatencyIsTheWaitForSmsNotAStretchByTheRate) {
  ServiceSpec spec;
  spec.arrival = ArrivalKind::kTrace;
  spec.times_s = std::make_shared<const std::vector<double>>(std::vector<double>{20.0, 21.0});
  spec.service_ms = 4.0;
  RequestLevelReplica r(spec, 0.0, 3);
  const BlockContext c = beside(54);
  r.set_context(0.0, ServiceGpuContext{nullptr, &c});
  r.set_rate(0.0, 0.25);  // the fluid rate would make each request 16 ms
  r.end(30 * kS);
  ASSERT_EQ(r.counts().served, 2);
  EXPECT_NEAR(r.latencies().mean_us(), 4 * kMs, 1e-6);
}

}  // namespace
}  // namespace gpumux
