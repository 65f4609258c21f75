#include "models/mig/profile_selection.h"

#include <algorithm>
#include <cmath>

#include "models/mig/layout.h"

namespace gpumux {

namespace {

// "Smaller" in the selection order of the header.
bool smaller(const MigProfile& a, const MigProfile& b) {
  if (a.memory != b.memory) return a.memory < b.memory;
  if (a.compute_slices != b.compute_slices) return a.compute_slices < b.compute_slices;
  if (a.memory_slices != b.memory_slices) return a.memory_slices < b.memory_slices;
  const bool ame = is_media_extension_profile(a.name), bme = is_media_extension_profile(b.name);
  if (ame != bme) return !ame;
  return a.name < b.name;
}

}  // namespace

std::string_view profile_selection_status_name(ProfileSelectionStatus status) {
  switch (status) {
    case ProfileSelectionStatus::kRequested:
      return "requested";
    case ProfileSelectionStatus::kSmallestFit:
      return "smallest-fit";
    case ProfileSelectionStatus::kNoMig:
      return "no-mig";
    case ProfileSelectionStatus::kUnknownRequested:
      return "unknown-requested-profile";
    case ProfileSelectionStatus::kRequestedTooSmall:
      return "requested-profile-too-small";
    case ProfileSelectionStatus::kNoFit:
      return "no-profile-fits";
  }
  return "?";
}

int required_sms(const DeviceProfile& device, const JobSpec& job) {
  int most = 0;
  for (const MigProfile& p : device.mig_profiles) {
    if (job.memory <= p.memory) most = std::max(most, p.sms);
  }
  const double want = std::ceil(job.sm_share * static_cast<double>(device.sms) - 1e-9);
  return std::min(most, static_cast<int>(std::max(0.0, want)));
}

bool instance_fits(const DeviceProfile& device, const MigProfile& profile, const JobSpec& job,
                   bool compute_aware) {
  if (job.memory > profile.memory) return false;
  return !compute_aware || profile.sms >= required_sms(device, job);
}

ProfileSelection select_profile(const DeviceProfile& device, const JobSpec& job,
                                bool compute_aware) {
  ProfileSelection out;
  if (!device.supports_mig()) {
    out.status = ProfileSelectionStatus::kNoMig;
    return out;
  }
  if (!job.mig_profile.empty()) {
    out.profile = find_mig_profile(device, job.mig_profile);
    if (out.profile == nullptr) {
      out.status = ProfileSelectionStatus::kUnknownRequested;
    } else {
      out.status = job.memory <= out.profile->memory ? ProfileSelectionStatus::kRequested
                                                     : ProfileSelectionStatus::kRequestedTooSmall;
    }
    return out;
  }
  for (const MigProfile& p : device.mig_profiles) {
    if (!instance_fits(device, p, job, compute_aware)) continue;
    if (out.profile == nullptr || smaller(p, *out.profile)) out.profile = &p;
  }
  out.status = out.profile != nullptr ? ProfileSelectionStatus::kSmallestFit
                                      : ProfileSelectionStatus::kNoFit;
  return out;
}

}  // namespace gpumux
