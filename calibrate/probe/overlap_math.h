// The arithmetic between raw counts and the numbers overlap.csv reports. Units: kernel
// lengths and gaps in microseconds, windows in seconds, rates in kernels per second.
#pragma once

#include <cstdint>

namespace gpumux::calibration {

// Blocks (= SMs, one block per SM) a kernel of `sm_share` occupies: the nearest integer,
// at least 1 and at most `sm_count`. Precondition: sm_count >= 1, sm_share in (0, 1].
int blocks_for_share(double sm_share, int sm_count);

// CPU gap after each kernel so that kernel_us / (kernel_us + gap) = duty. duty in (0, 1].
double gap_us(double kernel_us, double duty);

// Kernels per second over a counted window; 0 for an empty window.
double kernels_per_s(int64_t kernels, double window_s);

// Speed of a process in a set: its rate together / its rate alone (same mode and cap).
// Returns a negative value when the alone rate is not positive (no valid measurement).
double relative_speed(double rate_together, double rate_alone);

// Measured busy fraction alone: rate alone x nominal kernel length. Below the nominal duty
// by the launch + synchronise time per kernel.
double alone_duty(double rate_alone, double kernel_us);

// Launch + synchronise overhead per kernel: wall time of one round minus the kernel itself.
double launch_overhead_us(double period_us, double kernel_us_measured);

}  // namespace gpumux::calibration
