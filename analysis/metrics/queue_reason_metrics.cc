#include "analysis/metrics/queue_reason_metrics.h"

namespace gpumux {

void QueueReasonMetrics::advance_to(Time now) {
  if (queued_ > 0 && now > since_) {
    const double job_us = static_cast<double>(queued_) * static_cast<double>((now - since_).us());
    job_us_[static_cast<std::size_t>(reason_)] += job_us;
    total_job_us_ += job_us;
  }
  since_ = now;
}

void QueueReasonMetrics::on_queue_changed(Time now, std::size_t queued, QueueReason reason) {
  advance_to(now);
  queued_ = queued;
  reason_ = reason;
}

void QueueReasonMetrics::on_run_end(Time now, std::span<const ActiveJob* const>) {
  advance_to(now);
  queued_ = 0;
}

nlohmann::json QueueReasonMetrics::metrics() const {
  nlohmann::json out = {{"total_job_s", total_job_s()}};
  for (std::size_t r = 0; r < kQueueReasonCount; ++r) {
    const double job_s = job_us_[r] / 1e6;
    out[std::string(kQueueReasonNames[r])] = {
        {"job_s", job_s},
        {"share", total_job_us_ > 0.0 ? nlohmann::json(job_us_[r] / total_job_us_)
                                      : nlohmann::json(nullptr)}};
  }
  return out;
}

}  // namespace gpumux
