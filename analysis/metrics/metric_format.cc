#include "analysis/metrics/metric_format.h"

#include <array>
#include <utility>

#include "analysis/output/number_text.h"

namespace gpumux {

namespace {

struct Entry {
  std::string_view name;
  MetricFormat format;
};

// Shares of time or GPUs with 3 decimals, seconds with 1, milliseconds with 2, an attainment
// with 4 (99.95% is not 100%), counts whole.
constexpr std::array<Entry, 23> kFormats = {{
    {"gpu_allocation_ratio", {3, false}},
    {"sm_busy_utilization", {3, false}},
    {"jct_s.mean", {1, false}},
    {"jct_s.p50", {1, false}},
    {"jct_s.p95", {1, false}},
    {"jct_s.p99", {1, false}},
    {"queueing_delay_s.mean", {1, false}},
    {"queueing_delay_s.p95", {1, false}},
    {"shares.allocation_ratio", {3, false}},
    {"shares.fragmentation_gpus", {1, false}},
    {"shares.fragmentation_of_idle", {3, false}},
    {"requests.latency_ms.p50", {2, false}},
    {"requests.latency_ms.p95", {2, false}},
    {"requests.latency_ms.p99", {2, false}},
    {"requests.slo_attainment", {4, false}},
    {"jobs.arrived", {0, true}},
    {"jobs.finished", {0, true}},
    {"failures.memory_fault_kills", {0, true}},
    {"jobs.failed", {0, true}},
    {"jobs.rejected", {0, true}},
    {"jobs.unfinished_queued", {0, true}},
    {"jobs.unfinished_running", {0, true}},
    {"mean_allocated_gpus", {2, false}},
}};

}  // namespace

std::optional<MetricFormat> metric_format(std::string_view name) {
  for (const auto& e : kFormats) {
    if (e.name == name) return e.format;
  }
  return std::nullopt;
}

std::string metric_value_text(std::string_view name, double value,
                              std::string (*fallback)(double)) {
  const std::optional<MetricFormat> f = metric_format(name);
  return f ? fixed_text(value, f->digits) : fallback(value);
}

}  // namespace gpumux
