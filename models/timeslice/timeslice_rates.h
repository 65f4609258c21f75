// Fast ("fluid") rate model of time-slicing on one GPU: a pure function, no per-kernel events.
//
// Given the jobs sharing a GPU, it returns the rate at which each progresses relative to running
// alone, the useful busy fraction and the fraction lost to context switches. It approximates
// the kernel-level reference (bench/validation/timeslice/lib/kernel_reference.h, same physics,
// same parameters) and is validated against it on a grid (tests/timeslice,
// bench/validation/timeslice/RESULTS.md).
//
// Derivation ("job rounds"). Job j alternates bursts (mean k_j, interference included) and
// CPU gaps (mean g_j = k_j (1 - u_j) / u_j). A context holds the GPU for one hold: its burst,
// cut into slices of T while others wait, so c_j holds of mean h_j per burst (exponential
// bursts: h = k (1 - e^{-T/k}), c = 1 / (1 - e^{-T/k}); fixed: c = ceil(k/T), h = k/c; a job
// with u = 1 never idles and holds T per turn). Contexts are served first come first served,
// which from j's point of view is a round robin: between two turns of j, every other context m
// takes at most one turn, with probability pi_m. m is ready at its slot if its burst goes on
// or its gap ended within the rest of the round; a two-state chain (after a turn / after a
// skip) gives the stationary
//     pi_m = e / (e + (1 - e') / c_m),   e = 1 - exp(-L_m / g_m),  e' = 1 - exp(-(L_m + s) / g_m),
// where L_m, the rest of j's round without m, is h_j plus the longer of j's own gap per turn
// (g_j / c_j) and the other contexts' turns sum_{l != j,m} pi_l (s + h_l) + s (one more
// switch, away from m, after m's own turn: e'). The pi_m are
// solved by Gauss-Seidel fixed-point iteration (monotone, from pi = 1: the map is increasing
// in every pi, so each sweep stays above the largest fixed point and converges to it). Then with
// W_j = sum_m pi_m (s + h_m) the round j waits between its turns, and a switch into j only when
// someone else ran, s_j = s (1 - prod_m (1 - pi_m)):
//     cycle_j = g_j + W_j (1 - (1 - exp(-g_j / R_j)) / 2) + c_j (s_j + h_j) + (c_j - 1) W_j,
//     r_j = min(1, (k_j_alone + g_j) / cycle_j),   R_j = W_j + s + h_j,
// the first wait being a whole round after a short gap and half of one after a long gap. A
// never-idle job gets r_j = T / (T + s_j + W_j) / slowdown_j. Each job's cycle is estimated on its
// own; if together they ask for more than the whole GPU (busy + switching > 1) all rates are scaled
// down to fit. An earlier mean-value (arrival theorem) fixed point failed badly where short-
// and long-kernel jobs mix (its arrivals see time averages, but a blocked job stops arriving).
//
// A job that never idles (u = 1, no launch gap) still hands the GPU over at each kernel end
// while others wait (strict alternation, measured on an H200): it holds one kernel (cut into
// slices of T) per turn, the g -> 0 limit of the cycle above. Gaps are at least the launch gap
// (TimeSliceParams::launch_gap_us).
//
// Fixed (deterministic) kernels and gaps lock into repeating patterns instead: the
// interposition form (models/interposition.h) serves BurstDistribution::kFixed.
//
// Exact cases: one job (r = 1); n jobs at u = 1 with s = 0 (r = 1/n); two jobs at u = 1 with
// kernels k <= T (r = k / (2 (k + s)), exponential or fixed). The measured error elsewhere is in
// bench/validation/timeslice/RESULTS.md.
#pragma once

#include <span>
#include <vector>

#include "models/interposition.h"
#include "models/timeslice/timeslice_params.h"

namespace gpumux {

struct TimeSliceRates {
  std::vector<double> rates;     // per job, in (0, 1], same order as the input
  double busy_fraction = 0.0;    // useful utilization: kernels running
  double switch_fraction = 0.0;  // lost to context switches; busy + switch <= 1
  int iterations = 0;            // most fixed-point iterations any job needed
};

// Preconditions (else std::invalid_argument): each sm_util in (0, 1], mean_kernel_us > 0,
// time_slice_us > 0, switch_cost_us >= 0, interference >= 0. An empty list gives empty rates.
// Cost O(n^2 * iterations), iterations typically a few dozen.
TimeSliceRates timeslice_rates(std::span<const TimeSliceJob> jobs, const TimeSliceParams& params);

// Scratch space for the allocation-free form below; it only grows, so once it has seen the
// largest job count a caller (e.g. a SharingModel's compute_rates, which must not allocate)
// can reuse it without allocating.
struct TimeSliceWorkspace {
  std::vector<double> slow, kernel, gap, util, hold, holds_per_burst, turn_chance, frequency, turn,
      minus_gap_rate, stays_gapped, not_later;
  std::vector<InterpositionJob> interposition;
  InterpositionWorkspace solver;  // for fixed kernels (the interposition form)
  std::vector<char> continuous;
  void resize(std::size_t n);  // to at least n jobs
};

struct TimeSliceLoad {
  double busy_fraction = 0.0;
  double switch_fraction = 0.0;
  int iterations = 0;
};

// Same model, writing each job's rate into `rates` (precondition: rates.size() == jobs.size()).
// Allocates only if `workspace` is smaller than jobs.size().
TimeSliceLoad timeslice_rates(std::span<const TimeSliceJob> jobs, const TimeSliceParams& params,
                              std::span<double> rates, TimeSliceWorkspace& workspace);

}  // namespace gpumux
