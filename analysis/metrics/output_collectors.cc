#include "analysis/metrics/output_collectors.h"

#include "analysis/metrics/queue_reason_metrics.h"
#include "analysis/metrics/service_metrics.h"
#include "analysis/metrics/share_metrics.h"
#include "analysis/metrics/slot_metrics.h"
#include "analysis/run/colocation_tally.h"
#include "analysis/run/progress.h"
#include "analysis/run/rejection_tally.h"
#include "sim/invariants/invariant_checker.h"

namespace gpumux {

namespace {

// An entry that is one observer and reports nothing under "metrics" (a check, a tally the run
// reads back, progress lines).
template <class T>
class ObserverOnly : public OutputCollector {
 public:
  template <class... Args>
  explicit ObserverOnly(Args&&... args) : observer_(std::forward<Args>(args)...) {}
  std::vector<EngineObserver*> observers() override { return {&observer_}; }

 private:
  T observer_;
};

template <class T, class... Args>
std::unique_ptr<OutputCollector> observer_only(Args&&... args) {
  return std::make_unique<ObserverOnly<T>>(std::forward<Args>(args)...);
}

// The core metrics: jobs, GPUs, failures; jobs.csv and timeseries.csv (with the columns of the
// other collectors). Made at start(), once those columns exist.
class CoreCollector : public OutputCollector {
 public:
  explicit CoreCollector(const CollectorInputs& in) : in_(in) {
    if (in.open_file && in.scenario.outputs.jobs_csv) jobs_file_ = in.open_file("jobs.csv");
    if (in.open_file && in.scenario.outputs.timeseries_csv) {
      series_file_ = in.open_file("timeseries.csv");
    }
  }
  void start(const std::vector<const TimeseriesColumns*>& columns) override {
    metrics_ = std::make_unique<MetricsCollector>(
        in_.cluster.gpu_count(), in_.scenario.outputs.timeseries_interval,
        jobs_file_ ? &jobs_file_->stream() : nullptr,
        series_file_ ? &series_file_->stream() : nullptr, columns);
    metrics_->describe_placements(in_.cluster, *in_.scenario.model);
    metrics_->set_exact_percentiles(in_.scenario.outputs.exact_percentiles);
  }
  std::vector<EngineObserver*> observers() override { return {metrics_.get()}; }
  nlohmann::json metrics() const override { return metrics_->metrics(); }
  void commit_files() override {
    if (jobs_file_) jobs_file_->commit();
    if (series_file_) series_file_->commit();
  }

 private:
  const CollectorInputs in_;
  std::unique_ptr<AtomicFile> jobs_file_, series_file_;
  std::unique_ptr<MetricsCollector> metrics_;
};

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
      : metrics_(in.scenario.services.engine, in.scenario.seed,
                 llm_series_wanted(in) ? in.scenario.outputs.timeseries_interval.seconds() : 0.0) {
    if (llm_series_wanted(in)) llm_file_ = in.open_file("llm_timeseries.csv");
  }
  std::vector<EngineObserver*> observers() override { return {&metrics_}; }
  void commit_files() override {
    if (!llm_file_) return;
    metrics_.write_llm_timeseries(llm_file_->stream());
    llm_file_->commit();
  }
  // Runs without services keep their summary exactly as before: no `requests` key.
  nlohmann::json metrics() const override {
    return metrics_.any() ? metrics_.metrics() : nlohmann::json();
  }

 private:
  // LLM endpoints write llm_timeseries.csv beside timeseries.csv (and only then).
  static bool llm_series_wanted(const CollectorInputs& in) {
    return in.open_file && in.scenario.outputs.timeseries_csv &&
           has_llm_endpoint(in.scenario.services);
  }
  ServiceMetrics metrics_;
  std::unique_ptr<AtomicFile> llm_file_;
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
          // First: a broken invariant stops the run before anything else sees the event.
          {"",
           "the simulation's invariants, checked as it runs (sim/invariants/invariant_checker.h)",
           [](const CollectorInputs& in) { return in.check_invariants; },
           [](const CollectorInputs& in) {
             return observer_only<InvariantChecker>(in.cluster, *in.scenario.model);
           }},
          {"", "jobs, GPU time, failures, distributions; jobs.csv and timeseries.csv",
           [](const CollectorInputs&) { return true; },
           [](const CollectorInputs& in) -> std::unique_ptr<OutputCollector> {
             return std::make_unique<CoreCollector>(in);
           }},
          {"", "rejected jobs by reason (RunReport::rejected_by_reason)",
           [](const CollectorInputs&) { return true; },
           [](const CollectorInputs&) { return observer_only<RejectionTally>(); }},
          // Which jobs ran at measured pair speeds: only with a catalogue, under a model that uses
          // them (summary trace.workloads).
          {"", "jobs that ran at measured co-location speeds",
           [](const CollectorInputs& in) {
             return in.scenario.trace.workloads.active() &&
                    in.scenario.model->uses_colocation_speeds();
           },
           [](const CollectorInputs& in) { return observer_only<ColocationTally>(*in.jobs); }},
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
          {"", "progress lines on long runs (analysis/run/progress.h)",
           [](const CollectorInputs& in) { return in.progress != nullptr; },
           [](const CollectorInputs& in) {
             return observer_only<ProgressReporter>(*in.progress, expected_job_count(in.scenario));
           }},
      });
  return table;
}

RunCollectors::RunCollectors(const CollectorInputs& in) {
  std::vector<const TimeseriesColumns*> columns;
  for (const CollectorInfo& info : output_collectors()) {
    if (!info.applies(in)) continue;
    made_.push_back({info.name, info.make(in)});
    if (const auto* c = made_.back().collector->timeseries_columns()) columns.push_back(c);
  }
  for (auto& made : made_) made.collector->start(columns);
}

std::vector<EngineObserver*> RunCollectors::observers() const {
  std::vector<EngineObserver*> all;
  for (const auto& made : made_) {
    for (EngineObserver* o : made.collector->observers()) all.push_back(o);
  }
  return all;
}

nlohmann::json RunCollectors::metrics() const {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& made : made_) {
    if (!made.key.empty()) continue;
    nlohmann::json m = made.collector->metrics();
    if (m.is_object()) metrics.update(m);
  }
  for (const auto& made : made_) {
    if (made.key.empty()) continue;
    if (nlohmann::json m = made.collector->metrics(); !m.is_null()) {
      metrics[std::string(made.key)] = std::move(m);
    }
  }
  return metrics;
}

void RunCollectors::commit_files() {
  for (auto& made : made_) made.collector->commit_files();
}

}  // namespace gpumux
