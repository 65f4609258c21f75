// Runs a whole probe: queries the device, plans within the budget, measures every planned
// item in forked processes through a GpuBackend, and writes overlap.csv, solo.csv and
// probe.json into the output folder. Owns the MPS daemon it starts and always quits it.
#pragma once

#include <map>
#include <ostream>
#include <tuple>
#include <vector>

#include "calibrate/probe/gpu_backend.h"
#include "calibrate/probe/measurement_plan.h"
#include "calibrate/probe/mps_daemon.h"
#include "calibrate/probe/probe_options.h"
#include "calibrate/probe/result_csv.h"
#include "calibrate/probe/sidecar.h"

namespace gpumux::calibration {

class ProbeRunner {
 public:
  // `log` receives progress lines. `times` is the duration model the plan uses.
  ProbeRunner(ProbeOptions options, GpuBackend& backend, std::ostream& log, PlanTimes times = {},
              std::string mps_control = "nvidia-cuda-mps-control");

  // Exit code: 0 done (items may have been skipped, see probe.json), 1 no usable device,
  // 130 interrupted (outputs so far are written). Throws InputError for an unusable --out.
  int run();

  const std::vector<OverlapResultRow>& overlap_rows() const { return rows_; }
  const std::vector<SoloRow>& solo_rows() const { return solo_; }
  const ProbeReport& report() const { return report_; }

 private:
  using AloneKey = std::tuple<std::string, int, int, double, double>;

  EnvVars child_env(const std::string& mode, int active_thread_pct) const;
  void run_item(const PlanItem& item);
  void run_solo(const PlanItem& item);
  bool run_alone(const PlanItem& item);
  void run_set(const PlanItem& item);
  void run_memory_test(const PlanItem& item);
  void run_fault_test(const PlanItem& item);
  // Containment tests' member 0: loops `victim`'s kernels from start_s until the neighbour's
  // event at event_s, then (after settle_s) until end_s; the two counts as a JSON payload.
  std::string victim_counts(const MemberSpec& victim, double start_s, double event_s,
                            double settle_s, double end_s);
  void stop_mps();
  double ready_timeout() const;  // seconds a child may take to become ready
  void write_outputs();

  ProbeOptions options_;
  GpuBackend& backend_;
  std::ostream& log_;
  PlanTimes times_;
  MpsDaemon mps_;
  std::string mps_error_;       // why MPS could not run; empty while it may
  std::string visible_device_;  // CUDA_VISIBLE_DEVICES for every non-MPS child
  std::string no_mps_dir_;      // empty pipe folder for non-MPS children
  double t0_ = 0;
  std::map<AloneKey, double> alone_rate_;  // kernels/s alone, per mode, cap and member
  std::vector<OverlapResultRow> rows_;
  std::vector<SoloRow> solo_;
  ProbeReport report_;
};

}  // namespace gpumux::calibration
