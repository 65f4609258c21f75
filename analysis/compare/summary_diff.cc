#include "analysis/compare/summary_diff.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <set>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/metrics/summary_metrics.h"
#include "analysis/output/number_text.h"
#include "sim/base/closest_names.h"
#include "sim/base/glob_match.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

namespace {

// A name a tolerance may take: a metric, or the prefix of a group of them ("jct_s").
bool is_metric_or_group(const std::string& name) {
  if (is_known_metric(name)) return true;
  return std::any_of(metric_names().begin(), metric_names().end(), [&](const std::string& m) {
    return m.size() > name.size() && m.compare(0, name.size(), name) == 0 && m[name.size()] == '.';
  });
}

std::string value_text(const std::optional<double>& v) { return v ? number_text(*v) : "n/a"; }

}  // namespace

nlohmann::json read_summary_input(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string file = fs::is_directory(path) ? (fs::path(path) / "summary.json").string() : path;
  if (!fs::exists(file)) {
    throw InputError(file, "", "not found: expected a summary.json or a run folder holding one");
  }
  nlohmann::json doc = read_json_file(file);
  if (!doc.is_object() || !doc.contains("metrics") || !doc["metrics"].is_object()) {
    throw InputError(file + "#/metrics", "metrics",
                     "expected an object (a summary.json written by gpumux run)");
  }
  check_summary_metric_types(doc, file, summary_metric_names(doc, doc));
  return doc;
}

double DiffTolerances::of(const std::string& metric) const {
  // The longest name that is the metric or a group prefix of it.
  for (std::string name = metric;;) {
    if (const auto it = by_name.find(name); it != by_name.end()) return it->second;
    const auto dot = name.rfind('.');
    if (dot == std::string::npos) return fallback;
    name.resize(dot);
  }
}

DiffTolerances parse_diff_tolerances(const std::vector<std::string>& args) {
  DiffTolerances t;
  bool fallback_given = false;
  for (const auto& arg : args) {
    const std::string where = "--tolerance " + arg;
    const auto eq = arg.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(where, "tolerance",
                       "expected METRIC=REL, e.g. jct_s.p95=0.01 (1 %), or *=REL for every metric");
    }
    const std::string name = arg.substr(0, eq);
    const std::string rel = arg.substr(eq + 1);
    double value = -1;
    const auto r = std::from_chars(rel.data(), rel.data() + rel.size(), value);
    if (rel.empty() || r.ec != std::errc() || r.ptr != rel.data() + rel.size() ||
        !std::isfinite(value) || value < 0) {
      throw InputError(where, name,
                       "expected a relative difference >= 0 after '=', e.g. 0.01 for 1 %, got '" +
                           rel + "'");
    }
    if (name == "*") {
      if (fallback_given) {
        throw InputError(where, name, "given twice (keep one tolerance per metric)");
      }
      fallback_given = true;
      t.fallback = value;
      continue;
    }
    if (!is_metric_or_group(name)) {
      const auto close = closest_names(name, metric_names());
      throw InputError(where, name,
                       "unknown metric (gpumux metrics lists them)" +
                           (close.empty() ? std::string() : "; closest: " + join_names(close)));
    }
    // The same name twice would let the last one win silently (the order deciding the exit code).
    if (!t.by_name.emplace(name, value).second) {
      throw InputError(where, name, "given twice (keep one tolerance per metric)");
    }
  }
  return t;
}

const char* change_name(DiffChange change) {
  switch (change) {
    case DiffChange::kWorse:
      return "worse";
    case DiffChange::kBetter:
      return "better";
    case DiffChange::kUnjudged:
      break;
  }
  return "unjudged";
}

const char* fail_on_name(FailOn fail_on) { return fail_on == FailOn::kWorse ? "worse" : "any"; }

bool SummaryDiff::fails(const MetricDiff& m) const {
  return m.differs && (fail_on == FailOn::kAny || m.change != DiffChange::kBetter);
}

std::size_t SummaryDiff::failing() const {
  return static_cast<std::size_t>(std::count_if(
      metrics.begin(), metrics.end(), [this](const MetricDiff& m) { return fails(m); }));
}

void check_ignore_patterns(const std::vector<std::string>& patterns,
                           const std::vector<std::string>& summary_names) {
  auto matches_one = [](const std::string& p, const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& name) { return glob_match(p, name); });
  };
  for (const std::string& p : patterns) {
    const std::string where = "--ignore " + p;
    if (p.empty()) throw InputError(where, "ignore", "an empty pattern ignores nothing");
    // A catalogue name (its `*` entries as written), or a name the summaries hold there
    // (slots.profiles.1g.10gb.occupancy).
    const bool any = matches_one(p, metric_names()) || matches_one(p, summary_names);
    if (!any) {
      const auto close = closest_names(p, metric_names());
      throw InputError(where, p,
                       "matches no metric (gpumux metrics lists them; `*` any run, `?` one "
                       "character)" +
                           (close.empty() ? std::string() : "; closest: " + join_names(close)));
    }
  }
}

std::size_t SummaryDiff::differing() const {
  return static_cast<std::size_t>(
      std::count_if(metrics.begin(), metrics.end(), [](const MetricDiff& m) { return m.differs; }));
}

SummaryDiff diff_summaries(const nlohmann::json& a, const nlohmann::json& b,
                           const DiffTolerances& tolerances, const std::vector<std::string>& ignore,
                           FailOn fail_on) {
  SummaryDiff diff;
  diff.fail_on = fail_on;
  for (const auto& name : summary_metric_names(a, b)) {
    if (std::any_of(ignore.begin(), ignore.end(),
                    [&](const std::string& p) { return glob_match(p, name); })) {
      if (read_metric(a, name).value || read_metric(b, name).value) ++diff.ignored;
      continue;
    }
    MetricDiff m;
    m.metric = name;
    m.a = read_metric(a, name).value;
    m.b = read_metric(b, name).value;
    if (!m.a && !m.b) continue;  // n/a in both (a metric neither run has): nothing to compare
    m.tolerance = tolerances.of(name);
    if (m.a && m.b) {
      const double scale = std::max(std::fabs(*m.a), std::fabs(*m.b));
      m.relative = scale == 0 ? 0.0 : std::fabs(*m.a - *m.b) / scale;
      m.differs = m.relative > m.tolerance;
      const MetricInfo* info = metric_catalogue().find(name);
      const Better better = info ? info->better : Better::kNeither;
      if (m.differs && better != Better::kNeither) {
        const bool higher = *m.b > *m.a;
        m.change = higher == (better == Better::kHigher) ? DiffChange::kBetter : DiffChange::kWorse;
      }
    } else {
      m.differs = true;  // a value against n/a: no tolerance covers it
    }
    diff.metrics.push_back(std::move(m));
  }
  return diff;
}

void print_diff_table(const SummaryDiff& diff, std::ostream& out) {
  std::vector<std::array<std::string, 6>> rows;
  for (const auto& m : diff.metrics) {
    if (!m.differs) continue;
    rows.push_back({terminal_text(m.metric), value_text(m.a), value_text(m.b),
                    m.a && m.b ? number_text(m.relative) : "n/a", number_text(m.tolerance),
                    change_name(m.change)});
  }
  if (!rows.empty()) {
    rows.insert(rows.begin(), {"metric", "A", "B", "rel. diff", "tolerance", "change"});
    std::array<std::size_t, 6> width{};
    for (const auto& r : rows) {
      for (std::size_t i = 0; i < 6; ++i) width[i] = std::max(width[i], r[i].size());
    }
    for (const auto& r : rows) {
      out << "  " << std::left << std::setw(static_cast<int>(width[0])) << r[0] << std::right;
      for (std::size_t i = 1; i < 5; ++i) out << "  " << std::setw(static_cast<int>(width[i])) << r[i];
      out << "  " << r[5] << "\n";
    }
  }
  const std::size_t n = diff.metrics.size();
  const std::string ignored =
      diff.ignored > 0 ? " (" + std::to_string(diff.ignored) + " ignored)" : "";
  if (diff.differing() == 0) {
    out << "diff: all " << n << " metrics within tolerance" << ignored << "\n";
  } else {
    out << "diff: " << diff.differing() << " of " << n << " metrics differ beyond tolerance";
    if (diff.fail_on == FailOn::kWorse) {
      out << ", " << diff.failing() << " not better (--fail-on worse)";
    }
    out << ignored << "\n";
  }
}

nlohmann::json diff_to_json(const SummaryDiff& diff) {
  nlohmann::json differences = nlohmann::json::array();
  auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nullptr; };
  for (const auto& m : diff.metrics) {
    if (!m.differs) continue;
    differences.push_back({{"metric", m.metric},
                           {"a", value(m.a)},
                           {"b", value(m.b)},
                           {"relative_difference", m.a && m.b ? nlohmann::json(m.relative) : nullptr},
                           {"tolerance", m.tolerance},
                           {"change", change_name(m.change)}});
  }
  return {{"same", diff.differing() == 0},
          {"compared", diff.metrics.size()},
          {"ignored", diff.ignored},
          {"fail_on", fail_on_name(diff.fail_on)},
          {"failing", diff.failing()},
          {"differences", std::move(differences)}};
}

}  // namespace gpumux
