// Per-endpoint bounds: the selector grammar (`for NAME|GLOB|class:C`), the values it picks from
// a summary's per-service rows, and its use by `plan --objective` and `expect` bounds.
#include "analysis/metrics/endpoint_selector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/compare/compare_metrics.h"
#include "analysis/metrics/expectations.h"
#include "analysis/plan/objective.h"
#include "analysis/report/endpoint_section.h"
#include "sim/base/input_error.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

// Three endpoints: two LLM chat endpoints (classes chat) and a vision service without a class.
json endpoint_summary() {
  return json::parse(R"({"metrics": {
    "jobs": {"arrived": 3, "finished": 3, "rejected": 0, "failed": 0,
             "unfinished_queued": 0, "unfinished_running": 0},
    "requests": {
      "latency_ms": {"p99": 900.0},
      "ttft_ms": {"p99": 1200.0},
      "services": [
        {"id": "llm-chat-1", "class": "chat", "served": 100,
         "latency_ms": {"mean": 500, "p50": 400, "p95": 800, "p99": 850},
         "slo_attainment": null,
         "llm": {"ttft_ms": {"p50": 200, "p99": 700}, "tpot_ms": {"p99": 30},
                 "goodput_share": 1.0}},
        {"id": "llm-chat-2", "class": "chat", "served": 80,
         "latency_ms": {"mean": 600, "p50": 500, "p95": 950, "p99": 990},
         "slo_attainment": 0.97,
         "llm": {"ttft_ms": {"p50": 300, "p99": 1200}, "tpot_ms": {"p99": 45},
                 "goodput_share": 0.9}},
        {"id": "vision-a", "served": 5000,
         "latency_ms": {"mean": 8, "p50": 7, "p95": 20, "p99": 40},
         "slo_attainment": 0.999}
      ]}}})");
}

EndpointSelector selector(const std::string& text) {
  return *parse_bound_subject("m for " + text, "w", "f").endpoints;
}

std::string selector_error_of(const std::string& text) {
  try {
    parse_objective(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(EndpointSelector, ParsesNamesGlobsAndClasses) {
  const BoundSubject plain = parse_bound_subject("requests.ttft_ms.p99", "w", "f");
  EXPECT_EQ(plain.metric, "requests.ttft_ms.p99");
  EXPECT_FALSE(plain.endpoints);
  const BoundSubject named = parse_bound_subject("requests.ttft_ms.p99 for llm-chat-1", "w", "f");
  EXPECT_EQ(named.metric, "requests.ttft_ms.p99");
  ASSERT_TRUE(named.endpoints);
  EXPECT_EQ(named.endpoints->kind, EndpointSelector::Kind::kName);
  EXPECT_EQ(selector("llm-*").kind, EndpointSelector::Kind::kGlob);
  EXPECT_EQ(selector("class:chat").kind, EndpointSelector::Kind::kClass);
  EXPECT_EQ(selector("class:chat").pattern, "chat");
  EXPECT_EQ(selector("class:chat").text(), "class:chat");
  EXPECT_EQ(selector("  llm-?  ").text(), "llm-?");
}

TEST(EndpointSelector, RefusesAnEmptyOrSpacedSelector) {
  EXPECT_THROW(parse_bound_subject("m for ", "w", "f"), InputError);
  EXPECT_THROW(parse_bound_subject("m for class:", "w", "f"), InputError);
  try {
    parse_bound_subject("m for llm a", "s.json#/expect/x", "x");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("s.json#/expect/x"));
    EXPECT_THAT(e.what(), HasSubstr("holds a space"));
  }
}

TEST(EndpointSelector, GlobsMatchWholeIds) {
  EXPECT_TRUE(selector("llm-*").selects("llm-chat-1", ""));
  EXPECT_TRUE(selector("llm-*").selects("llm-", ""));
  EXPECT_FALSE(selector("llm-*").selects("vision-a", ""));
  EXPECT_TRUE(selector("*-1").selects("llm-chat-1", ""));
  EXPECT_FALSE(selector("*-1").selects("llm-chat-12", ""));
  EXPECT_TRUE(selector("llm-chat-?").selects("llm-chat-2", ""));
  EXPECT_FALSE(selector("llm-chat-?").selects("llm-chat-12", ""));
  EXPECT_TRUE(selector("*chat*").selects("llm-chat-2", ""));
  EXPECT_TRUE(selector("llm-chat-1").selects("llm-chat-1", ""));
  EXPECT_FALSE(selector("llm-chat").selects("llm-chat-1", "")) << "a name is exact";
  EXPECT_TRUE(selector("class:chat").selects("x", "chat"));
  EXPECT_FALSE(selector("class:chat").selects("chat", ""));
}

TEST(EndpointSelector, OnlyTheMetricsOfAServiceRowTakeASelector) {
  const auto& names = per_endpoint_metrics();
  for (const char* m : {"requests.latency_ms.p99", "requests.ttft_ms.p99", "requests.tpot_ms.p99",
                        "requests.slo_attainment", "requests.goodput_share"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), m), names.end()) << m;
  }
  for (const char* m : {"requests.start_delay_s.max", "requests.services_unstarted",
                        "requests.served_per_s", "jct_s.p95"}) {
    EXPECT_EQ(std::find(names.begin(), names.end(), m), names.end()) << m;
    EXPECT_THROW(require_per_endpoint_metric(m, "w"), InputError) << m;
  }
}

TEST(EndpointSelector, PicksEachEndpointsOwnValueInOrder) {
  const json s = endpoint_summary();
  const auto chat = endpoint_values(s, "requests.ttft_ms.p99", selector("class:chat"));
  ASSERT_EQ(chat.size(), 2u);
  EXPECT_EQ(chat[0].id, "llm-chat-1");
  EXPECT_EQ(*chat[0].value.value, 700.0);
  EXPECT_EQ(*chat[1].value.value, 1200.0);
  const auto latency = endpoint_values(s, "requests.latency_ms.p99", selector("*"));
  ASSERT_EQ(latency.size(), 3u);
  EXPECT_EQ(*latency[2].value.value, 40.0);
  // A null is n/a (no request with an SLO); a vision service reports no TTFT.
  const auto slo = endpoint_values(s, "requests.slo_attainment", selector("llm-*"));
  EXPECT_FALSE(slo[0].value.value);
  EXPECT_THAT(slo[0].value.why_na, HasSubstr("llm-chat-1"));
  const auto ttft = endpoint_values(s, "requests.ttft_ms.p99", selector("vision-a"));
  ASSERT_EQ(ttft.size(), 1u);
  EXPECT_FALSE(ttft[0].value.value);
  EXPECT_THAT(ttft[0].value.why_na, HasSubstr("no LLM endpoint"));
  EXPECT_TRUE(endpoint_values(s, "requests.ttft_ms.p99", selector("nobody")).empty());
  EXPECT_TRUE(
      endpoint_values(json::parse(R"({"metrics": {}})"), "requests.ttft_ms.p99", selector("*"))
          .empty());
}

TEST(PerEndpointObjective, ParsesWithItsSelectorAndRefusesWhatCannotHold) {
  const Objective o = parse_objective("requests.ttft_ms.p99 <= 1000 for llm-*");
  EXPECT_EQ(o.metric, "requests.ttft_ms.p99");
  ASSERT_TRUE(o.endpoints);
  EXPECT_EQ(o.text(), "requests.ttft_ms.p99<=1000 for llm-*");
  EXPECT_EQ(o.subject(), "requests.ttft_ms.p99 for llm-*");
  EXPECT_EQ(parse_objective("requests.slo_attainment>=0.99 for class:chat").text(),
            "requests.slo_attainment>=0.99 for class:chat");
  EXPECT_THAT(selector_error_of("jct_s.p95<=100 for llm-*"),
              HasSubstr("not reported per endpoint"));
  EXPECT_THAT(selector_error_of("requests.latency_ms.p99<=1.2x exclusive for llm-*"),
              HasSubstr("absolute"));
  EXPECT_THAT(selector_error_of("requests.ttft_ms.p99<=1000 for "),
              HasSubstr("no endpoint selector"));
}

TEST(PerEndpointObjective, AMetricOncePerSelector) {
  const auto objectives = plan_objectives({"requests.ttft_ms.p99<=1000 for llm-*",
                                           "requests.ttft_ms.p99<=500 for "
                                           "llm-chat-1",
                                           "requests.ttft_ms.p99<=2000"});
  EXPECT_GE(objectives.size(), 3u);
  try {
    plan_objectives(
        {"requests.ttft_ms.p99<=1000 for llm-*", "requests.ttft_ms.p99<=900 for llm-*"});
    FAIL() << "no error for a repeated metric and selector";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("given twice for llm-*"));
  }
}

TEST(PerEndpointObjective, EveryPickedEndpointMustMeetItAndTheMissIsNamed) {
  const json s = endpoint_summary();
  // The pool's p99 (1200) misses 1000, and so does llm-chat-2 on its own.
  const ObjectiveCheck miss =
      check_objective(parse_objective("requests.ttft_ms.p99<=1000 for llm-*"), s);
  EXPECT_FALSE(miss.met);
  EXPECT_EQ(miss.endpoint, "llm-chat-2");
  EXPECT_EQ(miss.value, 1200.0);
  // Met by both: the one nearest its bound is reported.
  const ObjectiveCheck met =
      check_objective(parse_objective("requests.tpot_ms.p99<=50 for class:chat"), s);
  EXPECT_TRUE(met.met);
  EXPECT_EQ(met.endpoint, "llm-chat-2");
  EXPECT_EQ(met.value, 45.0);
  // A lower bound: the smallest value decides.
  const ObjectiveCheck goodput =
      check_objective(parse_objective("requests.goodput_share>=0.95 for class:chat"), s);
  EXPECT_FALSE(goodput.met);
  EXPECT_EQ(goodput.endpoint, "llm-chat-2");
  // The vision service alone meets a bound the pool misses.
  EXPECT_TRUE(check_objective(parse_objective("requests.latency_ms.p99<=50 for vision-*"), s).met);
  // n/a (a null, a metric the endpoint lacks) meets nothing.
  EXPECT_FALSE(check_objective(parse_objective("requests.slo_attainment>=0.9 for llm-*"), s).met);
  EXPECT_FALSE(check_objective(parse_objective("requests.ttft_ms.p99<=1000 for *"), s).met);
}

TEST(PerEndpointObjective, ASelectorThatPicksNobodyOrARunWithoutServicesIsAnError) {
  EXPECT_THROW(
      check_objective(parse_objective("requests.ttft_ms.p99<=1000 for llm-x*"), endpoint_summary()),
      InputError);
  const json no_services = json::parse(
      R"({"metrics": {"jobs": {"arrived": 1, "rejected": 0, "failed": 0,
          "unfinished_queued": 0, "unfinished_running": 0}}})");
  EXPECT_THROW(check_objective(parse_objective("requests.ttft_ms.p99<=1000 for *"), no_services),
               InputError);
}

ExpectBound bound(const std::string& key, std::optional<double> min, std::optional<double> max) {
  ExpectBound b;
  b.metric = key;
  b.min = min;
  b.max = max;
  b.where = "s.json#/expect/" + key;
  return b;
}

TEST(PerEndpointExpect, EachPickedEndpointIsHeldToTheBound) {
  const auto results =
      check_expect({bound("requests.latency_ms.p99 for class:chat", std::nullopt, 950.0),
                    bound("requests.latency_ms.p99 for vision-a", std::nullopt, 50.0),
                    bound("requests.ttft_ms.p99 for llm-*", std::nullopt, 2000.0),
                    bound("requests.ttft_ms.p99 for db-*", std::nullopt, 2000.0)},
                   endpoint_summary());
  ASSERT_EQ(results.size(), 4u);
  EXPECT_FALSE(results[0].pass);
  EXPECT_EQ(results[0].endpoint, "llm-chat-2");
  EXPECT_EQ(*results[0].value.value, 990.0);
  EXPECT_TRUE(results[1].pass);
  EXPECT_TRUE(results[2].pass);
  EXPECT_EQ(results[2].endpoint, "llm-chat-2") << "nearest its bound";
  EXPECT_FALSE(results[3].pass);
  EXPECT_THAT(results[3].value.why_na, HasSubstr("picks no endpoint"));
  EXPECT_THAT(results[3].value.why_na, HasSubstr("llm-chat-1, llm-chat-2, vision-a"));
  const json j = expect_results_json(results);
  EXPECT_EQ(j[0]["endpoint"], "llm-chat-2");
  EXPECT_FALSE(j[3].contains("endpoint"));
  std::ostringstream table;
  print_expect_table(results, table);
  EXPECT_THAT(table.str(), HasSubstr("FAIL  (endpoint llm-chat-2)"));
}

// `compare` sets each endpoint's own rows after the pooled ones: TTFT and TPOT p99 of an LLM
// endpoint, latency p99 of another service.
TEST(CompareEndpointRows, OneRowPerEndpointMetricNamedInTheSelectorGrammar) {
  const json s = endpoint_summary();
  const auto rows = endpoint_rows(s);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].name, "requests.ttft_ms.p99 for llm-chat-1");
  EXPECT_EQ(rows[1].name, "requests.tpot_ms.p99 for llm-chat-1");
  EXPECT_EQ(rows[4].name, "requests.latency_ms.p99 for vision-a");
  EXPECT_NE(rows[4].label.find("vision-a"), std::string::npos);
  EXPECT_EQ(*compare_value(s, rows[2].name), 1200.0);
  EXPECT_EQ(*compare_value(s, rows[4].name), 40.0);
  EXPECT_EQ(*compare_value(s, "requests.ttft_ms.p99"), 1200.0) << "a pooled row";
  EXPECT_FALSE(compare_value(s, "requests.ttft_ms.p99 for gone")) << "a run without it: n/a";
  // One service: the pooled rows say it all.
  json one = s;
  one["metrics"]["requests"]["services"].erase(1);
  one["metrics"]["requests"]["services"].erase(1);
  EXPECT_TRUE(endpoint_rows(one).empty());
}

// The report lists each endpoint on its own numbers, per variant; a variant without an
// endpoint shows "-", and a run of one service has no such table.
TEST(EndpointSection, OneRowPerEndpointMetricAndVariant) {
  ReportVariant a{"mps", {}};
  a.runs.emplace_back();
  a.runs.back().summary = endpoint_summary();
  ReportVariant b{"timeslice", {}};
  b.runs.emplace_back();
  b.runs.back().summary = endpoint_summary();
  b.runs.back().summary["metrics"]["requests"]["services"].erase(2);  // no vision-a
  const std::string html = endpoint_section({a, b});
  EXPECT_THAT(html, HasSubstr("<th>llm-chat-2</th><td>chat</td><td>TTFT p99 (ms)</td><td>1200</td>"
                              "<td>1200</td>"));
  EXPECT_THAT(html, HasSubstr("<th>vision-a</th><td></td><td>latency p99 (ms)</td><td>40</td>"
                              "<td>-</td>"));
  ReportVariant one{"exclusive", {}};
  one.runs.emplace_back();
  one.runs.back().summary = json::parse(
      R"({"metrics": {"requests": {"services": [{"id": "svc", "latency_ms": {"p99": 3}}]}}})");
  EXPECT_EQ(endpoint_section({one}), "");
}

}  // namespace
}  // namespace gpumux
