#include "analysis/metrics/expectations.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/metrics/endpoint_selector.h"
#include "analysis/output/number_text.h"
#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

bool within(const ExpectBound& b, double v) {
  return (!b.min || v >= *b.min) && (!b.max || v <= *b.max);
}

// The service ids of a run, for a selector that picks none.
std::string service_ids(const nlohmann::json& summary) {
  std::string ids;
  const auto at = nlohmann::json::json_pointer("/metrics/requests/services");
  if (!summary.contains(at) || !summary.at(at).is_array()) return "none";
  for (const auto& row : summary.at(at)) {
    if (!row.is_object() || !row.contains("id") || !row["id"].is_string()) continue;
    ids += (ids.empty() ? "" : ", ") + row["id"].get<std::string>();
    if (ids.size() > 200) return ids + ", ...";
  }
  return ids.empty() ? "none" : ids;
}

BoundResult check_per_endpoint(const ExpectBound& b, const BoundSubject& subject,
                               const nlohmann::json& summary) {
  BoundResult r{b, {}, false, ""};
  const std::vector<EndpointValue> values =
      endpoint_values(summary, subject.metric, *subject.endpoints);
  if (values.empty()) {
    r.value.why_na = "'for " + subject.endpoints->text() +
                     "' picks no endpoint of this run (its services: " + service_ids(summary) + ")";
    return r;
  }
  const EndpointVerdict verdict = judge_endpoints(values, b.min, b.max);
  r.pass = verdict.holds;
  r.value = verdict.shown->value;
  r.endpoint = verdict.shown->id;
  return r;
}

}  // namespace

void validate_expect_names(const Scenario& scenario) {
  for (const auto& b : scenario.expect) {
    const BoundSubject subject = parse_bound_subject(b.metric, b.where, b.metric);
    if (is_known_metric(subject.metric)) {
      if (subject.endpoints) require_per_endpoint_metric(subject.metric, b.where);
      continue;
    }
    std::string hint;
    for (const auto& c : closest_names(subject.metric, metric_names())) {
      hint += (hint.empty() ? "" : ", ") + c;
    }
    throw InputError(b.where, b.metric,
                     "unknown metric: a metric is the dotted path of a number under `metrics` "
                     "in summary.json, e.g. jct_s.p95 or jobs.rejected" +
                         (hint.empty() ? std::string(" (docs/checks.md \"Checks\" lists them all)")
                                       : "; closest: " + hint));
  }
}

std::vector<BoundResult> check_expect(const std::vector<ExpectBound>& bounds,
                                      const nlohmann::json& summary) {
  std::vector<BoundResult> out;
  for (const auto& b : bounds) {
    const BoundSubject subject = parse_bound_subject(b.metric, b.where, b.metric);
    if (subject.endpoints) {
      out.push_back(check_per_endpoint(b, subject, summary));
      continue;
    }
    BoundResult r{b, read_metric(summary, b.metric), false, ""};
    if (r.value.value) r.pass = within(b, *r.value.value);
    out.push_back(std::move(r));
  }
  return out;
}

bool all_pass(const std::vector<BoundResult>& results) {
  return std::all_of(results.begin(), results.end(), [](const BoundResult& r) { return r.pass; });
}

nlohmann::json expect_results_json(const std::vector<BoundResult>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json j = {
        {"metric", r.bound.metric},
        {"value", r.value.value ? nlohmann::json(*r.value.value) : nlohmann::json(nullptr)},
        {"min", r.bound.min ? nlohmann::json(*r.bound.min) : nlohmann::json(nullptr)},
        {"max", r.bound.max ? nlohmann::json(*r.bound.max) : nlohmann::json(nullptr)},
        {"pass", r.pass}};
    if (!r.value.value) j["not_available"] = r.value.why_na;
    if (!r.endpoint.empty()) j["endpoint"] = r.endpoint;
    out.push_back(std::move(j));
  }
  return out;
}

std::string bound_text(const ExpectBound& b) {
  if (b.min && b.max && *b.min == *b.max) return "= " + number_text(*b.min);
  if (b.min && b.max) return "in [" + number_text(*b.min) + ", " + number_text(*b.max) + "]";
  if (b.max) return "<= " + number_text(*b.max);
  return ">= " + number_text(*b.min);
}

void print_expect_table(const std::vector<BoundResult>& results, std::ostream& out) {
  std::vector<std::vector<std::string>> rows = {{"metric", "value", "bound", "result"}};
  for (const auto& r : results) {
    const std::string value = r.value.value ? number_text(*r.value.value) : "n/a";
    std::string result = r.pass ? "pass" : "FAIL";
    if (!r.endpoint.empty()) result += "  (endpoint " + r.endpoint + ")";
    if (!r.value.value) result += "  (n/a: " + r.value.why_na + ")";
    // A failure says why the bound is what it is, when the scenario says so.
    if (!r.pass && !r.bound.note.empty()) result += "  (" + r.bound.note + ")";
    rows.push_back({r.bound.metric, value, bound_text(r.bound), result});
  }
  std::size_t width[3] = {0, 0, 0};
  for (const auto& row : rows) {
    for (int c = 0; c < 3; ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = "  " + row[0] + std::string(width[0] - row[0].size() + 2, ' ');
    line += std::string(width[1] - row[1].size(), ' ') + row[1] + "  ";  // numbers to the right
    line += row[2] + std::string(width[2] - row[2].size() + 2, ' ') + row[3];
    out << line << "\n";
  }
}

}  // namespace gpumux
