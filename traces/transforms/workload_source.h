// Workloads (docs/workload-catalogue.md): resolves the workload each job names against the
// scenario's catalogue (trace.catalogue), draws one for a job that names none from
// trace.workload_mix, and fills the job's fields the trace lacked from the workload's measured
// facts. Applied right after the filter: every later transform (resampling, inflation, ...) sees
// jobs that carry their facts.
//
// Precedence of a job's sm_util, mem_bw_util and memory: the trace's value, else the
// catalogue's (measured on the first device type of the cluster, in cluster order, that the
// workload has facts for), else the default (trace.defaults or built-in). A field is "lacking"
// when the reader marked it defaulted (JobSpec::defaulted_fields); the default was drawn
// already, so filling it changes no later draw. Generated jobs have no defaulted fields: the
// generator's values stand. The fill clears the field's mark (the value is no longer a default).
//
// The mix draws from its own stream of the seed, one draw per job that names no workload, so no
// other draw of the run moves. A job naming a workload the catalogue lacks is bad input.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/base/rng.h"
#include "sim/core/device.h"
#include "sim/core/job_source.h"
#include "traces/fields/job_fields.h"
#include "traces/fields/workload_catalogue.h"

namespace gpumux {

struct WorkloadWeight {
  std::string workload;
  double weight = 0.0;  // > 0
};

// The scenario's trace.catalogue and trace.workload_mix.
struct WorkloadConfig {
  std::shared_ptr<const WorkloadCatalogue> catalogue;  // null: no catalogue (names unused)
  std::string catalogue_file;                          // as the scenario gives it
  std::vector<WorkloadWeight> mix;                     // empty: no mix
  bool active() const { return catalogue != nullptr; }
};

// What the source did to the jobs it passed on.
struct WorkloadCounts {
  std::uint64_t named = 0;                             // jobs whose trace row named a workload
  std::uint64_t drawn = 0;                             // jobs given one by trace.workload_mix
  std::uint64_t without = 0;                           // jobs with none
  std::array<std::uint64_t, kJobFieldCount> filled{};  // per field, values from the catalogue
  // Jobs whose workload has measured MIG speeds on a MIG-capable device type of the cluster
  // (their speed in a measured profile is the measurement; in any other profile the model's),
  // and the jobs for which every MIG rate is the model's.
  std::uint64_t mig_measured = 0;
  std::uint64_t mig_model = 0;
};

class WorkloadSource : public JobSource {
 public:
  // `cluster_devices`: the device types of the cluster, in cluster order. `trace_name` names the
  // trace in errors. Precondition: config.active().
  WorkloadSource(JobSource& inner, const WorkloadConfig& config,
                 std::span<const DeviceProfile> cluster_devices, std::uint64_t seed,
                 std::string trace_name);
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }
  const WorkloadCounts& counts() const { return counts_; }

 private:
  JobSource& inner_;
  const WorkloadConfig& config_;
  std::vector<std::string> devices_;  // cluster device names, in cluster order
  std::vector<std::uint8_t> mig_;     // per device: supports MIG
  std::vector<std::shared_ptr<const WorkloadFacts>> mix_facts_;  // per mix entry
  std::vector<double> cumulative_;  // mix weights, cumulative, normalised to end at 1
  Rng rng_;
  std::string trace_name_;
  WorkloadCounts counts_;
};

}  // namespace gpumux
