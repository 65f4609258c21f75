// The analytic mode: M/D/1 formulas, and agreement with the request-level mode on Poisson
// arrivals (alone, and across rate changes).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "sim/services/service_replica.h"

namespace gpumux {
namespace {

ServiceSpec poisson(double rate_per_s, double service_ms) {
  ServiceSpec s;
  s.arrival = ArrivalKind::kPoisson;
  s.rate_per_s = rate_per_s;
  s.service_ms = service_ms;
  return s;
}

TEST(MD1, DecaySolvesTheCramerLundbergEquation) {
  for (double rho : {0.05, 0.3, 0.5, 0.8, 0.95}) {
    const MD1 m = md1(10'000.0, rho);
    const double x = m.decay_per_us * m.service_us;
    EXPECT_NEAR(rho * std::expm1(x), x, 1e-9 * x) << rho;
    EXPECT_GT(x, std::log(1.0 / rho));
    EXPECT_LE(m.tail_constant, 1.0);
    EXPECT_NEAR(m.mean_wait_us, rho * 10'000.0 / (2 * (1 - rho)), 1e-9);
    EXPECT_DOUBLE_EQ(m.wait_tail(0.0), rho);
  }
}

// Request-level vs analytic for one replica whose rate follows `rates` (one per `step_s`).
struct Pair {
  RequestLevelReplica request;
  AnalyticReplica analytic;
  Pair(const ServiceSpec& s, std::uint64_t seed) : request(s, 0, seed), analytic(s, 0, seed) {}
  void run(const std::vector<double>& rates, double step_s) {
    double t = 0;
    for (double r : rates) {
      request.set_rate(t, r);
      analytic.set_rate(t, r);
      t += step_s * 1e6;
    }
    request.end(t);
    analytic.end(t);
  }
};

TEST(AnalyticReplica, MatchesTheRequestLevelModeAloneOnAGpu) {
  for (double rho : {0.3, 0.6, 0.85}) {
    ServiceSpec s = poisson(rho * 100.0, 10.0);  // S = 10 ms
    s.slo_ms = 30.0;
    Pair p(s, 11);
    p.run({1.0}, 20'000.0);  // 0.6-1.7 M requests
    const auto& q = p.request.latencies();
    const auto& a = p.analytic.latencies();
    // Exact P-K mean vs the simulated one: M/D/1 at 0.85 has long busy periods; 4% holds.
    EXPECT_NEAR(a.mean_us() / q.mean_us(), 1.0, 0.04) << rho;
    EXPECT_NEAR(a.percentile_us(0.95) / q.percentile_us(0.95), 1.0, 0.10) << rho;
    EXPECT_NEAR(a.percentile_us(0.99) / q.percentile_us(0.99), 1.0, 0.10) << rho;
    const double sa = p.analytic.counts().within_slo / p.analytic.counts().served;
    const double sq = p.request.counts().within_slo / p.request.counts().served;
    EXPECT_NEAR(sa, sq, 0.02) << rho;
    EXPECT_NEAR(p.analytic.counts().arrived / p.request.counts().arrived, 1.0, 0.01);
  }
}

TEST(AnalyticReplica, FollowsRateChangesLikeTheRequestLevelMode) {
  // Neighbours come and go: the rate steps between 1, 0.5 and 0.7 every 10 minutes.
  ServiceSpec s = poisson(40.0, 10.0);  // rho 0.4 at rate 1, 0.8 at rate 0.5
  s.slo_ms = 50.0;
  std::vector<double> rates;
  for (int i = 0; i < 30; ++i) rates.push_back(i % 3 == 0 ? 1.0 : (i % 3 == 1 ? 0.5 : 0.7));
  Pair p(s, 5);
  p.run(rates, 600.0);
  const auto& q = p.request.latencies();
  const auto& a = p.analytic.latencies();
  EXPECT_NEAR(a.mean_us() / q.mean_us(), 1.0, 0.05);
  EXPECT_NEAR(a.percentile_us(0.50) / q.percentile_us(0.50), 1.0, 0.10);
  EXPECT_NEAR(a.percentile_us(0.95) / q.percentile_us(0.95), 1.0, 0.10);
  EXPECT_NEAR(a.percentile_us(0.99) / q.percentile_us(0.99), 1.0, 0.10);
  EXPECT_NEAR(p.analytic.counts().within_slo / p.analytic.counts().served,
              p.request.counts().within_slo / p.request.counts().served, 0.02);
}

TEST(AnalyticReplica, OverloadServesAtCapacityAndLeavesTheRest) {
  ServiceSpec s = poisson(200.0, 10.0);  // rho 2: capacity 100 per s
  AnalyticReplica a(s, 0, 1);
  a.set_rate(0, 1.0);
  a.end(100e6);
  EXPECT_NEAR(a.counts().arrived, 20'000, 1e-6);
  EXPECT_NEAR(a.counts().served, 10'000, 1e-6);
  EXPECT_NEAR(a.counts().unfinished, 10'000, 1e-6);
  // Waits grow to (rho - 1) / rho of the interval: a mean of a quarter of it.
  EXPECT_NEAR(a.latencies().mean_us(), 10'000 + 0.25 * 100e6, 1.0);
  s.timeout_ms = 1000.0;
  AnalyticReplica t(s, 0, 1);
  t.set_rate(0, 1.0);
  t.end(100e6);
  EXPECT_NEAR(t.counts().timed_out, 10'000, 1e-6);
  EXPECT_NEAR(t.latencies().mean_us(), 10'000 + 0.5 * 1e6, 1.0);
}

TEST(AnalyticReplica, TimeoutsFollowTheWaitingTail) {
  for (const auto& [rate, timeout] : {std::pair{80.0, 30.0}, {80.0, 12.0}, {95.0, 40.0}}) {
    ServiceSpec s = poisson(rate, 10.0);  // rho 0.8 and 0.95
    s.timeout_ms = timeout;
    Pair p(s, 3);
    p.run({1.0}, 20'000.0);
    const double ta = p.analytic.counts().timed_out / p.analytic.counts().arrived;
    const double tq = p.request.counts().timed_out / p.request.counts().arrived;
    EXPECT_GT(tq, 0.03) << rate << " " << timeout;
    EXPECT_NEAR(ta, tq, 0.15 * tq) << rate << " " << timeout;
    EXPECT_NEAR(p.analytic.latencies().mean_us() / p.request.latencies().mean_us(), 1.0, 0.05)
        << rate << " " << timeout;
    EXPECT_NEAR(
        p.analytic.latencies().percentile_us(0.95) / p.request.latencies().percentile_us(0.95), 1.0,
        0.10)
        << rate << " " << timeout;
  }
}

}  // namespace
}  // namespace gpumux
