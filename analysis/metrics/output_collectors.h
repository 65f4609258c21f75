// The run's optional metric families, in one table (output_collectors.cc; a Registry,
// sim/base/registry.h): each entry's name (its key under summary.json "metrics"), one line of
// what it measures, when a run has it, and how it is built. The run driver (analysis/run/run.cc)
// builds every entry that applies, beside the core MetricsCollector (metrics_collector.h: jobs,
// GPUs, failures; jobs.csv, timeseries.csv), and reads nothing else; it is the only list of them.
//
// To add a family: write its observer in this folder (as slot_metrics.*), an OutputCollector
// for it in output_collectors.cc, and one line of the table; give its metric names to the
// catalogue (metric_catalogue.cc) so that expect, plan and compare know them.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "analysis/metrics/metrics_collector.h"
#include "scenarios/scenario.h"
#include "sim/base/atomic_file.h"
#include "sim/base/registry.h"
#include "sim/placement/share_view.h"
#include "sim/state/cluster.h"
#include "sim/state/observer.h"

namespace gpumux {

// What a collector is built from. Built after the engine (which sets the GPUs' initial
// layouts) and before the run; everything here outlives the collector.
struct CollectorInputs {
  const Scenario& scenario;
  const Cluster& cluster;
  // The cluster mirrored in GPU shares, when the run keeps one (share-aware placement, or a
  // model limiting compute shares); else null.
  ShareView* share_view = nullptr;
  // Opens a file NAME of the run's output folder, or is empty when the run writes no files.
  std::function<std::unique_ptr<AtomicFile>(const char* name)> open_file;
};

class OutputCollector {
 public:
  virtual ~OutputCollector() = default;
  // The observers to add to the engine, in the order they must see its signals.
  virtual std::vector<EngineObserver*> observers() = 0;
  // More columns of timeseries.csv, or null.
  virtual const TimeseriesColumns* timeseries_columns() const { return nullptr; }
  // Its object under summary.json "metrics", or null when the run has nothing to report in
  // it (the key is then left out). Precondition: the run has ended.
  virtual nlohmann::json metrics() const = 0;
  // Commits the files it writes (before summary.json; the folder is replaced as a whole).
  virtual void commit_files() {}
};

struct CollectorInfo {
  std::string_view name;  // its key under summary.json "metrics"
  std::string_view summary;
  bool (*applies)(const CollectorInputs& in);
  std::unique_ptr<OutputCollector> (*make)(const CollectorInputs& in);
};

// Every entry, in the order their observers are added to the engine.
const Registry<CollectorInfo>& output_collectors();

}  // namespace gpumux
