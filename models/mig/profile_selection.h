// Which MIG profile a job needs on a device.
//
// A job that names a profile (JobSpec::mig_profile, e.g. "3g.40gb") needs exactly that profile.
// Otherwise it needs the smallest profile whose usable memory holds its peak memory
// (JobSpec::memory): smallest by memory, then compute slices, then memory slices, and a plain
// profile before its "+me" twin. With `compute_aware`, the profile must also give the job the
// SMs it occupies, sm_share x device SMs, capped at the most SMs any memory-fitting profile has:
// a job that wants the whole GPU gets the largest instance rather than none (a GPU in MIG mode
// never exposes all its SMs, e.g. 98 of 108 on A100).
#pragma once

#include <string_view>

#include "sim/core/device.h"
#include "sim/core/job.h"

namespace gpumux {

enum class ProfileSelectionStatus {
  kRequested,          // the job's requested profile, which holds its memory
  kSmallestFit,        // chosen by memory (and SMs when compute-aware)
  kNoMig,              // the device does not support MIG
  kUnknownRequested,   // the requested profile is not in the device's table
  kRequestedTooSmall,  // the requested profile exists but its memory is below the job's peak
  kNoFit,              // no profile holds the job's peak memory
};

std::string_view profile_selection_status_name(ProfileSelectionStatus status);

struct ProfileSelection {
  ProfileSelectionStatus status = ProfileSelectionStatus::kNoFit;
  // The chosen profile (an element of device.mig_profiles) for kRequested and kSmallestFit, the
  // requested one for kRequestedTooSmall, else nullptr.
  const MigProfile* profile = nullptr;

  bool ok() const {
    return status == ProfileSelectionStatus::kRequested ||
           status == ProfileSelectionStatus::kSmallestFit;
  }
};

ProfileSelection select_profile(const DeviceProfile& device, const JobSpec& job,
                                bool compute_aware);

// The SMs a job must get from an instance under compute-aware selection: ceil(sm_share x
// device SMs), capped at the most SMs of any profile whose memory holds the job (0 when none).
int required_sms(const DeviceProfile& device, const JobSpec& job);

// Whether an instance of `profile` may host a job that did not request a profile: its memory
// holds the job's peak and, when compute-aware, it has required_sms(device, job).
bool instance_fits(const DeviceProfile& device, const MigProfile& profile, const JobSpec& job,
                   bool compute_aware);

}  // namespace gpumux
