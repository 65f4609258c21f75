// probe.json: everything about a probe run that the CSVs cannot hold (device, versions,
// command line, budget, skipped items, containment results, raw counts, times).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/probe/gpu_backend.h"
#include "calibrate/probe/measurement_plan.h"
#include "calibrate/probe/probe_options.h"

namespace gpumux::calibration {

struct ProbeReport {
  DeviceInfo device;
  std::string device_profile;  // device_naming.h
  bool device_known = false;   // the device query succeeded
  std::string started_utc;     // ISO 8601
  std::string finished_utc;
  double elapsed_s = 0;
  double plan_estimate_s = 0;
  std::vector<SkippedItem> skipped;
  std::vector<std::string> errors;  // failed items and why
  std::vector<std::string> notes;   // conditions worth knowing when reading the numbers
  std::string mps_status;           // "not requested", "ok", or why MPS could not run
  nlohmann::json sets = nlohmann::json::array();         // raw counts per set
  nlohmann::json containment = nlohmann::json::array();  // one object per test
  bool interrupted = false;
  bool complete = false;             // false in the copies written while the run goes on
  std::vector<SkippedItem> planned;  // kept items in execution order (reason empty)
};

// Names of cudaComputeMode values ("default", "exclusive_process", ...).
std::string compute_mode_name(int mode);

// The device as probe.json (and replay.json) records it; `profile` from device_naming.h.
nlohmann::json device_json(const DeviceInfo& device, const std::string& profile);

nlohmann::json sidecar_json(const ProbeReport& report, const ProbeOptions& options);

// UTC now as "2026-11-30T12:34:56Z".
std::string utc_now();

}  // namespace gpumux::calibration
