// The scenario's `services` section (docs/services.md "Inference services") and the job-source
// decorator that turns inference jobs into services.
//
//   "services": {
//     "mode": "request",                 // a service engine (sim/services/registry.h):
//                                        // request (every request) | analytic (M/D/1)
//     "default": {fields},               // every inference job becomes a service with these
//     "by_id": {"job-id": {fields}, ...} // per job; wins over the trace's service columns
//   }
// fields (all optional): at most one arrival process, `request_rate_per_s` (Poisson),
// `rate_series` {"points": [[t_s, rate_per_s], ...], "repeat_s": s} or `request_times` (a
// text file: one time in seconds from the service's start per line, sorted; blank and '#'
// lines skipped); `service_ms`, `slo_ms`, `max_batch`, `batch_cost`, `timeout_ms`,
// `max_queue`; `llm` (an LLM endpoint, scenarios/llm_endpoint_config.h: its load replaces the
// arrival fields, and service_ms, max_batch and batch_cost do not apply). Precedence per field: by_id, then the trace row's columns, then default, then
// the built-in defaults of sim/core/service.h. A job is a service when its row has service columns,
// when by_id names it, or when `default` is given and it is of kind inference. The engine's
// own keys (e.g. the request engine's `time_slicing` and `mps`) sit beside `mode`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "scenarios/input_file.h"
#include "sim/core/job_source.h"
#include "sim/base/json_fields.h"
#include "sim/core/device.h"
#include "sim/core/service.h"
#include "sim/services/registry.h"
#include "sim/services/service_engine.h"

namespace gpumux {

// One fields object: a partial spec (NaN / max_batch 0 / max_queue -1: not given).
struct ServiceFields {
  std::shared_ptr<ServiceSpec> spec;
  bool arrival_given = false;
  std::string where;  // file#/pointer, for errors found when jobs arrive
};

struct ServicesConfig {
  bool given = false;  // the scenario has a services section
  // The engine `mode` names, built from its parameters (the first table entry by default).
  std::shared_ptr<const ServiceEngine> engine = default_service_engine();
  std::shared_ptr<const ServiceFields> defaults;  // null: none
  std::map<std::string, ServiceFields, std::less<>> by_id;
  nlohmann::json echo;
};

// Reads the `services` object; `base_dir` resolves request_times and other files, each recorded
// in `files`; `devices` (the cluster's device types) are what an `llm` endpoint may run on.
// Throws InputError.
ServicesConfig parse_services(JsonObject& o, const std::string& base_dir,
                              const std::vector<DeviceProfile>& devices,
                              std::vector<InputFile>& files);

// Whether the services section declares an LLM endpoint (by_id or default).
bool has_llm_endpoint(const ServicesConfig& services);

// Completes the services of `inner`'s jobs (see the header comment), and clears `service` on
// every other job. Throws InputError naming the job (`trace_label` and its id) when a service
// lacks a service time or an arrival process, or by_id names a job that is not inference.
class ServiceAssigningSource : public JobSource {
 public:
  ServiceAssigningSource(JobSource& inner, const ServicesConfig& config, std::string trace_label);
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }
  // Per field, the services whose trace column replaced a value services.default gives (the
  // documented precedence: by_id, the row's columns, default), so that the run says so instead
  // of letting the default lose in silence. Empty when none did.
  const std::map<std::string, std::uint64_t>& defaults_overridden() const {
    return defaults_overridden_;
  }

 private:
  // Counts the fields of `row` (the trace's columns) that replace a services.default value.
  void count_overrides(const ServiceSpec& row, const ServiceFields* by_id);

  std::shared_ptr<const ServiceSpec> resolve(const JobSpec& job, const ServiceSpec* row,
                                             const ServiceFields* by_id) const;
  // An engine that simulates each request: refuses a service that expects more requests in its
  // lifetime than it simulates in bounded time and memory (InputError naming the job).
  void check_request_budget(const JobSpec& job) const;

  JobSource& inner_;
  const ServicesConfig& config_;
  std::string trace_label_;
  std::shared_ptr<const ServiceSpec> default_spec_;  // `default` completed, shared by many jobs
  std::map<std::string, std::uint64_t> defaults_overridden_;
};

}  // namespace gpumux
