#include "analysis/metrics/output_collectors.h"

#include "analysis/metrics/queue_reason_metrics.h"
#include "analysis/metrics/service_metrics.h"
#include "analysis/metrics/share_metrics.h"
#include "analysis/metrics/slot_metrics.h"

namespace gpumux {

namespace {

class SharesCollector : public OutputCollector {
 public:
  explicit SharesCollector(ShareView& view) : view_(view), metrics_(view) {}
  // The view first: placement and the share metrics read it after changes.
  std::vector<EngineObserver*> observers() override { return {&view_, &metrics_}; }
  const TimeseriesColumns* timeseries_columns() const override { return &metrics_; }
  nlohmann::json metrics() const override { return metrics_.metrics(); }

 private:
  ShareView& view_;
  ShareMetrics metrics_;
};

class SlotsCollector : public OutputCollector {
 public:
  explicit SlotsCollector(const CollectorInputs& in) : metrics_(in.cluster, *in.scenario.model) {
    if (in.open_file && in.scenario.outputs.timeseries_csv) {
      file_ = in.open_file("slot_timeseries.csv");
      metrics_.write_timeseries(&file_->stream(), in.scenario.outputs.timeseries_interval);
    }
  }
  std::vector<EngineObserver*> observers() override { return {&metrics_}; }
  nlohmann::json metrics() const override { return metrics_.metrics(); }
  void commit_files() override {
    if (file_) file_->commit();
  }

 private:
  SlotMetrics metrics_;
  std::unique_ptr<AtomicFile> file_;
};

class RequestsCollector : public OutputCollector {
 public:
  explicit RequestsCollector(const CollectorInputs& in)
      : metrics_(in.scenario.services.engine, in.scenario.seed) {}
  std::vector<EngineObserver*> observers() override { return {&metrics_}; }
  // Runs without services keep their summary exactly as before: no `requests` key.
  nlohmann::json metrics() const override {
    return metrics_.any() ? metrics_.metrics() : nlohmann::json();
  }

 private:
  ServiceMetrics metrics_;
};

class QueueReasonsCollector : public OutputCollector {
 public:
  std::vector<EngineObserver*> observers() override { return {&metrics_}; }
  nlohmann::json metrics() const override { return metrics_.metrics(); }

 private:
  QueueReasonMetrics metrics_;
};

}  // namespace

const Registry<CollectorInfo>& output_collectors() {
  static const Registry<CollectorInfo> table(
      "output collector",
      {
          {"shares",
           "GPU shares held and the cluster's fragmentation (FGD); timeseries.csv columns",
           [](const CollectorInputs& in) { return in.share_view != nullptr; },
           [](const CollectorInputs& in) -> std::unique_ptr<OutputCollector> {
             return std::make_unique<SharesCollector>(*in.share_view);
           }},
          // Only models that split GPUs into slots have slot metrics; other runs' outputs stay as
          // they were.
          {"slots", "MIG slots: occupancy, fragmentation, fit-blocked jobs; slot_timeseries.csv",
           [](const CollectorInputs& in) { return has_slots(in.cluster, *in.scenario.model); },
           [](const CollectorInputs& in) -> std::unique_ptr<OutputCollector> {
             return std::make_unique<SlotsCollector>(in);
           }},
          {"requests", "inference requests of services: latency percentiles, SLO attainment",
           [](const CollectorInputs&) { return true; },
           [](const CollectorInputs& in) -> std::unique_ptr<OutputCollector> {
             return std::make_unique<RequestsCollector>(in);
           }},
          {"queued_by_reason",
           "queued job-seconds by why the head of the queue could not start (GPUs, memory, "
           "cores...)",
           [](const CollectorInputs&) { return true; },
           [](const CollectorInputs&) -> std::unique_ptr<OutputCollector> {
             return std::make_unique<QueueReasonsCollector>();
           }},
      });
  return table;
}

}  // namespace gpumux
