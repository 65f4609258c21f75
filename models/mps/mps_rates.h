// Fast ("fluid") rate model of MPS on one GPU: a pure function, no per-kernel events.
//
// Given the clients sharing a GPU through MPS, it returns the rate at which each progresses
// relative to running alone on an uncapped GPU, the busy fraction (some kernel running) and the
// SM fraction (SM time granted / total). It approximates the concurrent-kernel reference
// (bench/validation/mps/lib/mps_reference.h, same physics, same parameters) and is validated
// against it on a grid (bench/validation/mps/lib/mps_validation.h, tests/mps,
// bench/validation/mps/RESULTS.md).
//
// Derivation (mean field over the other clients' on/off states). Client i alternates bursts of
// k_i work and CPU gaps of mean g_i = k_i (1 - u_i) / u_i. Its kernel demands
// d_i = min(sm_share_i, atf_i) SMs; at cap speed c_i = d_i / sm_share_i it runs alone. If the
// OTHER running kernels demand x SMs in total, proportional sharing grants i the share
// d_i f(x) with f(x) = 1 / max(1, d_i + x), the others x f(x), so i's speed is
//     s_i(x) = c_i f(x) / (1 + alpha x f(x)).
// A burst of i then lasts k_i / v_i, where v_i is s_i averaged over the others' states during
// it, and i runs a fraction p_i = (k_i / v_i) / (k_i / v_i + g_i) of the time (1 if u_i = 1).
// Treating the other clients as independent, each running with probability p_j, x is a sum of
// independent Bernoulli(p_j) d_j, and v_i = E[s_i(x)]: the burst sees the others' time
// average. (When the others' states persist through a whole burst the harmonic mean
// 1 / E[1 / s_i(x)] is the right limit instead; a blend weighted by the others' persistence
// relative to i's burst, and the pure harmonic form, were both measured WORSE on the
// development grid (mean error 0.0067 and 0.0147 against 0.0048, bench/validation/mps/RESULTS.md), so the model
// keeps the time average. Kernel length then cancels out: p_j = (1 / v_j) / (1 / v_j +
// (1 - u_j) / u_j); the reference agrees that MPS rates hardly depend on it, unlike
// time-slicing.) v and p form a monotone fixed point, iterated from v = c (alone). Then
//     rate_i = (k_i + g_i) / (k_i / v_i + g_i)   (= v_i if u_i = 1),
//     busy = 1 - prod_j (1 - p_j),   sm = E[min(1, sum_j d_j X_j)].
// The expectation over x is exact (enumeration of the others' on/off states, 2^(n-1) per client)
// for up to `max_exact_jobs` clients; beyond that x is taken as normal with the same mean and
// variance (33-point rule), so that a call costs O(n^2) per iteration instead of O(n 2^n).
//
// Exact cases: one client (rate = (k + g) / (k / c + g), 1 uncapped; busy = sm_util); clients
// that never idle (p = 1 for all: nothing to average); clients whose summed demand fits with
// alpha = 0 (rate 1: nobody slows anybody). What mean field misses: the on/off states of
// clients that slow each other are positively correlated (while both run, both are stretched
// and stay on longer), which independence ignores; bench/validation/mps/RESULTS.md gives the measured error.
//
// Block-level SM allocation (MpsParams::allocation = kBlocks, the `mps` sharing model's
// default) takes the interposition form instead (models/interposition.h): thread blocks hold
// their SMs until they end (no preemption), so kernels that cannot fit beside each other take
// turns in launch order (the part of a kernel's blocks that does not fit waits for a second
// wave), and fixed phases interleave (measured on an H200: docs/gpu-facts.md "Measured here"). It is
// validated against the block-level reference (bench/validation/mps/lib/mps_block_reference.h);
// the mean field above (kFluid) against the fluid one (mps_reference.h there).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "models/interposition.h"
#include "models/mps/mps_params.h"

namespace gpumux {

struct MpsRates {
  std::vector<double> rates;  // per job, in (0, 1], same order as the input
  double busy_fraction = 0.0;
  double sm_fraction = 0.0;
  int iterations = 0;
};

// Preconditions (else std::invalid_argument): each sm_util, sm_share, active_thread_fraction in
// (0, 1], mean_kernel_us > 0, interference >= 0. An empty list gives empty rates.
MpsRates mps_rates(std::span<const MpsJob> jobs, const MpsParams& params);

// Scratch space for the allocation-free form below. It only grows: once it has seen the
// largest job count it never allocates.
struct MpsWorkspace {
  std::vector<double> speed, running, demand, prob;
  InterpositionWorkspace solver;
  std::vector<MpsJob> gapped;  // clients with the launch gap applied
  std::vector<InterpositionJob> interposition;
  void resize(std::size_t jobs);
};

struct MpsLoad {
  double busy_fraction = 0.0;
  double sm_fraction = 0.0;
  int iterations = 0;
};

// Clients up to which the expectations are exact enumerations (2^(n-1) states per client).
inline constexpr std::size_t kMpsMaxExactJobs = 6;

// Same model, writing each job's rate into `rates` (precondition: rates.size() == jobs.size()).
// Allocates only if `workspace` is too small (see MpsWorkspace).
MpsLoad mps_rates(std::span<const MpsJob> jobs, const MpsParams& params, std::span<double> rates,
                  MpsWorkspace& workspace, std::size_t max_exact_jobs = kMpsMaxExactJobs);

}  // namespace gpumux
