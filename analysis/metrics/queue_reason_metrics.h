// Queued job-seconds by the reason the head of the queue could not start (summary.json
// metrics.queued_by_reason; docs/outputs.md gives the definition).
//
// Between two consecutive changes of the queue (EngineObserver::on_queue_changed), the jobs
// queued times the time between them is attributed to the head's reason then
// (sim/core/queue_reason.h). The total is the integral of the scheduler's queue length over
// the run, up to its end (the time limit included): with no kill or migration it is the sum
// over the jobs of start - submit, and end - submit for those still queued at the end. Every
// reason is always written, so that the schema does not depend on the run.
#pragma once

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>

#include "sim/core/queue_reason.h"
#include "sim/state/observer.h"

namespace gpumux {

class QueueReasonMetrics : public EngineObserver {
 public:
  bool wants_queue_reasons() const override { return true; }
  void on_queue_changed(Time now, std::size_t queued, QueueReason reason) override;
  void on_run_end(Time now, std::span<const ActiveJob* const> unfinished) override;

  // Job-seconds queued over the run, in all and per reason. Precondition: the run has ended.
  double total_job_s() const { return total_job_us_ / 1e6; }
  double job_s(QueueReason r) const { return job_us_[static_cast<std::size_t>(r)] / 1e6; }
  // {"total_job_s": T, REASON: {"job_s": x, "share": x / T (null when T is 0)}, ...} for every
  // reason of kQueueReasonNames.
  nlohmann::json metrics() const;

 private:
  void advance_to(Time now);

  Time since_;
  std::size_t queued_ = 0;
  QueueReason reason_ = QueueReason::kGpus;
  // Job-microseconds: each interval adds queued x dt, exact below 2^53.
  std::array<double, kQueueReasonCount> job_us_{};
  double total_job_us_ = 0.0;
};

}  // namespace gpumux
