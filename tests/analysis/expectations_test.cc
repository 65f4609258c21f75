// Metric names, suggestions for mistyped ones, and checking `expect` bounds on a summary.
#include "analysis/metrics/expectations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "sim/base/closest_names.h"
#include "analysis/output/number_text.h"
#include "analysis/run/run.h"
#include "analysis/metrics/summary_metrics.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

json expectations_summary() {
  return json::parse(R"({"metrics": {
    "jobs": {"arrived": 10, "finished": 8, "rejected": 2},
    "sm_busy_utilization": 0.4,
    "jct_s": {"count": 8, "mean": 100.0, "p95": 250.5},
    "queueing_delay_s": {"count": 0, "mean": null, "p95": null},
    "failures": {"cascade_size": {"count": 0, "p95": null}},
    "slots": {"profiles": {"1g.10gb": {"occupancy": 0.75}, "7g.80gb": {"occupancy": null}}}
  }})");
}

std::vector<ExpectBound> bounds(const json& expect) {
  json doc = json::object();
  doc["expect"] = expect;
  JsonObject root(doc, "s.json", "");
  auto out = parse_expect(root);
  root.finish();
  return out;
}

TEST(ClosestNames, EditDistance) {
  EXPECT_EQ(edit_distance("run", "run"), 0u);
  EXPECT_EQ(edit_distance("rn", "run"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(ClosestNames, FindsTyposAndReorderedWords) {
  const std::vector<std::string> commands = {"run", "validate", "check", "plan", "models"};
  EXPECT_THAT(closest_names("chek", commands, 1), ElementsAre("check"));
  EXPECT_THAT(closest_names("valdate", commands, 1), ElementsAre("validate"));
  EXPECT_TRUE(closest_names("frobnicate", commands).empty());
  // The issue's spelling of a metric finds the summary's, by its words.
  EXPECT_EQ(closest_names("jct.p95_s", metric_names()).front(), "jct_s.p95");
  EXPECT_EQ(closest_names("jobs.rejectd", metric_names()).front(), "jobs.rejected");
}

TEST(SummaryMetrics, CatalogueAndPointers) {
  EXPECT_TRUE(is_known_metric("jct_s.p95"));
  EXPECT_TRUE(is_known_metric("jobs.rejected"));
  EXPECT_TRUE(is_known_metric("requests.latency_ms.p99"));
  EXPECT_TRUE(is_known_metric("slots.profiles.1g.10gb.occupancy"));  // a dotted profile name
  EXPECT_FALSE(is_known_metric("slots.profiles..occupancy"));
  EXPECT_FALSE(is_known_metric("jct.p95_s"));
  EXPECT_FALSE(is_known_metric("metrics.jct_s.p95"));
  EXPECT_FALSE(is_known_metric("requests.mode"));  // a string, not a number
  EXPECT_EQ(metric_pointer("jct_s.p95"), "/metrics/jct_s/p95");
  EXPECT_EQ(metric_pointer("slots.profiles.1g.10gb.occupancy"),
            "/metrics/slots/profiles/1g.10gb/occupancy");
}

TEST(SummaryMetrics, ReadsValuesAndSaysWhyNotAvailable) {
  const json s = expectations_summary();
  EXPECT_DOUBLE_EQ(*read_metric(s, "jct_s.p95").value, 250.5);
  EXPECT_DOUBLE_EQ(*read_metric(s, "slots.profiles.1g.10gb.occupancy").value, 0.75);
  auto na = read_metric(s, "queueing_delay_s.p95");
  EXPECT_FALSE(na.value);
  EXPECT_EQ(na.why_na, "no finished jobs");
  EXPECT_EQ(read_metric(s, "failures.cascade_size.p95").why_na, "no out-of-memory events");
  EXPECT_THAT(read_metric(s, "requests.latency_ms.p99").why_na, HasSubstr("no inference services"));
  EXPECT_THAT(read_metric(s, "slots.profiles.2g.20gb.occupancy").why_na,
              HasSubstr("no instance of profile '2g.20gb'"));
  EXPECT_FALSE(read_metric(s, "slots.profiles.7g.80gb.occupancy").value);
  json no_slots = s;
  no_slots["metrics"].erase("slots");
  EXPECT_THAT(read_metric(no_slots, "slots.fragmentation").why_na, HasSubstr("no slot metrics"));
}

// Every number in `metrics` of real summaries is a metric name, and every name without a `*`
// is in some summary: the catalogue cannot drift from what the collectors write.
void collect_leaves(const json& j, const std::string& path, std::vector<std::string>& out) {
  for (const auto& [key, value] : j.items()) {
    // Not metrics: the excluded-job counts repeat jobs.*, reasons are free text, per-service
    // records and the latency distribution are arrays, the mode and a definition are words.
    if (key == "excluded" || key == "rejected_by_reason" || key == "services" || key == "mode" ||
        key == "latency_cdf_ms" || key == "definition") {
      continue;
    }
    const std::string name = path.empty() ? key : path + "." + key;
    if (value.is_object()) {
      collect_leaves(value, name, out);
    } else {
      out.push_back(name);
    }
  }
}

TEST(SummaryMetrics, CatalogueMatchesRealSummaries) {
  std::vector<json> summaries;
  for (const char* file : {"mig_balanced.json", "inference_mig.json", "mps_optimistic_oom.json",
                           "fractional_fgd.json", "llm_chat_h100.json"}) {
    RunOptions options;
    options.write_outputs = false;
    const Scenario s =
        load_scenario(testing::source_path(std::string("scenarios/regression/") + file));
    summaries.push_back(run_scenario(s, options).summary);
  }
  for (const auto& summary : summaries) {
    std::vector<std::string> leaves;
    collect_leaves(summary["metrics"], "", leaves);
    ASSERT_GT(leaves.size(), 60u);
    for (const auto& name : leaves) EXPECT_TRUE(is_known_metric(name)) << name;
  }
  for (const auto& name : metric_names()) {
    if (name.find('*') != std::string::npos) continue;
    bool found = false;
    for (const auto& summary : summaries) {
      found = found || summary.contains(json::json_pointer(metric_pointer(name)));
    }
    EXPECT_TRUE(found) << name << " is in no summary";
  }
}

TEST(Expectations, ParsesBoundsAndRefusesBadShapes) {
  const auto b = bounds({{"jct_s.p95", {{"max", 3600}, {"note", "one hour"}}},
                         {"jobs.rejected", {{"min", 0}, {"max", 0}}}});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].metric, "jct_s.p95");  // name order
  EXPECT_EQ(b[1].metric, "jobs.rejected");
  EXPECT_EQ(b[1].where, "s.json#/expect/jobs.rejected");
  EXPECT_EQ(*b[0].max, 3600);
  EXPECT_FALSE(b[0].min);
  EXPECT_EQ(b[0].note, "one hour");
  EXPECT_EQ(*b[1].min, 0);
  EXPECT_EQ(*b[1].max, 0);
  EXPECT_EQ(bound_text(b[1]), "= 0");
  EXPECT_EQ(bound_text(b[0]), "<= 3600");
  auto message = [](const json& e) {
    try {
      bounds(e);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message({{"jct_s.p95", json::object()}}), HasSubstr("needs \"min\", \"max\""));
  EXPECT_THAT(message({{"jct_s.p95", {{"min", 5}, {"max", 1}}}}), HasSubstr("min is above max"));
  EXPECT_THAT(message({{"jct_s.p95", {{"max", "ten"}}}}),
              HasSubstr("s.json#/expect/jct_s.p95/max"));
  EXPECT_THAT(message({{"jct_s.p95", {{"maximum", 1}}}}), HasSubstr("unknown key"));
  EXPECT_THAT(message({{"jct_s.p95", 3600}}), HasSubstr("expected an object"));
}

TEST(Expectations, UnknownMetricNamesItsPointerAndTheClosestNames) {
  Scenario s;
  s.expect = bounds({{"jct.p95_s", {{"max", 3600}}}});
  try {
    validate_expect_names(s);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("s.json#/expect/jct.p95_s"));
    EXPECT_THAT(e.what(), HasSubstr("unknown metric"));
    EXPECT_THAT(e.what(), HasSubstr("closest: jct_s.p95"));
  }
  s.expect = bounds({{"jct_s.p95", {{"max", 3600}}}});
  EXPECT_NO_THROW(validate_expect_names(s));
}

TEST(Expectations, ChecksBoundsAndFailsWhatIsNotAvailable) {
  const auto r = check_expect(bounds({{"jct_s.p95", {{"max", 300}}},
                                      {"jobs.rejected", {{"max", 0}}},
                                      {"sm_busy_utilization", {{"min", 0.4}, {"max", 0.5}}},
                                      {"queueing_delay_s.p95", {{"max", 1e9}}}}),
                              expectations_summary());
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[0].pass);   // 250.5 <= 300
  EXPECT_FALSE(r[1].pass);  // 2 rejected
  EXPECT_FALSE(r[2].pass);  // n/a fails whatever the bound
  EXPECT_TRUE(r[3].pass);   // 0.4 in [0.4, 0.5]: bounds are inclusive
  EXPECT_FALSE(all_pass(r));
  const json j = expect_results_json(r);
  EXPECT_EQ(j[0]["metric"], "jct_s.p95");  // name order: jct_s, jobs, queueing, sm_busy
  EXPECT_EQ(j[2]["metric"], "queueing_delay_s.p95");
  EXPECT_TRUE(j[2]["value"].is_null());
  EXPECT_EQ(j[2]["not_available"], "no finished jobs");
  EXPECT_TRUE(j[0]["min"].is_null());
  EXPECT_EQ(j[0]["max"], 300.0);
  EXPECT_EQ(j[1]["value"], 2.0);
}

TEST(Expectations, TableAlignsValueBoundAndResult) {
  const auto r = check_expect(bounds({{"jct_s.p95", {{"max", 300}}},
                                      {"queueing_delay_s.p95", {{"max", 60}}},
                                      {"sm_busy_utilization", {{"min", 0.1}, {"max", 0.9}}}}),
                              expectations_summary());
  std::ostringstream out;
  print_expect_table(r, out);
  EXPECT_EQ(out.str(),
            "  metric                value  bound          result\n"
            "  jct_s.p95             250.5  <= 300         pass\n"
            "  queueing_delay_s.p95    n/a  <= 60          FAIL  (n/a: no finished jobs)\n"
            "  sm_busy_utilization     0.4  in [0.1, 0.9]  pass\n");
}

TEST(NumberText, IntegersPlainOthersSixDigitsNullIsNa) {
  EXPECT_EQ(number_text(0), "0");
  EXPECT_EQ(number_text(3600), "3600");
  EXPECT_EQ(number_text(0.123456789), "0.123457");
  EXPECT_EQ(number_text(1234.56789), "1234.57");
  EXPECT_EQ(number_text(1234567.891), "1234567.9");
  EXPECT_EQ(fixed_or_na(json(nullptr), 1), "n/a");
  EXPECT_EQ(fixed_or_na(json(0.25), 1, 100), "25.0");
}

}  // namespace
}  // namespace gpumux
