// Parameters shared by the time-slicing models (the kernel-level reference and the fast rate
// model), with their defaults and where each default comes from.
#pragma once

#include <string_view>

namespace gpumux {

// Open GPU kernel driver, kfifoChannelGroupGetDefaultTimeslice_GV100 (docs/gpu-facts.md
// "Time-slicing").
inline constexpr double kDefaultTimeSliceUs = 1024.0;
// `nvidia-smi compute-policy --set-timeslice` 1/2/3. The driver does not document the durations;
// 2/10/30 ms come from a secondary source only: UNVERIFIED, keep overridable.
inline constexpr double kShortTimeSliceUs = 2000.0;
inline constexpr double kMediumTimeSliceUs = 10000.0;
inline constexpr double kLongTimeSliceUs = 30000.0;
// No published measurement of the context-switch cost exists (docs/gpu-facts.md). 50 us is an
// ASSUMPTION of the right order for saving/restoring a context through DRAM; calibration or the
// caller must override it, and reports must say the value is a default.
inline constexpr double kDefaultSwitchCostUs = 50.0;

enum class TimeSlicePreset { kDefault, kShort, kMedium, kLong };

// Microseconds of a preset; kShort/kMedium/kLong are unverified (see above).
constexpr double time_slice_us(TimeSlicePreset preset) {
  switch (preset) {
    case TimeSlicePreset::kShort:
      return kShortTimeSliceUs;
    case TimeSlicePreset::kMedium:
      return kMediumTimeSliceUs;
    case TimeSlicePreset::kLong:
      return kLongTimeSliceUs;
    case TimeSlicePreset::kDefault:
      break;
  }
  return kDefaultTimeSliceUs;
}

// Shape of kernel bursts and CPU gaps around their means. Exponential is the default because
// real kernel mixes are highly variable; kFixed is the deterministic extreme.
enum class BurstDistribution { kFixed, kExponential };

// One job as the time-slicing models see it.
struct TimeSliceJob {
  // Duty cycle alone, in (0, 1]: the fraction of time its kernels keep the GPU busy when it runs
  // alone. Between kernels it spends CPU gaps of mean mean_kernel_us * (1 - sm_util) / sm_util
  // (at least the launch gap, see TimeSliceParams::launch_gap_us).
  double sm_util = 1.0;
  // Mean length of one kernel (work it submits between two CPU gaps), microseconds, > 0.
  double mean_kernel_us = 100.0;
};

struct TimeSliceParams {
  double time_slice_us = kDefaultTimeSliceUs;    // > 0
  double switch_cost_us = kDefaultSwitchCostUs;  // >= 0; nobody computes while switching
  // Slowdown of a job's kernels per unit of the co-runners' summed duty cycle (cache and TLB
  // pollution by foreign contexts): kernels take (1 + interference * sum_{j != i} sm_util_j)
  // times longer. 0 in pure time-slicing physics; the reference simulator has no such term
  // and must be compared with interference == 0. Fitted from co-location data, >= 0.
  double interference = 0.0;
  BurstDistribution distribution = BurstDistribution::kExponential;
  // Shortest CPU gap between two kernels of one process (launch + synchronise), microseconds,
  // >= 0: a job whose duty cycle leaves a shorter gap gets this one instead, so that even a
  // "never idle" job (sm_util 1) leaves the GPU between kernels. Rates stay relative to the job
  // alone with the same gap. 0 = kernels back to back.
  double launch_gap_us = 0.0;
};

// A job's CPU gap between kernels and its duty cycle alone once the launch gap is applied.
struct EffectiveCycle {
  double gap_us = 0.0;
  double sm_util = 1.0;
};
inline EffectiveCycle effective_cycle(double sm_util, double mean_kernel_us, double launch_gap_us) {
  double gap = mean_kernel_us * (1.0 - sm_util) / sm_util;
  if (gap < launch_gap_us) gap = launch_gap_us;
  return {gap, gap > 0.0 ? mean_kernel_us / (mean_kernel_us + gap) : 1.0};
}

}  // namespace gpumux
