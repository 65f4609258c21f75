// Fast ("fluid") rate model of time-slicing on one GPU: a pure function, no per-kernel events.
//
// Given the jobs sharing a GPU, it returns the rate at which each progresses relative to running
// alone, the useful busy fraction and the fraction lost to context switches. It approximates
// the kernel-level reference (kernel_reference.h, same physics, same parameters) and is
// validated against it on a grid (tests/timeslice, bench/timeslice, RESULTS.md).
//
// Derivation. Job i alternates bursts (mean k_i, interference included) and CPU gaps (mean
// g_i = k_i (1 - u_i) / u_i); sharing only adds a delay D_i per cycle, so
//     r_i = (k_i + g_i) / (k_i + g_i + D_i) = 1 / (1 + u_i D_i / k_i).
// A job is "present" at the GPU (running, being switched in or waiting) a fraction
// q_i = 1 - r_i (1 - u_i) of the time, and runs kernels b_i = r_i u_i of it. The GPU is a
// single server visited first come first served in holds of at most one slice T, as in a
// closed machine-repairman queue. With the mean-value (arrival theorem, Bard) approximation an
// arriving burst of job i sees every other job j independently, and waits
//     W_i = sum_j [ b_j R_j + w_j (s/2 + h_j) + (q_j - b_j - w_j)(s + h_j) ] + s (1 - N_i P_i)
// where h_j is j's mean hold (its burst cut into slices: E[min(burst, T)] per hold, T for a
// job that never idles), R_j = E[hold^2] / (2 h_j) the residual of the hold in progress, w_j the
// fraction of time the GPU spends switching into j, s the switch cost, N_i = prod_j (1 - q_j)
// the chance that nobody else is present, and P_i = exp(-g_i sum_j 1/g_j) the chance that
// nobody else used the GPU during i's gap (memoryless gaps), in which case i is still resident
// and resumes without a switch. A burst longer than a slice is preempted at each slice end at
// which someone waits: each of its (c_i - 1) extra holds costs sum_j q_j (s + h_j) + s (1 - N_i).
// For a job with u_i = 1 (never idle) the same holds per unit of work give
//     r_i = 1 / (1 + (sum_j q_j (s + h_j) + s (1 - N_i)) / T).
// The switch-in fraction follows from the switches per burst, w_j = s b_j / k_j *
// ((1 - N_j P_j) + (c_j - 1)(1 - N_j)). The equations are solved for r by damped fixed-point
// iteration from r = 1; if the solution still asks for more than the whole GPU
// (busy + switching > 1) all rates are scaled down to fit.
//
// Exact cases: one job (r = 1); n jobs at u = 1 with s = 0 (r = 1/n); two jobs at u = 1
// (r = T / (2 (T + s))). The measured error elsewhere is in models/timeslice/RESULTS.md.
#pragma once

#include <span>
#include <vector>

#include "models/timeslice/timeslice_params.h"

namespace gpumux {

struct TimeSliceRates {
  std::vector<double> rates;     // per job, in (0, 1], same order as the input
  double busy_fraction = 0.0;    // useful utilization: kernels running
  double switch_fraction = 0.0;  // lost to context switches; busy + switch <= 1
  int iterations = 0;            // solver iterations used
  double residual = 0.0;         // max |F(r) - r| left by the fixed-point solver
  bool round_robin = false;      // the saturated round-robin model answered (see above)
};

// Preconditions (else std::invalid_argument): each sm_util in (0, 1], mean_kernel_us > 0,
// time_slice_us > 0, switch_cost_us >= 0, interference >= 0. An empty list gives empty rates.
// Cost O(iterations * n^2) with typically a few dozen iterations; a handful of small vectors.
TimeSliceRates timeslice_rates(std::span<const TimeSliceJob> jobs, const TimeSliceParams& params);

}  // namespace gpumux
