// The request-level replica on hand-checkable cases: FIFO order, batching, rate changes,
// timeouts, queue limits, kills, lifetime ends, and the arrival processes.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "sim/services/service_replica.h"

namespace gpumux {
namespace {

ServiceSpec at_times(std::vector<double> times_s, double service_ms) {
  ServiceSpec s;
  s.arrival = ArrivalKind::kTrace;
  s.times_s = std::make_shared<const std::vector<double>>(std::move(times_s));
  s.service_ms = service_ms;
  return s;
}

constexpr double kReplicaMs = 1000.0;  // us

TEST(RequestLevelReplica, ServesSpacedRequestsInTheirServiceTime) {
  const ServiceSpec s = at_times({0.0, 1.0, 2.0}, 10.0);
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(10e6);
  EXPECT_EQ(r.counts().arrived, 3);
  EXPECT_EQ(r.counts().served, 3);
  EXPECT_NEAR(r.latencies().mean_us(), 10 * kReplicaMs, 1e-6);
}

TEST(RequestLevelReplica, ArrivalTimesAreRelativeToTheOrigin) {
  const ServiceSpec s = at_times({0.0, 1.0}, 10.0);
  RequestLevelReplica r(s, 5e6, 1);
  r.set_rate(5e6, 1.0);
  r.end(5.5e6);  // the second request (at 6 s) never comes
  EXPECT_EQ(r.counts().arrived, 1);
}

TEST(RequestLevelReplica, QueuesFifoAndBatchesWhatWaited) {
  // First request starts alone; the next two wait and, with max_batch 2, go together.
  ServiceSpec s = at_times({0.0, 0.001, 0.002}, 10.0);
  {
    RequestLevelReplica r(s, 0.0, 1);
    r.set_rate(0.0, 1.0);
    r.end(1e6);
    EXPECT_NEAR(r.latencies().mean_us(), (10 + 19 + 28) * kReplicaMs / 3, 1e-6);  // 10, 20-1, 30-2
  }
  s.max_batch = 2;
  s.batch_cost = 0.2;
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(1e6);
  EXPECT_NEAR(r.latencies().mean_us(), (10 + 21 + 20) * kReplicaMs / 3,
              1e-6);  // batch ends at 22 ms
}

TEST(RequestLevelReplica, ProgressesAtTheRateOfEachInterval) {
  const ServiceSpec s = at_times({0.0}, 10.0);
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.set_rate(5 * kReplicaMs, 0.5);  // 5 ms of work left at half speed: 10 ms more
  r.end(1e6);
  EXPECT_NEAR(r.latencies().mean_us(), 15 * kReplicaMs, 1e-6);
}

TEST(RequestLevelReplica, TimesOutRequestsThatWaitTooLong) {
  ServiceSpec s = at_times({0.0, 0.0, 0.0}, 10.0);
  s.timeout_ms = 15.0;  // the third would start at 20 ms
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(1e6);
  EXPECT_EQ(r.counts().served, 2);
  EXPECT_EQ(r.counts().timed_out, 1);
}

TEST(RequestLevelReplica, DropsArrivalsBeyondTheQueueLimit) {
  ServiceSpec s = at_times({0.0, 0.0, 0.0}, 10.0);
  s.max_queue = 1;
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(1e6);
  EXPECT_EQ(r.counts().served, 2);
  EXPECT_EQ(r.counts().dropped, 1);
}

TEST(RequestLevelReplica, KillDropsHeldRequestsAndArrivalsWhileDown) {
  const ServiceSpec s = at_times({0.0, 0.0, 1.0, 3.0}, 10.0);
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.kill(5 * kReplicaMs);  // one in service, one waiting
  r.set_rate(2e6, 1.0);  // back at 2 s: the request at 1 s found nobody
  r.end(10e6);
  EXPECT_EQ(r.counts().arrived, 4);
  EXPECT_EQ(r.counts().dropped, 3);
  EXPECT_EQ(r.counts().served, 1);
}

TEST(RequestLevelReplica, RequestsHeldAtTheEndAreUnfinished) {
  const ServiceSpec s = at_times({0.0, 0.0}, 10.0);
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(5 * kReplicaMs);
  EXPECT_EQ(r.counts().unfinished, 2);
  EXPECT_EQ(r.counts().served, 0);
}

TEST(RequestLevelReplica, SloCountsServedRequestsWithinIt) {
  ServiceSpec s = at_times({0.0, 0.0, 0.0}, 10.0);
  s.slo_ms = 20.0;  // latencies 10, 20, 30
  RequestLevelReplica r(s, 0.0, 1);
  r.set_rate(0.0, 1.0);
  r.end(1e6);
  EXPECT_EQ(r.counts().within_slo, 2);
}

TEST(RequestArrivals, RateSeriesGivesTheIntegralOfItsRate) {
  ServiceSpec s;
  s.arrival = ArrivalKind::kSeries;
  auto series = std::make_shared<RateSeries>();
  series->points = {{0.0, 100.0}, {10.0, 0.0}};
  series->repeat_s = 20.0;  // 1,000 requests per 20 s period
  s.series = series;
  s.service_ms = 1.0;
  RequestLevelReplica r(s, 0.0, 7);
  r.set_rate(0.0, 1.0);
  r.end(100e6);
  EXPECT_NEAR(r.counts().arrived, 5000.0, 4 * std::sqrt(5000.0));
  // No request arrives in the silent halves: each lands in [20k, 20k + 10) s.
  RequestArrivals a(s, 0.0, 7);
  for (int i = 0; i < 2000; ++i) {
    const double t = a.next() * 1e-6;
    EXPECT_LT(std::fmod(t, 20.0), 10.0);
  }
}

TEST(RequestArrivals, ExhaustedSeriesEnds) {
  ServiceSpec s;
  s.arrival = ArrivalKind::kSeries;
  auto series = std::make_shared<RateSeries>();
  series->points = {{0.0, 10.0}, {1.0, 0.0}};
  s.series = series;
  RequestArrivals a(s, 0.0, 3);
  double t = 0;
  int n = 0;
  while ((t = a.next()) != RequestArrivals::kNever) {
    EXPECT_LT(t, 1e6);
    ++n;
  }
  EXPECT_GT(n, 0);
}

}  // namespace
}  // namespace gpumux
