#include "analysis/metrics/share_metrics.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "traces/formats/trace_writer.h"

namespace gpumux {

void ShareMetrics::read_view() {
  allocated_ = static_cast<double>(view_.allocated_milli());
  fragmentation_ = view_.fragmentation_milli();
  idle_ = static_cast<double>(view_.total_milli() - view_.allocated_milli());
  if (view_.total_milli() > 0) {
    peak_ratio_ = std::max(peak_ratio_, allocated_ / static_cast<double>(view_.total_milli()));
  }
}

void ShareMetrics::advance_to(Time now) {
  if (!started_) return;
  const double dt = static_cast<double>((now - last_).us());
  allocated_integral_ += allocated_ * dt;
  fragmentation_integral_ += fragmentation_ * dt;
  idle_integral_ += idle_ * dt;
  last_ = now;
}

void ShareMetrics::on_job_arrived(Time now, const ActiveJob&) {
  if (!started_) {
    started_ = true;
    first_ = last_ = now;
    read_view();
  }
}

void ShareMetrics::on_job_started(Time now, const ActiveJob&) {
  advance_to(now);
  read_view();
}

void ShareMetrics::on_job_finished(Time now, const ActiveJob&) {
  advance_to(now);
  read_view();
}

void ShareMetrics::on_job_killed(Time now, const ActiveJob&, double) {
  advance_to(now);
  read_view();
}

void ShareMetrics::on_run_end(Time now, std::span<const ActiveJob* const>) { advance_to(now); }

std::string ShareMetrics::header() const {
  return ",share_allocation_ratio,fragmentation_gpus,fragmentation_of_idle";
}

void ShareMetrics::write_values(std::ostream& out) const {
  const double total = static_cast<double>(view_.total_milli());
  const double allocated = static_cast<double>(view_.allocated_milli());
  const double idle = total - allocated;
  const double frag = view_.fragmentation_milli();
  out << ',' << format_timeseries_value(total > 0 ? allocated / total : 0.0) << ','
      << format_timeseries_value(frag / 1000.0, std::max(total / 1000.0, 1.0)) << ','
      << format_timeseries_value(idle > 0 ? frag / idle : 0.0);
}

nlohmann::json ShareMetrics::metrics() const {
  const double span = started_ ? static_cast<double>((last_ - first_).us()) : 0.0;
  const double total = static_cast<double>(view_.total_milli());
  nlohmann::json j;
  j["definition"] =
      "GPU shares held by jobs (gpu_milli) and FGD fragmentation against the trace's typical "
      "jobs (README 'Fractional GPUs over time'), time-weighted over [first arrival, end of run]";
  j["typical_job_kinds"] = view_.typical_pod_kinds();
  if (span > 0 && total > 0) {
    j["allocation_ratio"] = allocated_integral_ / span / total;
    j["fragmentation_gpus"] = fragmentation_integral_ / span / 1000.0;
    j["fragmentation_of_idle"] =
        idle_integral_ > 0 ? nlohmann::json(fragmentation_integral_ / idle_integral_) : nullptr;
  } else {
    j["allocation_ratio"] = nullptr;
    j["fragmentation_gpus"] = nullptr;
    j["fragmentation_of_idle"] = nullptr;
  }
  j["peak_allocation_ratio"] = peak_ratio_;
  return j;
}

}  // namespace gpumux
