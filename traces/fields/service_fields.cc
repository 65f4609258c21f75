#include "traces/fields/service_fields.h"

#include <cmath>
#include <limits>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

namespace {
constexpr double kMaxMs = 1e9;    // ~11.6 days for one request: anything larger is a unit mistake
constexpr double kMaxRate = 1e9;  // requests per second
}  // namespace

bool find_service_column(std::string_view name, int& index) {
  for (std::size_t i = 0; i < kServiceColumns.size(); ++i) {
    if (kServiceColumns[i] == name) {
      index = static_cast<int>(i);
      return true;
    }
  }
  return false;
}

std::shared_ptr<ServiceSpec> empty_service_row() {
  auto s = std::make_shared<ServiceSpec>();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s->rate_per_s = nan;
  s->service_ms = nan;
  s->slo_ms = nan;
  s->timeout_ms = nan;
  s->batch_cost = nan;
  s->max_batch = 0;
  return s;
}

void set_service_cell(ServiceSpec& row, int index, std::string_view text,
                      const std::string& where) {
  const std::string_view name = kServiceColumns[static_cast<std::size_t>(index)];
  switch (index) {
    case 0:
      row.rate_per_s = parse_number_cell(text, where, name, 0.0, kMaxRate);
      break;
    case 1:
      row.service_ms = parse_number_cell(text, where, name, 1e-6, kMaxMs);
      break;
    case 2:
      row.slo_ms = parse_number_cell(text, where, name, 1e-6, kMaxMs);
      break;
    case 3:
      row.max_batch = static_cast<int>(parse_int_cell(text, where, name, 1, 1000000));
      break;
    case 4:
      row.timeout_ms = parse_number_cell(text, where, name, 1e-6, kMaxMs);
      break;
    default:
      break;
  }
}

void check_service_row(const JobSpec& job, const std::string& where) {
  if (job.kind != JobKind::kInference) {
    throw InputError(where, "kind",
                     "service columns (request_rate_per_s, service_ms, slo_ms, max_batch, "
                     "timeout_ms) are only for rows of kind inference");
  }
}

}  // namespace gpumux
