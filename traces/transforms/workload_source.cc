#include "traces/transforms/workload_source.h"

#include <algorithm>

#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"

namespace gpumux {

WorkloadSource::WorkloadSource(JobSource& inner, const WorkloadConfig& config,
                               std::span<const DeviceProfile> cluster_devices, std::uint64_t seed,
                               std::string trace_name)
    : inner_(inner), config_(config), rng_(seed), trace_name_(std::move(trace_name)) {
  for (const DeviceProfile& d : cluster_devices) {
    devices_.push_back(d.name);
    mig_.push_back(d.supports_mig() ? 1 : 0);
  }
  double total = 0.0;
  for (const WorkloadWeight& w : config_.mix) total += w.weight;
  double sum = 0.0;
  for (const WorkloadWeight& w : config_.mix) {
    // The scenario checked every name against the catalogue.
    mix_facts_.push_back(config_.catalogue->find(w.workload));
    sum += w.weight;
    cumulative_.push_back(sum / total);
  }
  if (!cumulative_.empty()) cumulative_.back() = 1.0;
}

bool WorkloadSource::next(JobSpec& job) {
  // Cleared first: a reader without a workload field leaves it as it finds it, and the caller's
  // job may still hold the previous job's drawn workload.
  job.workload.clear();
  job.workload_facts.reset();
  if (!inner_.next(job)) return false;
  if (!job.workload.empty()) {
    job.workload_facts = config_.catalogue->find(job.workload);
    if (!job.workload_facts) {
      const auto near = closest_names(job.workload, config_.catalogue->names(), 1);
      throw InputError(trace_name_, "workload",
                       "job '" + job.id + "' names workload '" + job.workload +
                           "', which the catalogue " + config_.catalogue_file + " does not hold" +
                           (near.empty() ? std::string() : " (did you mean '" + near[0] + "'?)"));
    }
    ++counts_.named;
  } else if (!cumulative_.empty()) {
    // 53 random bits, as a double in [0, 1): the same on every platform.
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    const auto at = static_cast<std::size_t>(
        std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin());
    const std::size_t k = std::min(at, cumulative_.size() - 1);
    job.workload = config_.mix[k].workload;
    job.workload_facts = mix_facts_[k];
    ++counts_.drawn;
  } else {
    ++counts_.without;
    ++counts_.mig_model;
    return true;
  }
  const WorkloadFacts& w = *job.workload_facts;
  const WorkloadDeviceFacts* facts = nullptr;
  bool measured = false;
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const WorkloadDeviceFacts* f = w.on(devices_[i]);
    if (!f) continue;
    if (!facts) facts = f;
    if (mig_[i] && !f->mig_speeds.empty()) measured = true;
  }
  ++(measured ? counts_.mig_measured : counts_.mig_model);
  if (!facts) return true;
  auto fill = [&](JobField field, auto&& assign) {
    const auto bit = 1u << static_cast<int>(field);
    if (!(job.defaulted_fields & bit)) return;  // the trace's value stands
    if (!assign()) return;                      // the catalogue lacks it: the default stands
    job.defaulted_fields &= ~bit;
    ++counts_.filled[static_cast<int>(field)];
  };
  fill(JobField::kSmUtil, [&] { return facts->sm_util && (job.sm_util = *facts->sm_util, true); });
  fill(JobField::kMemBwUtil,
       [&] { return facts->mem_bw_util && (job.mem_bw_util = *facts->mem_bw_util, true); });
  fill(JobField::kMemory, [&] { return facts->memory && (job.memory = *facts->memory, true); });
  return true;
}

}  // namespace gpumux
