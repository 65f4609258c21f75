#include "calibrate/probe/sidecar.h"

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

namespace gpumux::calibration {

std::string compute_mode_name(int mode) {
  switch (mode) {
    case 0:
      return "default";
    case 1:
      return "exclusive_thread";
    case 2:
      return "prohibited";
    case 3:
      return "exclusive_process";
    default:
      return "unknown";
  }
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json device_json(const DeviceInfo& d, const std::string& profile) {
  return {{"cuda_name", d.cuda_name},
          {"profile", profile},
          {"pci_bus_id", d.pci_bus_id},
          {"total_memory_bytes", d.total_memory_bytes},
          {"free_memory_bytes_at_start", d.free_memory_bytes},
          {"sm_count", d.sm_count},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"compute_mode", compute_mode_name(d.compute_mode)},
          {"max_threads_per_sm", d.max_threads_per_sm},
          {"shared_memory_per_sm_bytes", d.shared_memory_per_sm},
          {"shared_memory_per_block_optin_bytes", d.shared_memory_per_block_optin},
          {"sm_clock_khz_attribute", d.sm_clock_khz},
          {"memory_clock_khz_attribute", d.memory_clock_khz},
          {"nvml_sm_clock_mhz", d.nvml_sm_clock_mhz},
          {"nvml_max_sm_clock_mhz", d.nvml_max_sm_clock_mhz},
          {"driver_version", d.driver_version},
          {"cuda_driver_api_version", d.driver_api_version},
          {"cuda_runtime_version", d.runtime_version}};
}

nlohmann::json sidecar_json(const ProbeReport& r, const ProbeOptions& o) {
  using nlohmann::json;
  const json device = r.device_known ? device_json(r.device, r.device_profile) : json::object();
  json skipped = json::array();
  for (const SkippedItem& s : r.skipped) {
    skipped.push_back({{"item", s.name}, {"reason", s.reason}, {"estimate_s", s.estimate_s}});
  }
  json planned = json::array();
  for (const SkippedItem& p : r.planned) {
    planned.push_back({{"item", p.name}, {"estimate_s", p.estimate_s}});
  }
  return {{"tool", "gpumux-probe"},
          {"version", GPUMUX_VERSION},
          {"command_line", o.command_line},
          {"budget_s", o.budget_s},
          {"plan_estimate_s", r.plan_estimate_s},
          {"started_utc", r.started_utc},
          {"finished_utc", r.finished_utc},
          {"elapsed_s", r.elapsed_s},
          {"interrupted", r.interrupted},
          {"complete", r.complete},
          {"device", device},
          {"settings",
           {{"device_index", o.device},
            {"kernel_us", o.kernel_us},
            {"sm_share", o.sm_share},
            {"duty", o.duty},
            {"active_thread_pct", o.active_thread_pct},
            {"modes", o.modes},
            {"warmup_s", o.warmup_s},
            {"window_s", o.window_s},
            {"containment", o.containment},
            {"seed", o.seed}}},
          {"mps", r.mps_status},
          {"planned", planned},
          {"skipped", skipped},
          {"errors", r.errors},
          {"notes", r.notes},
          {"sets", r.sets},
          {"containment", r.containment}};
}

}  // namespace gpumux::calibration
