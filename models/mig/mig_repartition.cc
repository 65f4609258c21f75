// MigModel's repartition planner (`layouts` + `repartition`, "Repartitioning" and "Migration" in
// mig_model.h): which GPU to re-split into which candidate layout when the queue's head fits
// nowhere, and the scoring of a candidate by the queued jobs it would start at once. Kept apart
// from the admission and rate code in mig_model.cc, which it calls but which never calls it.
#include <algorithm>

#include "models/mig/mig_model.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

int MigModel::jobs_served(const DeviceProfile& device, int layout, const JobSpec& head,
                          std::span<const JobSpec* const> behind) const {
  const Resolved& r = resolve(device, layout);
  const GpuView empty{device, {}, MemoryMiB(0), {}, layout};
  if (!r.layout.mig_enabled) return admits(empty, head) ? 1 : 0;  // a whole GPU: one job
  taken_.assign(r.layout.instances.size(), 0);
  int served = take_free_instance(device, r, head) ? 1 : 0;
  const std::size_t n = std::min(behind.size(), static_cast<std::size_t>(params_.lookahead));
  for (std::size_t k = 0; k < n; ++k) served += take_free_instance(device, r, *behind[k]) ? 1 : 0;
  return served;
}

bool MigModel::take_free_instance(const DeviceProfile& device, const Resolved& r,
                                  const JobSpec& job) const {
  if (job.gpus != 1) return false;
  for (int i : r.by_size) {
    const auto ui = static_cast<std::size_t>(i);
    if (taken_[ui] != 0 || !fits(device, instance_profile_of(device, r, i), job)) continue;
    taken_[ui] = 1;
    return true;
  }
  return false;
}

int MigModel::jobs_served_with(const DeviceProfile& device, int layout,
                               std::span<const JobSpec* const> residents, const JobSpec& head,
                               std::span<const JobSpec* const> behind) const {
  const Resolved& r = resolve(device, layout);
  if (!r.layout.mig_enabled) {  // a whole GPU: the head alone
    return residents.empty() && fits_whole_gpu(device, head) ? 1 : -1;
  }
  jobs_.assign(residents.begin(), residents.end());
  jobs_.push_back(&head);
  instance_of_.resize(jobs_.size());
  for (const JobSpec* j : jobs_) {
    if (j->gpus != 1) return -1;
  }
  if (!assign_resolved(device, r, jobs_, instance_of_)) return -1;
  taken_.assign(r.layout.instances.size(), 0);
  for (int i : instance_of_) taken_[static_cast<std::size_t>(i)] = 1;
  int served = static_cast<int>(jobs_.size());
  const std::size_t n = std::min(behind.size(), static_cast<std::size_t>(params_.lookahead));
  for (std::size_t k = 0; k < n; ++k) served += take_free_instance(device, r, *behind[k]) ? 1 : 0;
  return served;
}

bool MigModel::plan_reconfiguration(Time now, const Cluster& cluster, GpuViewBuilder& views,
                                    const JobSpec& blocked, std::span<const JobSpec* const> behind,
                                    Reconfiguration& out) const {
  if (params_.source != MigLayoutSource::kCandidates || blocked.gpus != 1) return false;
  // Per device type and layout (few of each, so the scan over GPUs stays cheap): whether an
  // empty GPU in it would take the head, and how many of the waiting jobs it would start.
  const auto& devices = cluster.devices();
  const std::size_t layouts = params_.candidates.size();
  empty_fit_.assign(devices.size() * layouts, 0);
  served_.assign(devices.size() * layouts, 0);
  for (std::size_t d = 0; d < devices.size(); ++d) {
    for (int l = 0; l < layout_count(devices[d]); ++l) {
      const GpuView empty{devices[d], {}, MemoryMiB(0), {}, l};
      const std::size_t at = d * layouts + static_cast<std::size_t>(l);
      empty_fit_[at] = admits(empty, blocked) ? 1 : 0;
      served_[at] = jobs_served(devices[d], l, blocked, behind);
    }
  }
  // The GPU that drains soonest (fewest residents), lowest index on ties; skip GPUs changed
  // within the hysteresis window, GPUs not taking jobs (draining, recovering), and GPUs whose
  // current layout would take the head once the right instance frees (draining them cannot be
  // quicker than waiting for that instance).
  bool found = false;
  std::size_t best_residents = 0;
  for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
    const GpuState& gpu = cluster.gpu(g);
    const DeviceProfile& device = cluster.device_of(g);
    if (!device.supports_mig() || !gpu.available || gpu.draining) continue;
    if (now - gpu.last_reconfigured < params_.hysteresis) continue;
    if (found && gpu.residents.size() >= best_residents) continue;
    const std::size_t row = static_cast<std::size_t>(gpu.device) * layouts;
    const std::size_t current = row + static_cast<std::size_t>(gpu.layout);
    // The layout that starts the most waiting jobs; the earlier candidate on ties.
    int target = -1;
    for (int l = 0; l < layout_count(device); ++l) {
      const std::size_t at = row + static_cast<std::size_t>(l);
      if (l == gpu.layout || empty_fit_[at] == 0) continue;
      if (target < 0 || served_[at] > served_[row + static_cast<std::size_t>(target)]) target = l;
    }
    if (params_.migration.enabled) {
      // Moving the residents is cheap: the new layout must hold them and the head together.
      const GpuView view = views.view(g);
      target = -1;
      int most = -1;
      for (int l = 0; l < layout_count(device); ++l) {
        if (l == gpu.layout) continue;
        const int served = jobs_served_with(device, l, view.residents, blocked, behind);
        if (served > most) target = l, most = served;
      }
      if (target < 0) continue;
    } else if (target < 0 ||
               (empty_fit_[current] != 0 &&
                served_[row + static_cast<std::size_t>(target)] <= served_[current])) {
      continue;
    }
    // Toggling MIG mode needs a GPU reset on Ampere (docs/gpu-facts.md "MIG").
    const bool toggles = params_.candidates[static_cast<std::size_t>(target)].empty() !=
                         params_.candidates[static_cast<std::size_t>(gpu.layout)].empty();
    const bool reset = toggles && device.architecture == "ampere";
    out = Reconfiguration{g, target, reset ? params_.reset_delay : params_.reconfiguration_delay,
                          params_.migration};
    best_residents = gpu.residents.size();
    found = true;
    if (best_residents == 0) break;
  }
  return found;
}

}  // namespace gpumux
