// Checking a scenario's `expect` bounds (scenarios/expect_config.h) against its run's summary.
//
// A bound holds when the metric has a value and min <= value <= max (each side only when
// given). A metric that is n/a in the run (an empty set, or not produced by this run: see
// analysis/metrics/summary_metrics.h) fails its bound, with the reason.
//
// A key "METRIC for SELECTOR" bounds each endpoint the selector picks on its own numbers
// (analysis/metrics/endpoint_selector.h): it holds when every picked endpoint's value does; the
// result reports the first endpoint that fails (else the one nearest its bound), and a
// selector that picks no endpoint of the run fails the bound, naming the run's services.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <vector>

#include "analysis/metrics/summary_metrics.h"
#include "scenarios/scenario.h"

namespace gpumux {

// Throws InputError for the first bound whose name is no metric: it names the bound's JSON
// pointer and suggests the closest metric names. Call before running (nothing is written).
void validate_expect_names(const Scenario& scenario);

struct BoundResult {
  ExpectBound bound;
  MetricValue value;
  bool pass = false;
  std::string endpoint;  // with a selector: whose value `value` is ("" when none was picked)
};

std::vector<BoundResult> check_expect(const std::vector<ExpectBound>& bounds,
                                      const nlohmann::json& summary);

bool all_pass(const std::vector<BoundResult>& results);

// [{metric, value (null when n/a), min, max (null when not given), pass, n/a reason}].
nlohmann::json expect_results_json(const std::vector<BoundResult>& results);

// "<= 3600", ">= 0.5", "in [1, 10]", or "= 7" when min and max are equal.
std::string bound_text(const ExpectBound& bound);

// One aligned row per bound: metric, value, bound, result (pass / FAIL, and why when n/a; a
// failed bound's note after it).
void print_expect_table(const std::vector<BoundResult>& results, std::ostream& out);

}  // namespace gpumux
