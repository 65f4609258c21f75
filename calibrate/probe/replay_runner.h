// `gpumux-probe replay`: runs a small trace for real on one GPU. Each job becomes a forked
// process (forked before any CUDA call) that creates its context `lead_s` before its submit
// time, allocates its memory at its submit time, then loops the spin kernel for its work: as
// many kernels as its loop completes alone in runtime_s, measured first, alone, in the same
// mode. Outcomes and instants go to replay.csv (calibrate/replay/replay_rows.h) and the rest
// to replay.json. Owns the MPS daemon it starts and always quits it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "calibrate/probe/gpu_backend.h"
#include "calibrate/probe/mps_daemon.h"
#include "calibrate/probe/replay_options.h"
#include "calibrate/replay/replay_rows.h"

namespace gpumux::calibration {

// One trace job as the replay runs it.
struct ReplayJob {
  std::string id;
  double submit_s = 0;
  double runtime_s = 0;
  double sm_share = 1;
  double duty = 1;  // the trace's sm_util
  double kernel_us = 1000;
  uint64_t memory_bytes = 0;
  double fault_after_s = -1;  // -1: no injected fault
};

// Reads the trace (native CSV or, for a path ending in .jsonl, JSON Lines) and attaches the
// faults. Throws InputError naming the trace and job for what a replay cannot run (more than
// one GPU, a service, more than 48 jobs: MPS serves at most 48 clients) and naming --fault for
// a job the trace does not have.
std::vector<ReplayJob> load_replay_jobs(const ReplayOptions& options);

// The loop a job runs on a GPU of `sm_count` SMs: round(sm_share x SMs) blocks (at least 1)
// and the CPU gap its duty cycle implies.
LoopSpec replay_loop(const ReplayJob& job, int sm_count);

class ReplayRunner {
 public:
  ReplayRunner(ReplayOptions options, GpuBackend& backend, std::ostream& log,
               std::string mps_control = "nvidia-cuda-mps-control", int assume_sms = 132);

  // Exit code: 0 done (jobs may have failed: that is what was measured), 1 no usable device
  // or MPS unavailable, 130 interrupted (what was measured is written). Throws InputError for
  // a bad trace or options and for an unusable --out, before any GPU is touched.
  int run();

  const std::vector<ReplayRow>& rows() const { return rows_; }

 private:
  EnvVars child_env() const;
  // Kernels/s of each distinct loop alone; false (with errors_ filled) if one failed.
  bool measure_alone(const std::vector<ReplayJob>& jobs, int sm_count,
                     std::vector<double>& rate_per_job);
  void replay(const std::vector<ReplayJob>& jobs, int sm_count,
              const std::vector<double>& rate_per_job, const std::string& device);
  void write_outputs(bool complete);

  ReplayOptions options_;
  GpuBackend& backend_;
  std::ostream& log_;
  MpsDaemon mps_;
  int assume_sms_;
  std::string visible_device_;
  std::string no_mps_dir_;
  double t0_ = 0;
  std::string started_utc_;
  DeviceInfo device_;
  std::string device_profile_;
  std::string mps_status_ = "not requested";
  std::vector<ReplayRow> rows_;
  nlohmann::json loops_ = nlohmann::json::array();
  std::vector<std::string> errors_;
  std::vector<std::string> notes_;
};

}  // namespace gpumux::calibration
