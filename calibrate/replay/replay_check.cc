#include "calibrate/replay/replay_check.h"

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analysis/run/run.h"
#include "models/registry.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/state/job_table.h"
#include "sim/state/observer.h"
#include "traces/formats/trace_source.h"
#include "traces/formats/trace_writer.h"

namespace gpumux::calibration {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// How each simulated job ended, from the engine's events. A kill's cause is the fault event
// that precedes it (the engine reports the event, then kills its victims).
class OutcomeRecorder : public EngineObserver {
 public:
  struct Job {
    double submit_s = 0;
    double end_s = NAN;
    ReplayOutcome outcome = ReplayOutcome::kUnfinished;
    std::string note;
  };

  explicit OutcomeRecorder(std::vector<std::string> faulting) : faulting_(std::move(faulting)) {}

  void on_job_arrived(Time now, const ActiveJob& job) override {
    order_.push_back(job.spec.id);
    jobs_[job.spec.id].submit_s = now.seconds();
  }
  void on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) override {
    Job& j = jobs_[job.spec.id];
    j.outcome = ReplayOutcome::kFailed;
    j.end_s = now.seconds();
    j.note = "rejected: " + std::string(reason);
  }
  void on_job_finished(Time now, const ActiveJob& job) override {
    Job& j = jobs_[job.spec.id];
    j.outcome = ReplayOutcome::kCompleted;
    j.end_s = now.seconds();
  }
  void on_memory_fault(Time, GpuIndex, std::size_t) override { cause_ = ReplayOutcome::kOom; }
  void on_fatal_fault(Time, GpuIndex, std::size_t) override { cause_ = ReplayOutcome::kTornDown; }
  void on_job_killed(Time now, const ActiveJob& job, double) override {
    Job& j = jobs_[job.spec.id];
    j.outcome = cause_;
    if (cause_ == ReplayOutcome::kTornDown &&
        std::find(faulting_.begin(), faulting_.end(), job.spec.id) != faulting_.end()) {
      j.outcome = ReplayOutcome::kFault;
    }
    j.end_s = now.seconds();
  }

  const std::vector<std::string>& order() const { return order_; }
  const Job& job(const std::string& id) const { return jobs_.at(id); }

 private:
  std::vector<std::string> faulting_;  // jobs with an injected fault
  ReplayOutcome cause_ = ReplayOutcome::kFailed;
  std::vector<std::string> order_;
  std::map<std::string, Job> jobs_;
};

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal(); }

// A temporary folder, removed with everything in it.
struct TempFolder {
  std::string path;
  TempFolder() {
    std::string templ = (fs::temp_directory_path() / "gpumux-replay-check-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary folder in " +
                               fs::temp_directory_path().string());
    }
    path = templ;
  }
  ~TempFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

// The trace as the replay ran it, written to `out`: each job's sm_util becomes the duty its
// loop measured alone (kernel_us x alone kernels/s; the launch and synchronise overhead
// lengthens every period a little), as `calibrate check` does for overlap rows. A job without
// a measured rate keeps the trace's. Throws InputError for a bad trace, naming it.
void write_measured_trace(const std::string& trace,
                          const std::map<std::string, const ReplayRow*>& measured,
                          const std::string& out) {
  const std::unique_ptr<TraceSource> source = open_replay_trace(trace);
  std::ofstream file(out);
  write_trace_header(file);
  JobSpec job;
  while (source->next(job)) {
    const auto it = measured.find(job.id);
    if (it != measured.end() && it->second->alone_kernels_per_s > 0) {
      const double duty =
          it->second->alone_kernels_per_s * static_cast<double>(job.kernel_length.us()) / 1e6;
      job.sm_util = std::clamp(duty, 1e-6, 1.0);
    }
    write_trace_row(file, job);
  }
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string seconds_or_dash(double s) { return std::isnan(s) ? "-" : fmt("%.3f", s); }

}  // namespace

ReplayComparison compare_replay(const ReplayCheckOptions& options) {
  const std::vector<ReplayRow> rows = read_replay_csv(options.measured);
  ReplayComparison c;
  c.mode = rows.front().mode;
  if (!options.mode.empty() && options.mode != c.mode) {
    throw InputError(
        "command line", "--mode",
        "'" + options.mode + "', but " + options.measured + " was measured under '" + c.mode + "'");
  }
  c.device = options.device.empty() ? rows.front().device : options.device;
  for (const ReplayRow& r : rows) {
    if (options.device.empty() && r.device != c.device) {
      throw InputError(options.measured + ":" + std::to_string(r.line), "device",
                       "'" + r.device + "' after rows of '" + c.device + "'");
    }
  }
  c.calibration = options.calibration;

  json faults = json::array();
  std::vector<std::string> faulting;
  for (const ReplayRow& r : rows) {
    if (std::isnan(r.fault_after_s)) continue;
    faults.push_back({{"job", r.job}, {"after_s", r.fault_after_s}});
    faulting.push_back(r.job);
  }
  std::map<std::string, const ReplayRow*> measured;
  for (const ReplayRow& r : rows) measured[r.job] = &r;
  const TempFolder temp;
  const std::string measured_trace = temp.path + "/trace.csv";
  write_measured_trace(options.trace, measured, measured_trace);

  // The sharing block's params (see the comment in `doc`).
  json params = {{"admission", "replicas"}, {"replicas", 48}};
  const std::string_view cap =
      contention_model(c.mode, options.measured, "mode").capabilities.thread_cap_parameter;
  if (!cap.empty()) params[std::string(cap)] = 100;
  json doc = {{"name", "replay-check"},
              {"seed", 1},
              {"cluster",
               {{"node_groups",
                 json::array({{{"nodes", 1}, {"gpus_per_node", 1}, {"device", c.device}}})}}},
              // The replay started every process at its submit time, with no scheduler to
              // hold one back: admit every job at once (no memory check), as many as MPS
              // serves, and leave MPS clients uncapped.
              {"sharing", {{"model", c.mode}, {"params", params}}},
              {"scheduler", {{"retry_limit", 0}}},
              {"trace", {{"file", measured_trace}, {"kernel_lengths", "fixed"}}}};
  if (!options.calibration.empty()) {
    doc["sharing"]["params"]["calibration"] = absolute(options.calibration);
  }
  if (!faults.empty()) doc["faults"] = {{"inject", faults}};
  if (!options.out_dir.empty()) doc["outputs"] = {{"dir", absolute(options.out_dir)}};

  // Errors in this generated scenario are the command line's: name the option behind them.
  Scenario scenario;
  try {
    scenario = parse_scenario(doc, "replay-check", fs::current_path().string());
  } catch (const InputError& e) {
    throw InputError("command line", "", std::string("the replay's simulation: ") + e.what());
  }
  OutcomeRecorder recorder(faulting);
  RunOptions run;
  run.write_outputs = !options.out_dir.empty();
  run.observers.push_back(&recorder);
  run_scenario(scenario, run);

  for (const std::string& id : recorder.order()) {
    if (!measured.count(id)) {
      throw InputError(
          options.measured, "job",
          "no row for job '" + id + "' of " + options.trace + ": not a replay of this trace");
    }
  }
  for (const ReplayRow& r : rows) {
    const auto& order = recorder.order();
    if (std::find(order.begin(), order.end(), r.job) == order.end()) {
      throw InputError(options.measured + ":" + std::to_string(r.line), "job",
                       "job '" + r.job + "' is not in " + options.trace);
    }
    const double sim_submit = recorder.job(r.job).submit_s;
    if (std::abs(sim_submit - r.submit_s) > 1e-3) {
      throw InputError(options.measured + ":" + std::to_string(r.line), "submit_s",
                       fmt("%g", r.submit_s) + ", but the trace submits job '" + r.job + "' at " +
                           fmt("%g", sim_submit) + ": not a replay of this trace");
    }
  }

  std::vector<double> errors;
  for (const std::string& id : recorder.order()) {
    const ReplayRow& m = *measured.at(id);
    const OutcomeRecorder::Job& s = recorder.job(id);
    ReplayJobComparison j;
    j.job = id;
    j.measured = m.outcome;
    j.simulated = s.outcome;
    j.simulated_note = s.note;
    j.measured_jct_s = m.jct_s();
    j.simulated_jct_s = s.end_s - s.submit_s;
    j.outcome_match = j.measured == j.simulated;
    j.relative_error = std::nan("");
    if (j.measured == ReplayOutcome::kCompleted && j.simulated == ReplayOutcome::kCompleted &&
        j.measured_jct_s > 0) {
      j.relative_error = (j.simulated_jct_s - j.measured_jct_s) / j.measured_jct_s;
      errors.push_back(std::abs(j.relative_error));
    }
    if (j.outcome_match) ++c.outcomes_identical;
    // The simulation starts a job at its submit time; a replayed process that started late
    // (its context took longer than the lead it was given) carries that lag in its JCT.
    if (m.jct_s() > 0 && m.start_s - m.submit_s > 0.02 * m.jct_s()) {
      c.notes.push_back("job '" + id + "' began its work " + fmt("%.3f", m.start_s - m.submit_s) +
                        " s after its submit time; its measured JCT includes that lag");
    }
    c.jobs.push_back(std::move(j));
  }
  c.compared = static_cast<int>(errors.size());
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    c.median_abs_error = percentile(errors, 0.5);
    c.p95_abs_error = percentile(errors, 0.95);
    c.max_abs_error = errors.back();
    double sum = 0;
    for (double e : errors) sum += e;
    c.mae = sum / static_cast<double>(errors.size());
  }
  return c;
}

void print_replay_comparison(const ReplayComparison& c, const ReplayCheckOptions& options, bool csv,
                             std::ostream& out) {
  const char* lead = csv ? "# " : "";
  out << lead << "replay-check: " << options.measured << " (" << c.mode << ", " << c.jobs.size()
      << " jobs, " << c.device << ") against the " << c.mode << " model with "
      << (c.calibration.empty() ? "its built-in defaults" : "calibration " + c.calibration) << "\n";
  out << lead
      << "each job's sm_util: the duty its loop measured alone (kernel_us x alone "
         "kernels/s)\n";
  if (csv) {
    out << "job,measured,simulated,measured_jct_s,simulated_jct_s,relative_error\n";
  } else {
    char line[160];
    std::snprintf(line, sizeof line, "%-14s %-11s %-11s %12s %12s %9s\n", "job", "measured",
                  "simulated", "jct_meas_s", "jct_sim_s", "error");
    out << line;
  }
  for (const ReplayJobComparison& j : c.jobs) {
    const std::string err =
        std::isnan(j.relative_error)
            ? (j.outcome_match ? "-" : "MISMATCH")
            : fmt(csv ? "%.6f" : "%+.1f%%", csv ? j.relative_error : 100 * j.relative_error);
    if (csv) {
      out << j.job << ',' << replay_outcome_name(j.measured) << ','
          << replay_outcome_name(j.simulated) << ',' << seconds_or_dash(j.measured_jct_s) << ','
          << seconds_or_dash(j.simulated_jct_s) << ',' << (std::isnan(j.relative_error) ? "" : err)
          << "\n";
      continue;
    }
    char line[200];
    std::snprintf(line, sizeof line, "%-14s %-11s %-11s %12s %12s %9s", j.job.c_str(),
                  replay_outcome_name(j.measured), replay_outcome_name(j.simulated),
                  seconds_or_dash(j.measured_jct_s).c_str(),
                  seconds_or_dash(j.simulated_jct_s).c_str(), err.c_str());
    out << line;
    if (!j.simulated_note.empty()) out << "  (" << j.simulated_note << ")";
    out << "\n";
  }
  for (const std::string& n : c.notes) out << lead << "note: " << n << "\n";
  out << lead << "outcomes: " << c.outcomes_identical << " of " << c.jobs.size() << " identical\n";
  if (c.compared > 0) {
    out << lead << "JCT error over the " << c.compared << " jobs completed in both: median "
        << fmt("%.1f%%", 100 * c.median_abs_error) << ", p95 "
        << fmt("%.1f%%", 100 * c.p95_abs_error) << ", max " << fmt("%.1f%%", 100 * c.max_abs_error)
        << "\n";
    out << "MAE " << fmt("%.4f", c.mae) << "\n";
  } else {
    out << "MAE n/a\n";
  }
}

}  // namespace gpumux::calibration
