#include "analysis/compare/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "analysis/compare/compare_fairness.h"
#include "sim/base/atomic_file.h"
#include "analysis/metrics/metric_catalogue.h"
#include "analysis/stats/mean_interval.h"
#include "analysis/output/number_text.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

namespace {

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Display width of UTF-8 text (the ± sign is two bytes, one column).
std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad_left(const std::string& s, std::size_t width) {
  return std::string(width - std::min(width, columns(s)), ' ') + s;
}

std::string pad_right(const std::string& s, std::size_t width) {
  return s + std::string(width - std::min(width, columns(s)), ' ');
}

}  // namespace

std::string compare_cell_text(const CompareMetric& metric, const CompareCell& cell,
                              std::size_t seeds, bool same_in_every_seed) {
  if (!cell.mean) {
    if (cell.n == 0 || seeds == 1 || same_in_every_seed) return "n/a";
    return "n/a (" + std::to_string(cell.n) + "/" + std::to_string(seeds) + ")";
  }
  if (seeds == 1) return fixed_text(*cell.mean, metric.digits);
  if (same_in_every_seed) {
    return fixed_text(*cell.mean, metric.digits) + " " + std::string(kSameInEverySeedMark);
  }
  const int digits = metric.count ? 1 : metric.digits;
  // An interval that leaves the metric's domain (a time below 0) is cut to it and printed as
  // its ends: "12.0 [0.0, 30.5]".
  const MetricDomain domain = metric_domain(metric.name);
  const ClippedInterval ci = clip_interval(*cell.mean, *cell.half_width, domain.low, domain.high);
  if (ci.clipped) {
    return fixed_text(*cell.mean, digits) + " [" + fixed_text(ci.low, digits) + ", " +
           fixed_text(ci.high, digits) + "]";
  }
  return fixed_text(*cell.mean, digits) + " ± " + fixed_text(*cell.half_width, digits);
}

void print_compare_table(const CompareResult& result, std::ostream& out) {
  const std::size_t seeds = result.seeds.size();
  out << "compare: scenario '" << terminal_text(result.scenario_name) << "' ("
      << terminal_text(result.scenario_file) << "), "
      << result.variants.size() << (result.variants.size() == 1 ? " variant" : " variants") << " x "
      << seeds << (seeds == 1 ? " seed" : " seeds") << " (seed " << result.seeds.front();
  if (seeds > 1) out << ".." << result.seeds.back();
  out << ")\n";
  for (const auto& v : result.variants) {
    out << "  " << v.model << ": params " << v.params.dump() << " from " << v.params_source << "\n";
  }
  out << "\n";

  const bool same = seeds_changed_nothing(result);
  std::size_t label_width = std::string("metric").size();
  for (const auto& m : result.metrics) label_width = std::max(label_width, columns(m.label));
  std::vector<std::vector<std::string>> cells(result.variants.size());
  std::vector<std::size_t> widths;
  bool clipped = false;  // some cell shows an interval cut to its metric's domain
  for (std::size_t v = 0; v < result.variants.size(); ++v) {
    std::size_t w = columns(result.variants[v].model);
    for (std::size_t m = 0; m < result.metrics.size(); ++m) {
      cells[v].push_back(
          compare_cell_text(result.metrics[m], result.variants[v].cells[m], seeds, same));
      clipped = clipped || (!cells[v].back().empty() && cells[v].back().back() == ']');
      w = std::max(w, columns(cells[v].back()));
    }
    widths.push_back(w);
  }
  out << pad_right("metric", label_width);
  for (std::size_t v = 0; v < result.variants.size(); ++v) {
    out << "  " << pad_left(result.variants[v].model, widths[v]);
  }
  out << "\n";
  for (std::size_t m = 0; m < result.metrics.size(); ++m) {
    out << pad_right(result.metrics[m].label, label_width);
    for (std::size_t v = 0; v < result.variants.size(); ++v) {
      out << "  " << pad_left(cells[v][m], widths[v]);
    }
    out << "\n";
  }
  out << "\n";
  if (seeds == 1) {
    out << "One run per variant (seed " << result.seeds.front()
        << "); --seeds N adds 95% intervals.\nn/a: an empty set (e.g. no finished job), "
           "never 0.\n";
  } else if (same) {
    out << kSameInEverySeedMark << ": the one value all " << seeds
        << " seeds gave (they changed nothing the runs use: no interval to give; see the "
           "warning below).\nn/a: an empty set (e.g. no finished job) in every seed, never 0.\n";
  } else {
    out << "mean ± half-width of the 95% confidence interval of the mean over " << seeds
        << " seeds (Student t, " << seeds - 1 << (seeds == 2 ? " degree" : " degrees")
        << " of freedom, t = " << fixed_text(student_t_975(seeds - 1), 3)
        << ").\nn/a: an empty set (e.g. no finished job) in some seed; n/a (k/" << seeds
        << "): only k of the " << seeds << " seeds had a value.\n";
    if (clipped) {
      out << "mean [low, high]: the interval cut to the values the metric can take (a time or "
             "count not below 0, a share not above 1).\n";
    }
  }
  print_paired_table(result, out);
  const std::vector<std::string> warnings = compare_warnings(result);
  if (!warnings.empty()) out << "\n";
  for (const std::string& w : warnings) out << "warning: " << w << ".\n";
}

// As compare_cell_text, for a paired difference.
std::string paired_cell_text(const CompareMetric& metric, const PairedCell& cell, std::size_t seeds,
                             bool same_in_every_seed) {
  if (!cell.mean) {
    if (cell.n == 0 || same_in_every_seed) return "n/a";
    return "n/a (" + std::to_string(cell.n) + "/" + std::to_string(seeds) + ")";
  }
  const int digits = metric.count && !same_in_every_seed ? 1 : metric.digits;
  // A difference shows its sign; a zero one reads "0".
  const std::string mean = (*cell.mean > 0 ? "+" : "") + fixed_text(*cell.mean, digits);
  if (same_in_every_seed) return mean + " " + std::string(kSameInEverySeedMark);
  return mean + " ± " + fixed_text(*cell.half_width, digits);
}

void print_paired_table(const CompareResult& result, std::ostream& out) {
  const std::size_t seeds = result.seeds.size();
  if (seeds < 2 || result.variants.size() < 2) return;
  const PairedDifferences p = paired_differences(result, result.baseline);
  const bool same = seeds_changed_nothing(result);
  const std::string base = result.variants[result.baseline].model;
  out << "\ndifference from " << base << ", paired by seed (variant minus " << base
      << " in each seed; "
      << (same ? "the same difference in every seed, so no interval"
               : "mean ± half-width of its 95% interval")
      << "):\n";
  std::size_t label_width = std::string("metric").size();
  for (const auto& m : result.metrics) label_width = std::max(label_width, columns(m.label));
  std::vector<std::size_t> shown;
  for (std::size_t v = 0; v < result.variants.size(); ++v) {
    if (v != result.baseline) shown.push_back(v);
  }
  std::vector<std::vector<std::string>> cells(result.variants.size());
  std::vector<std::size_t> widths(result.variants.size(), 0);
  for (std::size_t v : shown) {
    const std::string head = result.variants[v].model + " - " + base;
    widths[v] = columns(head);
    for (std::size_t m = 0; m < result.metrics.size(); ++m) {
      cells[v].push_back(paired_cell_text(result.metrics[m], p.cells[v][m], seeds, same));
      widths[v] = std::max(widths[v], columns(cells[v].back()));
    }
  }
  out << pad_right("metric", label_width);
  for (std::size_t v : shown) {
    out << "  " << pad_left(result.variants[v].model + " - " + base, widths[v]);
  }
  out << "\n";
  for (std::size_t m = 0; m < result.metrics.size(); ++m) {
    out << pad_right(result.metrics[m].label, label_width);
    for (std::size_t v : shown) out << "  " << pad_left(cells[v][m], widths[v]);
    out << "\n";
  }
}

nlohmann::json compare_to_json(const CompareResult& result) {
  const std::size_t seeds = result.seeds.size();
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : result.metrics) metrics.push_back({{"name", m.name}, {"label", m.label}});
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : result.variants) {
    nlohmann::json cells = nlohmann::json::object();
    for (std::size_t m = 0; m < result.metrics.size(); ++m) {
      const CompareCell& c = v.cells[m];
      nlohmann::json values = nlohmann::json::array();
      for (const auto& x : c.values) values.push_back(optional_json(x));
      cells[result.metrics[m].name] = {{"mean", optional_json(c.mean)},
                                       {"ci95_half_width", optional_json(c.half_width)},
                                       {"n", c.n},
                                       {"values", values}};
    }
    variants.push_back({{"model", v.model},
                        {"params", v.params},
                        {"params_source", v.params_source},
                        {"run_dirs", v.run_dirs},
                        {"metrics", cells}});
  }
  nlohmann::json confidence = {{"level", 0.95}, {"method", "Student t"}};
  if (seeds > 1) {
    confidence["degrees_of_freedom"] = seeds - 1;
    confidence["t"] = student_t_975(seeds - 1);
  }
  nlohmann::json paired = nullptr;
  if (result.variants.size() > 1) {
    const PairedDifferences p = paired_differences(result, result.baseline);
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t v = 0; v < result.variants.size(); ++v) {
      if (v == result.baseline) continue;
      nlohmann::json cells = nlohmann::json::object();
      for (std::size_t m = 0; m < result.metrics.size(); ++m) {
        const PairedCell& c = p.cells[v][m];
        cells[result.metrics[m].name] = {{"mean", optional_json(c.mean)},
                                         {"ci95_half_width", optional_json(c.half_width)},
                                         {"n", c.n}};
      }
      rows.push_back({{"model", result.variants[v].model}, {"metrics", cells}});
    }
    paired = {{"baseline", result.variants[result.baseline].model}, {"variants", rows}};
  }
  return {{"scenario", {{"name", result.scenario_name}, {"file", result.scenario_file}}},
          {"seeds", result.seeds},
          {"confidence", confidence},
          {"metrics", metrics},
          {"variants", variants},
          {"paired_differences", paired},
          {"provenance", result.provenance},
          {"warnings", compare_warnings(result)}};
}

void write_compare_csv(const CompareResult& result, std::ostream& out) {
  out << "variant,seed,metric,value\n";
  for (const auto& v : result.variants) {
    for (std::size_t s = 0; s < result.seeds.size(); ++s) {
      for (std::size_t m = 0; m < result.metrics.size(); ++m) {
        const auto& value = v.cells[m].values[s];
        out << v.model << "," << result.seeds[s] << "," << result.metrics[m].name << ","
            << (value ? csv_number(*value) : "") << "\n";
      }
    }
  }
}

void write_compare_files(const CompareResult& result, const std::string& dir) {
  AtomicFile csv((std::filesystem::path(dir) / "compare.csv").string());
  AtomicFile json((std::filesystem::path(dir) / "compare.json").string());
  write_compare_csv(result, csv.stream());
  json.stream() << compare_to_json(result).dump(2) << "\n";
  csv.commit();
  json.commit();
}

}  // namespace gpumux
