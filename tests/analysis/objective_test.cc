#include "analysis/plan/objective.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "sim/base/input_error.h"

namespace gpumux {
namespace {

// A summary with the keys objectives read: 10 jobs arrived, 1 failed, 2 kills.
nlohmann::json summary(std::uint64_t rejected, std::uint64_t unfinished_queued) {
  nlohmann::json m;
  m["jobs"] = {
      {"arrived", 10}, {"finished", 9 - rejected - unfinished_queued}, {"rejected", rejected},
      {"failed", 1},   {"unfinished_queued", unfinished_queued},       {"unfinished_running", 0}};
  m["failures"] = {{"jobs_killed", 2}};
  m["queueing_delay_s"] = {{"mean", 5.0}, {"p50", 1.0},  {"p90", 30.0},
                           {"p95", 60.0}, {"p99", 90.0}, {"max", 120.0}};
  m["jct_s"] = {{"mean", 50.0}, {"p50", 40.0}, {"p90", 80.0},
                {"p95", 95.0},  {"p99", 99.0}, {"max", 100.0}};
  return {{"metrics", m}};
}

std::string error_of(const std::string& text) {
  try {
    parse_objective(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Objective, ParsesBothDirectionsAndNormalisesText) {
  const Objective q = parse_objective("queue_p95_s <= 60");
  EXPECT_EQ(q.metric, "queueing_delay_s.p95");  // the alias is kept as the catalogue name
  EXPECT_EQ(q.bound, Bound::kAtMost);
  EXPECT_DOUBLE_EQ(q.limit, 60);
  EXPECT_EQ(q.text(), "queueing_delay_s.p95<=60");
  const Objective s = parse_objective("slo_attainment>=0.99");
  EXPECT_EQ(s.bound, Bound::kAtLeast);
  EXPECT_DOUBLE_EQ(s.limit, 0.99);
  EXPECT_EQ(parse_objective("failed_share<=0").text(), "failed_share<=0");
  EXPECT_EQ(parse_objective("request_p99_ms<=1.5e2").limit, 150);
}

TEST(Objective, TakesCatalogueNamesAndAliasesAlike) {
  for (const auto& [dotted, alias] : std::vector<std::pair<std::string, std::string>>{
           {"queueing_delay_s.p95", "queue_p95_s"},
           {"jct_s.p95", "jct_p95_s"},
           {"jct_s.max", "jct_max_s"},
           {"requests.latency_ms.p99", "request_p99_ms"},
           {"requests.slo_attainment", "slo_attainment"}}) {
    const std::string op = dotted == "requests.slo_attainment" ? ">=" : "<=";
    const Objective a = parse_objective(dotted + op + "0.5");
    const Objective b = parse_objective(alias + op + "0.5");
    EXPECT_EQ(a.metric, dotted);
    EXPECT_EQ(b.metric, dotted) << alias;
    EXPECT_EQ(a.text(), b.text());
    EXPECT_EQ(a.bound, b.bound);
  }
  // Any directed catalogue metric is an objective, bounded the way it improves.
  EXPECT_EQ(parse_objective("slowdown.p95<=2").bound, Bound::kAtMost);
  EXPECT_EQ(parse_objective("gpu_allocation_ratio>=0.5").bound, Bound::kAtLeast);
  EXPECT_NE(error_of("gpu_allocation_ratio<=0.5").find("takes a lower bound"), std::string::npos);
  EXPECT_NE(error_of("gpu_allocation_ratio>=1.5").find("out of range [0, 1]"), std::string::npos);
  // A count of jobs is reported, never an objective; rejected/unfinished are always applied.
  EXPECT_NE(error_of("jobs.arrived<=10").find("no objective"), std::string::npos);
  EXPECT_NE(error_of("rejected_jobs<=3").find("always applies"), std::string::npos);
  // The same metric twice, once by its alias, is refused.
  EXPECT_THROW(plan_objectives({"queue_p95_s<=60", "queueing_delay_s.p95<=30"}), InputError);
}

TEST(Objective, ChecksAnyCatalogueMetricAgainstTheSummary) {
  nlohmann::json s = summary(0, 0);
  s["metrics"]["slowdown"] = {{"p95", 1.8}, {"p99", nullptr}};
  s["metrics"]["gpu_allocation_ratio"] = 0.42;
  EXPECT_TRUE(check_objective(parse_objective("slowdown.p95<=2"), s).met);
  EXPECT_FALSE(check_objective(parse_objective("slowdown.p95<=1.5"), s).met);
  EXPECT_DOUBLE_EQ(check_objective(parse_objective("slowdown.p95<=2"), s).value, 1.8);
  // null: an empty set, n/a and never met.
  const auto na = check_objective(parse_objective("slowdown.p99<=2"), s);
  EXPECT_TRUE(std::isnan(na.value));
  EXPECT_FALSE(na.met);
  EXPECT_TRUE(check_objective(parse_objective("gpu_allocation_ratio>=0.4"), s).met);
  EXPECT_DOUBLE_EQ(check_objective(parse_objective("queueing_delay_s.p95<=60"), s).value, 60);
  // A metric this run does not produce (slots without a slot model) is an error, not "not met".
  EXPECT_THROW(check_objective(parse_objective("slots.slice_utilization>=0.5"), s), InputError);
}

TEST(Objective, RefusesMalformedObjectivesWithAClearMessage) {
  EXPECT_NE(error_of("queue_p95_s>=60").find("takes an upper bound (<=)"), std::string::npos);
  EXPECT_NE(error_of("slo_attainment<=0.9").find("takes a lower bound (>=)"), std::string::npos);
  EXPECT_NE(error_of("queue_p96_s<=60").find("unknown metric (closest: queue_p90_s, queue_p95_s"),
            std::string::npos)
      << error_of("queue_p96_s<=60");
  EXPECT_NE(error_of("jct_s.p96<=60").find("closest: jct_s.p90, jct_s.p95"), std::string::npos)
      << error_of("jct_s.p96<=60");
  EXPECT_NE(error_of("queue_p95_s<60").find("expected METRIC<=NUMBER"), std::string::npos);
  EXPECT_NE(error_of("queue_p95_s=60").find("expected METRIC<=NUMBER"), std::string::npos);
  EXPECT_NE(error_of("queue_p95_s").find("expected METRIC<=NUMBER"), std::string::npos);
  EXPECT_NE(error_of("queue_p95_s<=1min").find("expected a number after the operator, got '1min'"),
            std::string::npos);
  EXPECT_NE(error_of("queue_p95_s<=").find("expected a number"), std::string::npos);
  EXPECT_NE(error_of("queue_p95_s<=inf").find("expected a number"), std::string::npos);
  EXPECT_NE(error_of("failed_share<=2").find("out of range [0, 1]"), std::string::npos);
  EXPECT_NE(error_of("queue_p95_s<=-1").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("rejected_jobs<=3").find("always applies"), std::string::npos);
  // The message names the objective as written.
  EXPECT_EQ(error_of("queue_p95_s>=60").rfind("--objective queue_p95_s>=60", 0), 0u);
}

TEST(Objective, PlanAddsTheImplicitObjectivesAndRefusesDuplicates) {
  const auto o = plan_objectives({"queue_p95_s<=60"});
  ASSERT_EQ(o.size(), 4u);
  EXPECT_FALSE(o[0].implicit);
  EXPECT_EQ(o[1].text(), "rejected_jobs<=0");
  EXPECT_EQ(o[2].text(), "unfinished_jobs<=0");
  EXPECT_EQ(o[3].text(), "failed_share<=0");
  EXPECT_TRUE(o[3].implicit);
  // A failed_share objective replaces the implicit one.
  const auto f = plan_objectives({"failed_share<=0.1"});
  ASSERT_EQ(f.size(), 3u);
  EXPECT_FALSE(f[0].implicit);
  EXPECT_THROW(plan_objectives({"queue_p95_s<=60", "queue_p95_s<=30"}), InputError);
}

// A request objective brings the availability guard (requests count from a service's first
// start), unless the start delay is bounded by the user; without a request objective, none.
TEST(Objective, RequestObjectivesBringTheServiceStartGuard) {
  const auto o = plan_objectives({"request_p99_ms<=200"});
  ASSERT_EQ(o.size(), 5u);
  EXPECT_EQ(o[4].text(), "requests.start_delay_s.max<=60");
  EXPECT_TRUE(o[4].implicit);
  const auto own = plan_objectives({"request_p99_ms<=200", "requests.start_delay_s.max<=600"});
  ASSERT_EQ(own.size(), 5u);
  EXPECT_EQ(own[1].text(), "requests.start_delay_s.max<=600");
  EXPECT_FALSE(own[1].implicit);
  for (const auto& x : plan_objectives({"queue_p95_s<=60"})) {
    EXPECT_NE(x.metric, "requests.start_delay_s.max");
  }
  // The guard reads the summary like any request metric.
  nlohmann::json s = {{"metrics",
                       {{"jobs", {{"arrived", 2}}},
                        {"requests", {{"start_delay_s", {{"max", 900.0}, {"mean", 450.0}}}}}}}};
  const auto c = check_objective(o[4], s);
  EXPECT_DOUBLE_EQ(c.value, 900.0);
  EXPECT_FALSE(c.met);
}

TEST(Objective, ReadsTheSummary) {
  const auto s = summary(0, 0);
  EXPECT_DOUBLE_EQ(check_objective(parse_objective("queue_p95_s<=60"), s).value, 60);
  EXPECT_TRUE(check_objective(parse_objective("queue_p95_s<=60"), s).met);
  EXPECT_FALSE(check_objective(parse_objective("queue_p99_s<=60"), s).met);
  EXPECT_DOUBLE_EQ(check_objective(parse_objective("jct_max_s<=100"), s).value, 100);
  EXPECT_DOUBLE_EQ(check_objective(parse_objective("oom_kill_share<=1"), s).value, 0.2);
  EXPECT_DOUBLE_EQ(check_objective(parse_objective("failed_share<=0.1"), s).value, 0.1);
  EXPECT_TRUE(check_objective(parse_objective("failed_share<=0.1"), s).met);
  EXPECT_FALSE(check_objective(parse_objective("failed_share<=0.05"), s).met);
}

TEST(Objective, RejectedOrUnfinishedJobsFailTheImplicitObjectives) {
  const auto o = plan_objectives({"queue_p95_s<=60"});
  // The latency target holds on the jobs that finished, but jobs were turned away.
  const auto rejected = summary(4, 0);
  EXPECT_TRUE(check_objective(o[0], rejected).met);
  EXPECT_FALSE(check_objective(o[1], rejected).met);
  EXPECT_DOUBLE_EQ(check_objective(o[1], rejected).value, 4);
  const auto unfinished = summary(0, 3);
  EXPECT_TRUE(check_objective(o[1], unfinished).met);
  EXPECT_FALSE(check_objective(o[2], unfinished).met);
}

TEST(Objective, RequestObjectivesNeedServices) {
  const Objective r = parse_objective("request_p95_ms<=200");
  EXPECT_TRUE(needs_services(r));
  EXPECT_FALSE(needs_services(parse_objective("queue_p95_s<=1")));
  try {
    check_objective(r, summary(0, 0));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has no inference services"), std::string::npos);
  }
  auto s = summary(0, 0);
  s["metrics"]["requests"] = {{"latency_ms", {{"p95", 180.0}}}, {"slo_attainment", 0.995}};
  EXPECT_TRUE(check_objective(r, s).met);
  EXPECT_DOUBLE_EQ(check_objective(r, s).value, 180);
  EXPECT_TRUE(check_objective(parse_objective("slo_attainment>=0.99"), s).met);
  EXPECT_FALSE(check_objective(parse_objective("slo_attainment>=0.999"), s).met);
  // A services summary without the statistic asked for is bad input, named.
  try {
    check_objective(parse_objective("request_p99_ms<=200"), s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("metrics.requests.latency_ms.p99"), std::string::npos);
  }
  // A null statistic is an empty set (no request ended with an SLO): n/a, never met.
  s["metrics"]["requests"]["slo_attainment"] = nullptr;
  const auto na = check_objective(parse_objective("slo_attainment>=0.9"), s);
  EXPECT_FALSE(na.met);
  EXPECT_TRUE(std::isnan(na.value));
}

TEST(Objective, PercentilesOfNoFinishedJobFailTheirObjective) {
  nlohmann::json s = {{"metrics",
                       {{"jobs", {{"arrived", 2}, {"rejected", 2}, {"failed", 0}}},
                        {"jct_s", {{"count", 0}, {"p95", nullptr}}},
                        {"queueing_delay_s", {{"count", 0}, {"p95", nullptr}}}}}};
  for (const char* text : {"queue_p95_s<=60", "jct_p95_s<=1e9"}) {
    const auto c = check_objective(parse_objective(text), s);
    EXPECT_FALSE(c.met) << text;
    EXPECT_TRUE(std::isnan(c.value)) << text;
  }
}

TEST(Objective, RelativeToExclusiveParsesAndChecksAgainstTheBaseline) {
  for (const char* text :
       {"jct_s.p95<=1.1x exclusive", "jct_s.p95 <= 1.1 x exclusive", "jct_s.p95<=1.1X exclusive"}) {
    const Objective o = parse_objective(text);
    EXPECT_TRUE(o.relative_to_exclusive) << text;
    EXPECT_DOUBLE_EQ(o.limit, 1.1);
    EXPECT_EQ(o.text(), "jct_s.p95<=1.1x exclusive");
  }
  nlohmann::json s = summary(0, 0);
  s["metrics"]["jct_s"]["p95"] = 110.0;
  const Objective o = parse_objective("jct_s.p95<=1.1x exclusive");
  // 110 s against 1.1 x 100 s: met, exactly at the bound; against 1.1 x 99 s: not.
  const auto at = check_objective(o, s, 100.0);
  EXPECT_TRUE(at.met);
  EXPECT_DOUBLE_EQ(at.value, 110.0);
  EXPECT_NEAR(at.bound, 110.0, 1e-9);
  EXPECT_FALSE(check_objective(o, s, 99.0).met);
  // No baseline (exclusive had no answer): never met.
  EXPECT_FALSE(check_objective(o, s).met);
  // A higher-is-better metric takes a relative lower bound.
  s["metrics"]["gpu_allocation_ratio"] = 0.5;
  EXPECT_TRUE(check_objective(parse_objective("gpu_allocation_ratio>=0.9x exclusive"), s, 0.5).met);
  EXPECT_FALSE(
      check_objective(parse_objective("gpu_allocation_ratio>=1.1x exclusive"), s, 0.5).met);
  // Malformed factors.
  EXPECT_NE(error_of("jct_s.p95<=1.1 exclusive").find("expected FACTORx exclusive"),
            std::string::npos);
  EXPECT_NE(error_of("jct_s.p95<=0x exclusive").find("factor 0 out of range (0, 1000000]"),
            std::string::npos);
  EXPECT_NE(error_of("jct_s.p95<=ax exclusive").find("expected a number"), std::string::npos);
}

TEST(Objective, TheJctGuardIsAppliedUnlessAJctBoundIsGivenOrItIsOff) {
  const auto guarded = plan_objectives({"queue_p95_s<=60"}, true);
  ASSERT_EQ(guarded.back().text(), "jct_s.p95<=1.1x exclusive");
  EXPECT_TRUE(guarded.back().implicit);
  EXPECT_TRUE(guarded.back().relative_to_exclusive);
  // Off, or replaced by the user's own jct_s.p95 bound (absolute or relative).
  for (const auto& objectives :
       {plan_objectives({"queue_p95_s<=60"}, false), plan_objectives({"jct_s.p95<=600"}, true),
        plan_objectives({"jct_s.p95<=1.5x exclusive"}, true)}) {
    int relative_implicit = 0;
    for (const auto& o : objectives) relative_implicit += o.implicit && o.relative_to_exclusive;
    EXPECT_EQ(relative_implicit, 0);
  }
}

}  // namespace
}  // namespace gpumux
