// How the tables print a metric's value: the decimals the metric catalogue gives it
// (metric_catalogue.h, MetricInfo::digits) in `gpumux compare`'s and `gpumux merge`'s tables
// (compare_metrics.h) and in the report's tables (html_report.h), so that the same number reads
// the same in the terminal and on the page.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpumux {

struct MetricFormat {
  int digits = 0;      // decimals of a single run's value
  bool count = false;  // a count of jobs or events: a mean over seeds gets one decimal
};

// The format of `name` (a dotted metric name, as in summary_metrics.h), or nullopt for a metric
// the catalogue gives no fixed decimals (the report then prints it with up to 4 significant digits).
std::optional<MetricFormat> metric_format(std::string_view name);

// A single run's value of `name` as the tables print it: fixed with the metric's digits, or,
// for a metric without a format, `fallback(value)`.
std::string metric_value_text(std::string_view name, double value, std::string (*fallback)(double));

}  // namespace gpumux
