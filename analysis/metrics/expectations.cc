#include "analysis/metrics/expectations.h"

#include <algorithm>

#include "sim/base/closest_names.h"
#include "analysis/output/number_text.h"
#include "sim/base/input_error.h"

namespace gpumux {

void validate_expect_names(const Scenario& scenario) {
  for (const auto& b : scenario.expect) {
    if (is_known_metric(b.metric)) continue;
    std::string hint;
    for (const auto& c : closest_names(b.metric, metric_names())) {
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
    BoundResult r{b, read_metric(summary, b.metric), false};
    if (r.value.value) {
      const double v = *r.value.value;
      r.pass = (!b.min || v >= *b.min) && (!b.max || v <= *b.max);
    }
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
