// GPU-share metrics of runs whose jobs hold fractions of GPUs (a model that limits compute
// shares, or a share-aware placement policy): how much of the cluster's compute the jobs'
// shares hold, and how much of the rest is fragmented in the FGD study's sense
// (sim/placement/fgd/fragmentation.h: idle milli-GPU on GPUs too small for the typical job, or on nodes
// that cannot host it at all), read from ShareView.
//
// timeseries.csv gains, per row:
//   share_allocation_ratio   allocated milli-GPU / the cluster's milli-GPU
//   fragmentation_gpus       the cluster's fragmentation, in GPUs (milli / 1000)
//   fragmentation_of_idle    fragmentation / idle milli-GPU (0 when nothing is idle)
// and summary.json `metrics.shares` their time-weighted means over [first arrival, end of run]
// (allocation_ratio, fragmentation_gpus; fragmentation_of_idle as the ratio of the two
// integrals), the peak allocation ratio, and the number of typical job kinds.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "analysis/metrics/metrics_collector.h"
#include "sim/state/observer.h"
#include "sim/placement/share_view.h"

namespace gpumux {

class ShareMetrics : public EngineObserver, public TimeseriesColumns {
 public:
  // Must observe the engine after `view` (it reads the view's state after each change).
  explicit ShareMetrics(const ShareView& view) : view_(view) {}

  void on_job_arrived(Time now, const ActiveJob& job) override;
  void on_job_started(Time now, const ActiveJob& job) override;
  void on_job_finished(Time now, const ActiveJob& job) override;
  void on_job_killed(Time now, const ActiveJob& job, double lost_work_us) override;
  void on_run_end(Time now, std::span<const ActiveJob* const> unfinished) override;

  std::string header() const override;
  void write_values(std::ostream& out) const override;

  nlohmann::json metrics() const;

 private:
  void advance_to(Time now);  // integrates the values held since the last change
  void read_view();

  const ShareView& view_;
  bool started_ = false;
  Time first_, last_;
  double allocated_ = 0.0, fragmentation_ = 0.0, idle_ = 0.0;  // milli-GPU now
  double peak_ratio_ = 0.0;
  double allocated_integral_ = 0.0, fragmentation_integral_ = 0.0, idle_integral_ = 0.0;
};

}  // namespace gpumux
