#include "analysis/metrics/metric_format.h"

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/output/number_text.h"

namespace gpumux {

std::optional<MetricFormat> metric_format(std::string_view name) {
  const MetricInfo* m = metric_catalogue().find(name);
  if (!m || m->digits < 0) return std::nullopt;
  return MetricFormat{m->digits, m->count};
}

std::string metric_value_text(std::string_view name, double value,
                              std::string (*fallback)(double)) {
  const std::optional<MetricFormat> f = metric_format(name);
  return f ? fixed_text(value, f->digits) : fallback(value);
}

}  // namespace gpumux
