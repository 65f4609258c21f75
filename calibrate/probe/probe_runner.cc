#include "calibrate/probe/probe_runner.h"

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "calibrate/probe/child_payload.h"
#include "calibrate/probe/child_processes.h"
#include "calibrate/probe/device_naming.h"
#include "calibrate/probe/overlap_math.h"
#include "calibrate/probe/probe_environment.h"
#include "sim/base/input_error.h"

namespace gpumux::calibration {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kReadyTimeout = 60;  // context creation, also through MPS; at most
                                      // the budget left (but 10 s at least)

std::string fmt(const char* f, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, f, a, b);
  return buf;
}

}  // namespace

ProbeRunner::ProbeRunner(ProbeOptions options, GpuBackend& backend, std::ostream& log,
                         PlanTimes times, std::string mps_control)
    : options_(std::move(options)),
      backend_(backend),
      log_(log),
      times_(times),
      mps_(std::move(mps_control)) {}

EnvVars ProbeRunner::child_env(const std::string& mode, int active_thread_pct) const {
  // An empty private pipe folder keeps non-MPS children off any MPS daemon that may already
  // serve this machine's default folder: they must measure plain time-slicing.
  EnvVars env = {{"CUDA_VISIBLE_DEVICES", visible_device_},
                 {"CUDA_MPS_PIPE_DIRECTORY", no_mps_dir_}};
  if (mode == "mps") {
    env = mps_.client_env();
    if (active_thread_pct < 100) {
      env.emplace_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(active_thread_pct));
    }
  }
  return env;
}

int ProbeRunner::run() {
  t0_ = monotonic_s();
  report_.started_utc = utc_now();
  report_.mps_status = "not requested";

  if (options_.dry_run) {
    PlanContext ctx;
    ctx.sm_count = options_.assume_sms;
    ctx.times = times_;
    const MeasurementPlan plan = build_plan(options_, ctx);
    log_ << describe_plan(plan, ctx.sm_count);
    return 0;
  }

  create_out_folder(options_.out_dir);

  // The index CUDA_VISIBLE_DEVICES gives every child, so that all of them (and the MPS
  // daemon) see the chosen GPU as device 0.
  visible_device_ = visible_device_entry(options_.device);
  const EmptyPipeFolder no_mps_folder;
  no_mps_dir_ = no_mps_folder.path();
  if (const std::string note = foreign_mps_daemon_note(); !note.empty()) {
    report_.notes.push_back(note);
    log_ << "note: " << note << "\n";
  }

  // Device query, in a child: the parent never initialises CUDA.
  log_ << "querying device " << options_.device << "...\n";
  DeviceInfo& d = report_.device;
  std::string why;
  if (!query_device_in_child(backend_, child_env("timeslice", 100), kReadyTimeout, d, why)) {
    log_ << "error: no usable GPU: " << why << "\n";
    report_.errors.push_back("device query: " + why);
    write_outputs();
    return 1;
  }
  report_.device_known = true;
  report_.device_profile = profile_name(d.cuda_name, d.total_memory_bytes);
  log_ << "device: " << d.cuda_name << " (" << report_.device_profile << "), " << d.sm_count
       << " SMs, compute mode " << compute_mode_name(d.compute_mode) << "\n";
  if (d.compute_mode == 1 || d.compute_mode == 3) {
    log_ << "compute mode is exclusive: time-slicing sets are skipped (only one process may "
            "hold a context)\n";
  }

  PlanContext ctx;
  ctx.sm_count = std::max(1, d.sm_count);
  ctx.compute_mode = d.compute_mode;
  ctx.times = times_;
  const MeasurementPlan plan = build_plan(options_, ctx);
  report_.plan_estimate_s = plan.estimate_s;
  for (const PlanItem& item : plan.items)
    report_.planned.push_back({item.name, "", item.estimate_s});
  report_.skipped = plan.skipped;
  log_ << describe_plan(plan, ctx.sm_count);

  const bool mps_wanted = std::any_of(plan.items.begin(), plan.items.end(),
                                      [](const PlanItem& i) { return i.mode == "mps"; });
  if (std::find(options_.modes.begin(), options_.modes.end(), "mps") != options_.modes.end()) {
    report_.mps_status = mps_wanted ? "ok" : "no MPS item fits the budget";
  }
  std::map<ItemKind, std::pair<double, double>> elapsed_by_kind;  // actual, estimated
  try {
    for (const PlanItem& item : plan.items) {
      if (stop_requested()) break;
      if (item.mode != "mps" && mps_.running()) stop_mps();
      if (item.mode == "mps" && !mps_.running() && mps_error_.empty()) {
        const std::string err = mps_.start(visible_device_);
        if (!err.empty()) {
          mps_error_ = err;
          report_.mps_status = "could not start a private MPS daemon: " + err;
          log_ << "MPS: " << report_.mps_status << "\n";
        } else {
          log_ << "MPS: private daemon started (pipe directory " << mps_.pipe_dir() << ")\n";
          // For run_on_device.sh: where to send `quit` if this process dies unexpectedly.
          std::ofstream(fs::path(options_.out_dir) / "mps_pipe_dir.txt") << mps_.pipe_dir() << "\n";
        }
      }
      if (item.mode == "mps" && !mps_error_.empty()) {
        report_.skipped.push_back({item.name, "MPS unavailable: " + mps_error_, item.estimate_s});
        continue;
      }
      // Estimates scaled by how much longer this kind of item has really taken so far, so
      // that a slow machine still finishes within the budget.
      auto& [actual_s, estimated_s] = elapsed_by_kind[item.kind];
      const double slowdown = estimated_s > 0 ? std::max(1.0, actual_s / estimated_s) : 1.0;
      const double needed = item.estimate_s * slowdown;
      const double now = monotonic_s();
      if (now + needed > t0_ + options_.budget_s) {
        report_.skipped.push_back({item.name,
                                   fmt("budget at run time: needs %.1f s, %.1f s left", needed,
                                       std::max(0.0, t0_ + options_.budget_s - now)),
                                   needed});
        continue;
      }
      log_ << "running " << item.name << "\n";
      run_item(item);
      write_outputs();  // so that a killed run still leaves what it measured
      actual_s += monotonic_s() - now;
      estimated_s += item.estimate_s;
    }
  } catch (...) {
    stop_mps();
    throw;
  }
  stop_mps();
  report_.interrupted = stop_requested();
  report_.complete = true;
  write_outputs();
  log_ << "wrote " << rows_.size() << " overlap rows and " << solo_.size() << " solo rows to "
       << options_.out_dir << " in " << fmt("%.1f", monotonic_s() - t0_) << " s\n";
  return report_.interrupted ? 130 : 0;
}

double ProbeRunner::ready_timeout() const {
  return std::clamp(t0_ + options_.budget_s - monotonic_s(), 10.0, kReadyTimeout);
}

void ProbeRunner::stop_mps() {
  if (!mps_.running()) return;
  const std::string err = mps_.stop((fs::path(options_.out_dir) / "mps-log").string());
  std::error_code ec;
  if (err.empty()) {
    fs::remove(fs::path(options_.out_dir) / "mps_pipe_dir.txt", ec);
    log_ << "MPS: daemon quit\n";
  } else {
    report_.errors.push_back("MPS daemon quit: " + err);
    log_ << "MPS: " << err << "\n";
  }
}

void ProbeRunner::run_item(const PlanItem& item) {
  switch (item.kind) {
    case ItemKind::kSolo:
      run_solo(item);
      break;
    case ItemKind::kSet:
      if (run_alone(item)) run_set(item);
      break;
    case ItemKind::kMemoryContainment:
      run_memory_test(item);
      break;
    case ItemKind::kFaultContainment:
      run_fault_test(item);
      break;
  }
}

void ProbeRunner::run_solo(const PlanItem& item) {
  const ChildResult c = run_child(
      child_env("timeslice", 100),
      [&] {
        backend_.prepare(0);
        json out = json::array();
        for (const MemberSpec& p : item.solo_points) {
          const SoloMeasurement m =
              backend_.measure_solo(p.blocks, p.kernel_us, solo_repeats(p.kernel_us));
          out.push_back({p.blocks, p.kernel_us, m.kernel_us_measured, m.period_us});
        }
        return out.dump();
      },
      ready_timeout() + 3 * item.estimate_s);
  const json j = parse_payload(c);
  if (!j.is_array()) {
    report_.errors.push_back("solo: " + child_failure(c));
    return;
  }
  const int sms = std::max(1, report_.device.sm_count);
  for (const json& p : j) {
    SoloRow r;
    r.blocks = p[0];
    r.sm_share = static_cast<double>(r.blocks) / sms;
    r.kernel_us_nominal = p[1];
    r.kernel_us_measured = p[2];
    r.launch_overhead_us = launch_overhead_us(p[3].get<double>(), r.kernel_us_measured);
    solo_.push_back(r);
  }
}

bool ProbeRunner::run_alone(const PlanItem& item) {
  if (!item.alone_first.empty()) {
    const ChildResult c = run_child(
        child_env(item.mode, item.active_thread_pct),
        [&] {
          backend_.prepare(0);
          json out = json::array();
          for (const MemberSpec& m : item.alone_first) {
            const double start = monotonic_s() + 0.001;
            const double begin = start + options_.warmup_s;
            const LoopWindow w{start, begin, begin + options_.window_s, begin + options_.window_s};
            out.push_back(count_json(backend_.run_loop(spec_of(m), w)));
          }
          return out.dump();
        },
        ready_timeout() + 3 * item.estimate_s);
    const json j = parse_payload(c);
    if (!j.is_array() || j.size() != item.alone_first.size()) {
      report_.errors.push_back(item.name + " (alone runs): " + child_failure(c));
      return false;
    }
    for (size_t i = 0; i < j.size(); ++i) {
      const LoopCount count = count_from(j[i]);
      if (!count.error.empty()) {
        report_.errors.push_back(item.name + " (alone run): " + count.error);
        return false;
      }
      const MemberSpec& m = item.alone_first[i];
      alone_rate_[{item.mode, item.active_thread_pct, m.blocks, m.kernel_us, m.duty}] =
          kernels_per_s(count.kernels_in_window, options_.window_s);
    }
  }
  for (const MemberSpec& m : item.members) {
    if (alone_rate_.count({item.mode, item.active_thread_pct, m.blocks, m.kernel_us, m.duty}) ==
        0) {
      report_.errors.push_back(item.name + ": a member's alone run is missing");
      return false;
    }
  }
  return true;
}

void ProbeRunner::run_set(const PlanItem& item) {
  double tail = 0;
  for (const MemberSpec& m : item.members) tail = std::max(tail, tail_seconds(m));
  const std::vector<EnvVars> envs(item.members.size(),
                                  child_env(item.mode, item.active_thread_pct));
  const SetRun run = run_child_set(
      envs,
      [&](int member, StartGate& gate) {
        backend_.prepare(0);
        const double start = gate.ready_and_wait();
        if (start < 0) return std::string("{}");
        const double begin = start + options_.warmup_s;
        const double end = begin + options_.window_s;
        const LoopWindow w{start, begin, end, end + tail};
        return count_json(backend_.run_loop(spec_of(item.members[static_cast<size_t>(member)]), w))
            .dump();
      },
      ready_timeout(), options_.warmup_s + options_.window_s + tail + 10.0);

  json raw = {{"set", item.name},
              {"mode", item.mode},
              {"active_thread_pct", item.active_thread_pct},
              {"window_s", options_.window_s},
              {"members", json::array()}};
  std::vector<OverlapResultRow> rows;
  std::string failure;
  const int sms = std::max(1, report_.device.sm_count);
  for (size_t i = 0; i < item.members.size(); ++i) {
    const MemberSpec& m = item.members[i];
    const ChildResult& c = run.children[i];
    const json j = parse_payload(c);
    if (!j.is_object() || !j.contains("kernels_in_window")) {
      failure = "member " + std::to_string(i) + ": " + child_failure(c);
      continue;
    }
    const LoopCount count = count_from(j);
    if (!count.error.empty()) failure = "member " + std::to_string(i) + ": " + count.error;
    const double alone =
        alone_rate_[{item.mode, item.active_thread_pct, m.blocks, m.kernel_us, m.duty}];
    const double together = kernels_per_s(count.kernels_in_window, options_.window_s);
    raw["members"].push_back({{"blocks", m.blocks},
                              {"kernel_us", m.kernel_us},
                              {"duty", m.duty},
                              {"kernels_in_window", count.kernels_in_window},
                              {"kernels_per_s", together},
                              {"alone_kernels_per_s", alone}});
    OverlapResultRow r;
    r.mode = item.mode;
    r.set = item.name;
    r.member = static_cast<int>(i);
    r.device = report_.device_profile;
    r.sm_share = static_cast<double>(m.blocks) / sms;
    r.kernel_us = m.kernel_us;
    r.duty = m.duty;
    r.alone_duty = alone_duty(alone, m.kernel_us);
    r.active_thread_pct = item.active_thread_pct;
    r.speed = relative_speed(together, alone);
    if (r.speed < 0) failure = "member " + std::to_string(i) + ": no kernel completed alone";
    rows.push_back(r);
  }
  report_.sets.push_back(raw);
  if (!failure.empty()) {
    report_.errors.push_back(item.name + ": " + failure);
    return;
  }
  rows_.insert(rows_.end(), rows.begin(), rows.end());
}

std::string ProbeRunner::victim_counts(const MemberSpec& victim, double start_s, double event_s,
                                       double settle_s, double end_s) {
  const LoopCount before = backend_.run_loop(spec_of(victim), {start_s, start_s, event_s, event_s});
  const LoopCount after =
      backend_.run_loop(spec_of(victim), {event_s, event_s + settle_s, end_s, end_s});
  return json{{"before", count_json(before)}, {"after", count_json(after)}}.dump();
}

void ProbeRunner::write_outputs() {
  report_.finished_utc = utc_now();
  report_.elapsed_s = monotonic_s() - t0_;
  const fs::path dir(options_.out_dir);
  {
    std::ofstream out(dir / "overlap.csv");
    write_overlap_csv(out, rows_);
  }
  {
    std::ofstream out(dir / "solo.csv");
    write_solo_csv(out, solo_);
  }
  std::ofstream out(dir / "probe.json");
  out << sidecar_json(report_, options_).dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + (dir / "probe.json").string());
}

}  // namespace gpumux::calibration
