// Everything that watches a run, in one table (output_collectors.cc; a Registry,
// sim/base/registry.h): the invariant checks, the
// core MetricsCollector (metrics_collector.h: jobs, GPUs, failures; jobs.csv, timeseries.csv),
// the rejection and co-location tallies, the optional metric families and the progress lines.
// Each entry names its key under summary.json "metrics" (empty: none of its own), one line of
// what it measures, when a run has it, and how it is built. The run driver (analysis/run/run.cc)
// builds every entry that applies (RunCollectors) and adds their observers in table order; it is
// the only list of them.
//
// To add a family: write its observer in this folder (as slot_metrics.*), an OutputCollector
// for it in output_collectors.cc, and one line of the table; give its metric names to the
// catalogue (metric_catalogue.cc) so that expect, plan and compare know them.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>
#include <vector>

#include "analysis/metrics/metrics_collector.h"
#include "scenarios/scenario.h"
#include "sim/base/atomic_file.h"
#include "sim/base/registry.h"
#include "sim/placement/share_view.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"
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
  const JobTable* jobs = nullptr;    // the engine's (Engine::jobs())
  bool check_invariants = false;     // RunOptions::check_invariants, or the environment's
  std::ostream* progress = nullptr;  // where progress lines go (RunOptions::progress), or none
};

class OutputCollector {
 public:
  virtual ~OutputCollector() = default;
  // Called once every collector of the run is made, before the run, with their timeseries.csv
  // columns in table order (the core collector writes them).
  virtual void start(const std::vector<const TimeseriesColumns*>& /*columns*/) {}
  // The observers to add to the engine, in the order they must see its signals.
  virtual std::vector<EngineObserver*> observers() = 0;
  // More columns of timeseries.csv, or null.
  virtual const TimeseriesColumns* timeseries_columns() const { return nullptr; }
  // Its object under summary.json "metrics", or null when the run has nothing to report in
  // it (the key is then left out); for an entry without a key, the object's keys are top-level
  // keys of "metrics". Precondition: the run has ended.
  virtual nlohmann::json metrics() const { return nullptr; }
  // Commits the files it writes (before summary.json; the folder is replaced as a whole).
  virtual void commit_files() {}
};

struct CollectorInfo {
  std::string_view name;  // its key under summary.json "metrics"; empty: no key of its own
  std::string_view summary;
  bool (*applies)(const CollectorInputs& in);
  std::unique_ptr<OutputCollector> (*make)(const CollectorInputs& in);
};

// Every entry, in the order their observers are added to the engine.
const Registry<CollectorInfo>& output_collectors();

// The collectors of one run: every entry that applies to `in`, made and started in table order.
class RunCollectors {
 public:
  explicit RunCollectors(const CollectorInputs& in);
  // Every collector's observers, in table order.
  std::vector<EngineObserver*> observers() const;
  // summary.json "metrics": the keyless entries' keys, then each family under its key.
  // Precondition: the run has ended.
  nlohmann::json metrics() const;
  // Commits every collector's files (before summary.json).
  void commit_files();
  // The observer of type T (a tally the run reads back), or null when no entry made one.
  template <class T>
  const T* observer() const {
    for (const auto& made : made_) {
      for (EngineObserver* o : made.collector->observers()) {
        if (const auto* found = dynamic_cast<const T*>(o)) return found;
      }
    }
    return nullptr;
  }

 private:
  struct Made {
    std::string_view key;
    std::unique_ptr<OutputCollector> collector;
  };
  std::vector<Made> made_;
};

}  // namespace gpumux
