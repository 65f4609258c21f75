#include "models/mig/profile_sizing.h"

#include <algorithm>

#include "models/mig/instance_rate.h"
#include "models/mig/measured_speed.h"
#include "models/mig/layout.h"

namespace gpumux {

namespace {

// Rates are quotients of the same doubles; a relative tolerance keeps "exactly at the bound"
// inside it (max_slowdown = 1 must accept the best profile itself).
constexpr double kTolerance = 1e-12;

bool smaller(const MigProfile& a, const MigProfile& b) {
  if (a.memory != b.memory) return a.memory < b.memory;
  if (a.compute_slices != b.compute_slices) return a.compute_slices < b.compute_slices;
  if (a.memory_slices != b.memory_slices) return a.memory_slices < b.memory_slices;
  const bool ame = is_media_extension_profile(a.name), bme = is_media_extension_profile(b.name);
  if (ame != bme) return !ame;  // a plain profile before its "+me" twin
  return a.name < b.name;
}

}  // namespace

double best_instance_rate(const DeviceProfile& device, const JobSpec& job,
                          std::span<const MigProfile* const> offered, const MigSpeedParams& speed) {
  double best = 0.0;
  for (const MigProfile* p : offered) {
    if (job.memory <= p->memory) best = std::max(best, mig_job_rate(job, device, *p, speed));
  }
  return best;
}

double best_instance_rate(const DeviceProfile& device, const JobSpec& job,
                          const MigSpeedParams& speed) {
  double best = 0.0;
  for (const MigProfile& p : device.mig_profiles) {
    if (job.memory <= p.memory) best = std::max(best, mig_job_rate(job, device, p, speed));
  }
  return best;
}

bool within_slowdown(const DeviceProfile& device, const MigProfile& profile, const JobSpec& job,
                     double max_slowdown, double best, const MigSpeedParams& speed) {
  if (job.memory > profile.memory) return false;
  const double rate = mig_job_rate(job, device, profile, speed);
  return rate * max_slowdown >= best * (1.0 - kTolerance);
}

const MigProfile* sized_profile(const DeviceProfile& device, const JobSpec& job,
                                double max_slowdown, const MigSpeedParams& speed) {
  const MigProfile* out = nullptr;
  const double best = best_instance_rate(device, job, speed);
  for (const MigProfile& p : device.mig_profiles) {
    if (!within_slowdown(device, p, job, max_slowdown, best, speed)) continue;
    if (out == nullptr || smaller(p, *out)) out = &p;
  }
  return out;
}

}  // namespace gpumux
