// Requests under time-slicing on hand-computed cases (docs/services.md "Requests under
// time-slicing"): a request that arrives while a co-runner holds the GPU waits for the slice
// boundary plus the switch and then runs at full speed; a longer one alternates slices; one that
// arrives while the co-runner is idle runs at once, at full speed.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/services/service_replica.h"
#include "sim/services/slice_schedule.h"

namespace gpumux {
namespace {

constexpr double kSliceWaitMs = 1000.0;  // us

// A co-runner that never leaves the GPU (duty 1, one kernel of 10 s) under 10 ms slices and
// 50 us switches, kernel lengths fixed.
SliceContext busy_corunner() {
  SliceContext c;
  c.slice_us = 10 * kSliceWaitMs;
  c.switch_us = 50;
  c.fixed_lengths = true;
  c.others = {SliceContender{1.0, 10e6}};
  return c;
}

TEST(SliceSchedule, ARequestMidSliceWaitsForTheSliceEndAndTheSwitch) {
  SliceSchedule s(7);
  s.reset(0.0, busy_corunner());
  // The co-runner starts within its first 10 s (a random phase) and keeps the GPU, renewing
  // its slice while nobody waits: the first request waits for an unknown boundary, at most a
  // slice, then the switch, then runs 1 ms.
  const double t1 = 10.5e6;
  const double end1 = s.serve(t1, 1 * kSliceWaitMs);
  const double wait1 = end1 - t1 - 1 * kSliceWaitMs - 50;
  EXPECT_GT(wait1, 0.0);
  EXPECT_LE(wait1, 10 * kSliceWaitMs + 1e-6);
  // At end1 the co-runner (waiting) switches back in: its slice starts at end1 + 50 us, so its
  // boundaries are end1 + 50 us + k * 10 ms. A request ready 35 ms later waits for the boundary
  // at end1 + 40.05 ms, switches (50 us) and runs 1 ms: it ends at end1 + 41.1 ms.
  const double t2 = end1 + 35 * kSliceWaitMs;
  const double end2 = s.serve(t2, 1 * kSliceWaitMs);
  EXPECT_NEAR(end2, end1 + 41.1 * kSliceWaitMs, 1e-6);
  EXPECT_NEAR(end2 - t2, 6.1 * kSliceWaitMs, 1e-6);  // 5.05 wait + 0.05 switch + 1 ms work
  // A 25 ms request under 10 ms slices: boundary at end2 + 40.05 ms, then switch, 10 ms of its
  // work, switch, 10 ms of the co-runner, switch, 10 ms, switch, 10 ms co-runner, switch, 5 ms:
  // 45.25 ms after the boundary.
  const double t3 = end2 + 35 * kSliceWaitMs;
  const double end3 = s.serve(t3, 25 * kSliceWaitMs);
  EXPECT_NEAR(end3, end2 + (40.05 + 45.25) * kSliceWaitMs, 1e-6);
}

TEST(SliceSchedule, ARequestWhileTheCorunnerIsIdleRunsAtOnceAtFullSpeed) {
  // A co-runner of 1 us kernels every ~1,000 s (duty 1e-9): its first kernel comes at a random
  // phase in [0, 1,000 s), with this seed well after the request; the GPU is idle and nobody
  // is resident, so the request starts without a switch.
  SliceContext c = busy_corunner();
  c.others = {SliceContender{1e-9, 1.0}};
  SliceSchedule s(7);
  s.reset(0.0, c);
  const double t = 1e6;
  EXPECT_DOUBLE_EQ(s.serve(t, 4 * kSliceWaitMs), t + 4 * kSliceWaitMs);
  // The service stays resident: its next burst after the launch gap (0) resumes for free too.
  EXPECT_DOUBLE_EQ(s.serve(t + 10 * kSliceWaitMs, 4 * kSliceWaitMs), t + 14 * kSliceWaitMs);
}

TEST(RequestLevelReplica, OnASlicedGpuLatencyIsSliceWaitNotAStretchByTheRate) {
  // One request at 20 s next to the never-idle co-runner: the fluid view would stretch its
  // 4 ms by 1/rate (0.5 here: 8 ms); the slice schedule gives wait (<= one slice) + 50 us +
  // 4 ms.
  ServiceSpec spec;
  spec.arrival = ArrivalKind::kTrace;
  spec.times_s = std::make_shared<const std::vector<double>>(std::vector<double>{20.0});
  spec.service_ms = 4.0;
  RequestLevelReplica r(spec, 0.0, 3);
  const SliceContext c = busy_corunner();
  r.set_context(0.0, ServiceGpuContext{&c, nullptr});
  r.set_rate(0.0, 0.5);
  r.end(30e6);
  ASSERT_EQ(r.counts().served, 1);
  const double latency = r.latencies().mean_us();
  EXPECT_GT(latency, 4 * kSliceWaitMs + 50);
  EXPECT_LE(latency, 14 * kSliceWaitMs + 50 + 1e-6);
  // Without the slice context the same request is stretched by the rate.
  RequestLevelReplica fluid(spec, 0.0, 3);
  fluid.set_rate(0.0, 0.5);
  fluid.end(30e6);
  EXPECT_NEAR(fluid.latencies().mean_us(), 8 * kSliceWaitMs, 1e-6);
}

TEST(RequestLevelReplica, OnlyTheGpuBusyShareOfARequestWaitsForSlices) {
  // A 30 ms request next to the never-idle co-runner. All GPU work (share 1): three 10 ms
  // slices, so at least two hand-overs of a co-runner slice and two switches (10.1 ms each) and
  // the first switch in: >= 30 + 20.2 + 0.05 ms. Half of it CPU (share 0.5): 15 ms that wait for
  // nobody, then 15 ms of GPU: at most a slice's wait and a switch, 10 ms, a hand-over, 5 ms:
  // <= 15 + 10.05 + 10 + 10.1 + 5 = 50.15 ms.
  ServiceSpec spec;
  spec.arrival = ArrivalKind::kTrace;
  spec.times_s = std::make_shared<const std::vector<double>>(std::vector<double>{20.0});
  spec.service_ms = 30.0;
  const SliceContext c = busy_corunner();
  const auto latency = [&](double share) {
    spec.gpu_busy_share = share;
    RequestLevelReplica r(spec, 0.0, 3);
    r.set_context(0.0, ServiceGpuContext{&c, nullptr});
    r.set_rate(0.0, 0.5);
    r.end(30e6);
    EXPECT_EQ(r.counts().served, 1);
    return r.latencies().mean_us();
  };
  EXPECT_GE(latency(1.0), 50.25 * kSliceWaitMs - 1e-6);
  EXPECT_LE(latency(0.5), 50.15 * kSliceWaitMs + 1e-6);
  EXPECT_GE(latency(0.5), 30 * kSliceWaitMs + 100);  // two switches at least
}

TEST(RequestLevelReplica, LeavingTheSlicedGpuMidRequestFinishesItAtTheFluidRate) {
  ServiceSpec spec;
  spec.arrival = ArrivalKind::kTrace;
  spec.times_s = std::make_shared<const std::vector<double>>(std::vector<double>{1.0});
  spec.service_ms = 100.0;
  RequestLevelReplica r(spec, 0.0, 3);
  SliceContext c = busy_corunner();
  c.others = {SliceContender{1e-9, 1.0}};  // idle co-runner: the request runs at once
  r.set_context(0.0, ServiceGpuContext{&c, nullptr});
  r.set_rate(0.0, 1.0);
  // 40 ms in, the co-runner leaves: the remaining 60 ms go on at rate 1.
  r.set_context(1.04e6, ServiceGpuContext{});
  r.set_rate(1.04e6, 1.0);
  r.end(5e6);
  ASSERT_EQ(r.counts().served, 1);
  EXPECT_NEAR(r.latencies().mean_us(), 100 * kSliceWaitMs, 1e-6);
}

}  // namespace
}  // namespace gpumux
