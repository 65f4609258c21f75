#include "calibrate/probe/replay_runner.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include "calibrate/probe/child_payload.h"
#include "calibrate/probe/device_naming.h"
#include "calibrate/probe/overlap_math.h"
#include "calibrate/probe/probe_environment.h"
#include "calibrate/probe/sidecar.h"
#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"
#include "traces/formats/trace_source.h"

namespace gpumux::calibration {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kMaxJobs = 48;            // MPS clients per server (Volta and later)
constexpr double kReadyTimeout = 60;    // a child's context, also through MPS
constexpr double kAloneWarmupS = 0.05;  // looping before an alone run's counted window
constexpr double kStopMarginS = 1;      // children stop this long before the deadline
constexpr double kSpawnS = 1.5;         // a process and its context, for the estimates

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

using LoopKey = std::tuple<int, double, double>;  // blocks, kernel_us, gap_us

LoopKey key_of(const LoopSpec& l) { return {l.blocks, l.kernel_us, l.gap_us}; }

}  // namespace

std::vector<ReplayJob> load_replay_jobs(const ReplayOptions& options) {
  const std::unique_ptr<TraceSource> source = open_replay_trace(options.trace);
  std::vector<ReplayJob> jobs;
  JobSpec spec;
  while (source->next(spec)) {
    const std::string what = "job '" + spec.id + "'";
    if (spec.gpus != 1) {
      throw InputError(options.trace, "gpus",
                       what + " asks for " + std::to_string(spec.gpus) +
                           " GPUs: a replay runs every job on the one GPU");
    }
    if (spec.service) {
      throw InputError(options.trace, "request_rate_per_s",
                       what + " is an inference service: a replay runs kernel loops only");
    }
    if (jobs.size() == kMaxJobs) {
      throw InputError(options.trace, "",
                       "more than " + std::to_string(kMaxJobs) +
                           " jobs: one MPS server serves at most 48 clients");
    }
    ReplayJob j;
    j.id = spec.id;
    j.submit_s = spec.submit.seconds();
    j.runtime_s = spec.runtime.seconds();
    j.sm_share = spec.sm_share;
    j.duty = spec.sm_util;
    j.kernel_us = static_cast<double>(spec.kernel_length.us());
    j.memory_bytes = static_cast<uint64_t>(spec.memory.mib()) << 20;
    if (!(j.runtime_s > 0)) throw InputError(options.trace, "runtime_s", what + " has no work");
    jobs.push_back(std::move(j));
  }
  if (jobs.empty()) throw InputError(options.trace, "", "no jobs to replay");
  for (const ReplayFault& f : options.faults) {
    auto it =
        std::find_if(jobs.begin(), jobs.end(), [&](const ReplayJob& j) { return j.id == f.job; });
    if (it == jobs.end()) {
      throw InputError("command line", "--fault", "job '" + f.job + "' is not in " + options.trace);
    }
    it->fault_after_s = f.after_s;
  }
  return jobs;
}

LoopSpec replay_loop(const ReplayJob& job, int sm_count) {
  const int blocks =
      std::clamp(static_cast<int>(std::lround(job.sm_share * sm_count)), 1, std::max(1, sm_count));
  return {blocks, job.kernel_us, gap_us(job.kernel_us, job.duty)};
}

ReplayRunner::ReplayRunner(ReplayOptions options, GpuBackend& backend, std::ostream& log,
                           std::string mps_control, int assume_sms)
    : options_(std::move(options)),
      backend_(backend),
      log_(log),
      mps_(std::move(mps_control)),
      assume_sms_(assume_sms) {}

EnvVars ReplayRunner::child_env() const {
  if (options_.mode == "mps") return mps_.client_env();
  return {{"CUDA_VISIBLE_DEVICES", visible_device_}, {"CUDA_MPS_PIPE_DIRECTORY", no_mps_dir_}};
}

int ReplayRunner::run() {
  t0_ = monotonic_s();
  started_utc_ = utc_now();
  const std::vector<ReplayJob> jobs = load_replay_jobs(options_);

  // What the replay needs at least: the latest job's end alone, the lead, and the alone runs.
  std::map<LoopKey, int> distinct;
  double last_end = 0;
  for (const ReplayJob& j : jobs) {
    distinct[key_of(replay_loop(j, assume_sms_))] = 0;
    last_end = std::max(last_end, j.submit_s + j.runtime_s);
  }
  const double alone_phase =
      static_cast<double>(distinct.size()) * (kSpawnS + kAloneWarmupS + options_.alone_s);
  const double needed = kSpawnS + alone_phase + options_.lead_s + last_end + kStopMarginS;
  log_ << "replay of " << options_.trace << ": " << jobs.size() << " jobs under " << options_.mode
       << ", " << distinct.size() << " distinct loops measured alone first; "
       << "the last job ends at " << fmt("%.1f", last_end) << " s of trace time if alone; needs "
       << fmt("%.0f", needed) << " s at least, budget " << fmt("%.0f", options_.budget_s) << " s\n";
  if (needed > options_.budget_s) {
    throw InputError("command line", "--budget-s",
                     fmt("%.0f", options_.budget_s) +
                         " s is less than the replay needs at least (" + fmt("%.0f", needed) +
                         " s)");
  }
  if (options_.dry_run) {
    for (const ReplayJob& j : jobs) {
      const LoopSpec l = replay_loop(j, assume_sms_);
      log_ << "  " << j.id << ": submit " << j.submit_s << " s, work " << j.runtime_s
           << " s, kernel " << l.kernel_us << " us on " << l.blocks << " of " << assume_sms_
           << " SMs, gap " << fmt("%.1f", l.gap_us) << " us, memory " << (j.memory_bytes >> 20)
           << " MiB"
           << (j.fault_after_s >= 0 ? ", faults " + fmt("%g", j.fault_after_s) + " s after start"
                                    : "")
           << "\n";
    }
    return 0;
  }

  create_out_folder(options_.out_dir);
  visible_device_ = visible_device_entry(options_.device);
  const EmptyPipeFolder no_mps_folder;
  no_mps_dir_ = no_mps_folder.path();
  if (const std::string note = foreign_mps_daemon_note(); !note.empty()) {
    notes_.push_back(note);
    log_ << "note: " << note << "\n";
  }
  std::string why;
  const EnvVars query_env = {{"CUDA_VISIBLE_DEVICES", visible_device_},
                             {"CUDA_MPS_PIPE_DIRECTORY", no_mps_dir_}};
  if (!query_device_in_child(backend_, query_env, kReadyTimeout, device_, why)) {
    log_ << "error: no usable GPU: " << why << "\n";
    errors_.push_back("device query: " + why);
    write_outputs(false);
    return 1;
  }
  device_profile_ = profile_name(device_.cuda_name, device_.total_memory_bytes);
  const int sms = std::max(1, device_.sm_count);
  log_ << "device: " << device_.cuda_name << " (" << device_profile_ << "), " << sms
       << " SMs, compute mode " << compute_mode_name(device_.compute_mode) << "\n";
  if (options_.mode == "timeslice" && (device_.compute_mode == 1 || device_.compute_mode == 3)) {
    errors_.push_back("compute mode is exclusive: jobs cannot share the GPU by time-slicing");
    log_ << "error: " << errors_.back() << "\n";
    write_outputs(false);
    return 1;
  }

  if (options_.mode == "mps") {
    const std::string err = mps_.start(visible_device_);
    if (!err.empty()) {
      mps_status_ = "could not start a private MPS daemon: " + err;
      errors_.push_back(mps_status_);
      log_ << "error: " << mps_status_ << "\n";
      write_outputs(false);
      return 1;
    }
    mps_status_ = "ok";
    log_ << "MPS: private daemon started (pipe directory " << mps_.pipe_dir() << ")\n";
    // For the device script: where to send `quit` if this process dies unexpectedly.
    std::ofstream(fs::path(options_.out_dir) / "mps_pipe_dir.txt") << mps_.pipe_dir() << "\n";
  }
  try {
    std::vector<double> rates;
    if (measure_alone(jobs, sms, rates) && !stop_requested()) {
      replay(jobs, sms, rates, device_profile_);
    }
  } catch (...) {
    mps_.stop((fs::path(options_.out_dir) / "mps-log").string());
    throw;
  }
  if (mps_.running()) {
    const std::string err = mps_.stop((fs::path(options_.out_dir) / "mps-log").string());
    if (!err.empty()) errors_.push_back("MPS daemon: " + err);
  }
  const bool complete = rows_.size() == jobs.size() && !stop_requested();
  write_outputs(complete);
  log_ << "wrote " << rows_.size() << " job rows to " << options_.out_dir << " in "
       << fmt("%.1f", monotonic_s() - t0_) << " s\n";
  if (stop_requested()) return 130;
  return rows_.size() == jobs.size() ? 0 : 1;
}

bool ReplayRunner::measure_alone(const std::vector<ReplayJob>& jobs, int sm_count,
                                 std::vector<double>& rate_per_job) {
  std::map<LoopKey, double> rate;
  for (const ReplayJob& j : jobs) {
    const LoopSpec loop = replay_loop(j, sm_count);
    const LoopKey key = key_of(loop);
    if (rate.count(key)) continue;
    if (stop_requested()) return false;
    log_ << "alone: " << loop.kernel_us << " us kernels on " << loop.blocks << " SMs, gap "
         << fmt("%.1f", loop.gap_us) << " us\n";
    const double window_s = options_.alone_s;
    const ChildResult c = run_child(
        child_env(),
        [&] {
          backend_.prepare(0);
          const double t = monotonic_s();
          const LoopWindow w{t, t + kAloneWarmupS, t + kAloneWarmupS + window_s,
                             t + kAloneWarmupS + window_s};
          return count_json(backend_.run_loop(loop, w)).dump();
        },
        kReadyTimeout + window_s);
    const json payload = parse_payload(c);
    std::string failure = child_failure(c);
    double per_s = 0;
    if (failure.empty() && payload.is_object()) {
      const LoopCount n = count_from(payload);
      if (!n.error.empty()) failure = n.error;
      per_s = static_cast<double>(n.kernels_in_window) / window_s;
      if (failure.empty() && n.kernels_in_window == 0) {
        failure = "no kernel completed in the " + fmt("%g", window_s) + " s window (--alone-s)";
      }
    } else if (failure.empty()) {
      failure = "no payload";
    }
    if (!failure.empty()) {
      errors_.push_back("alone run of job '" + j.id + "''s loop: " + failure);
      log_ << "error: " << errors_.back() << "\n";
      return false;
    }
    rate[key] = per_s;
    loops_.push_back({{"blocks", loop.blocks},
                      {"kernel_us", loop.kernel_us},
                      {"gap_us", loop.gap_us},
                      {"alone_kernels_per_s", per_s}});
  }
  for (const ReplayJob& j : jobs) rate_per_job.push_back(rate.at(key_of(replay_loop(j, sm_count))));
  return true;
}

void ReplayRunner::replay(const std::vector<ReplayJob>& jobs, int sm_count,
                          const std::vector<double>& rate_per_job, const std::string& device) {
  std::vector<int64_t> planned;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    planned.push_back(std::max<int64_t>(1, std::llround(jobs[i].runtime_s * rate_per_job[i])));
  }
  const double deadline = t0_ + options_.budget_s;
  const double lead = options_.lead_s;
  log_ << "replaying " << jobs.size() << " jobs (" << fmt("%.0f", deadline - monotonic_s())
       << " s of budget left)\n";
  const std::vector<EnvVars> envs(jobs.size(), child_env());
  const SetRun set = run_child_set(
      envs,
      [&](int member, StartGate& gate) -> std::string {
        const double start = gate.ready_and_wait();
        if (start < 0) return "";
        const ReplayJob& j = jobs[static_cast<std::size_t>(member)];
        const double zero = start + lead;  // the trace's time 0
        auto rel = [&](double t) { return t - zero; };
        json out = json::object();
        sleep_until(zero + j.submit_s - lead);
        try {
          backend_.prepare(0);
        } catch (const std::exception& e) {
          out["outcome"] = "failed";
          out["error"] = e.what();
          out["end"] = rel(monotonic_s());
          return out.dump();
        }
        out["ready"] = rel(monotonic_s());
        sleep_until(zero + j.submit_s);
        if (j.memory_bytes > 0) {
          const std::string err = backend_.try_allocate(j.memory_bytes);
          if (!err.empty()) {
            out["outcome"] = "oom";
            out["error"] = err;
            out["end"] = rel(monotonic_s());
            return out.dump();
          }
        }
        const double work_start = monotonic_s();
        out["start"] = rel(work_start);
        double stop = deadline - kStopMarginS;
        const bool faults = j.fault_after_s >= 0;
        if (faults) stop = std::min(stop, work_start + j.fault_after_s);
        const KernelRun r = backend_.run_kernels(replay_loop(j, sm_count),
                                                 planned[static_cast<size_t>(member)], stop);
        out["kernels"] = r.kernels;
        if (!r.error.empty()) {
          out["outcome"] = "torn_down";
          out["error"] = r.error;
          out["end"] = rel(r.error_at_s);
        } else if (r.kernels >= planned[static_cast<size_t>(member)]) {
          out["outcome"] = "completed";
          out["end"] = rel(r.end_s);
        } else if (faults && monotonic_s() < deadline - kStopMarginS) {
          sleep_until(work_start + j.fault_after_s);
          out["error"] = backend_.launch_faulting_kernel();
          out["outcome"] = "fault";
          out["end"] = rel(monotonic_s());
        } else {
          out["outcome"] = "unfinished";
        }
        return out.dump();
      },
      kReadyTimeout, std::max(1.0, deadline - monotonic_s()));

  const double zero = set.start_s + lead;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const ReplayJob& j = jobs[i];
    ReplayRow r;
    r.mode = options_.mode;
    r.job = j.id;
    r.device = device;
    r.submit_s = j.submit_s;
    r.kernels_planned = planned[i];
    r.alone_kernels_per_s = rate_per_job[i];
    if (j.fault_after_s >= 0) r.fault_after_s = j.fault_after_s;
    const ChildResult& c = i < set.children.size() ? set.children[i] : ChildResult{};
    const json p = parse_payload(c);
    if (p.is_object() && p.contains("outcome")) {
      const std::string o = p["outcome"];
      for (ReplayOutcome k :
           {ReplayOutcome::kCompleted, ReplayOutcome::kOom, ReplayOutcome::kFault,
            ReplayOutcome::kTornDown, ReplayOutcome::kUnfinished, ReplayOutcome::kFailed}) {
        if (o == replay_outcome_name(k)) r.outcome = k;
      }
      if (p.contains("ready")) r.ready_s = p["ready"];
      if (p.contains("start")) r.start_s = p["start"];
      if (p.contains("end")) r.end_s = p["end"];
      if (p.contains("error")) r.error = p["error"];
      if (p.contains("kernels")) r.kernels_done = p["kernels"];
    } else if (c.timed_out) {
      r.outcome = ReplayOutcome::kUnfinished;
      r.error = "killed at the deadline (--budget-s)";
    } else {
      r.outcome = ReplayOutcome::kFailed;
      r.error = child_failure(c);
      if (c.exit_s >= 0 && set.start_s >= 0) r.end_s = std::max(j.submit_s, c.exit_s - zero);
    }
    log_ << "  " << r.job << ": " << replay_outcome_name(r.outcome)
         << (std::isnan(r.end_s) ? "" : " at " + fmt("%.3f", r.end_s) + " s")
         << (r.error.empty() ? "" : " (" + r.error + ")") << "\n";
    rows_.push_back(std::move(r));
  }
}

void ReplayRunner::write_outputs(bool complete) {
  const fs::path dir(options_.out_dir);
  AtomicFile csv((dir / "replay.csv").string());
  write_replay_csv(rows_, csv.stream());
  json faults = json::array();
  for (const ReplayFault& f : options_.faults) {
    faults.push_back({{"job", f.job}, {"after_s", f.after_s}});
  }
  const json sidecar = {
      {"tool", "gpumux-probe replay"},
      {"version", GPUMUX_VERSION},
      {"command_line", options_.command_line},
      {"trace", options_.trace},
      {"mode", options_.mode},
      {"budget_s", options_.budget_s},
      {"lead_s", options_.lead_s},
      {"alone_s", options_.alone_s},
      {"started_utc", started_utc_},
      {"finished_utc", utc_now()},
      {"elapsed_s", monotonic_s() - t0_},
      {"complete", complete},
      {"interrupted", stop_requested()},
      {"device", device_.sm_count > 0 ? device_json(device_, device_profile_) : json::object()},
      {"mps", mps_status_},
      {"loops", loops_},
      {"faults", faults},
      {"errors", errors_},
      {"notes", notes_}};
  AtomicFile side((dir / "replay.json").string());
  side.stream() << sidecar.dump(2) << "\n";
  csv.commit();
  side.commit();
}

}  // namespace gpumux::calibration
