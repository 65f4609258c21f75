// The compute limiter of fractional GPU sharing (Kubernetes GPU-share: a pod asks for
// `gpu_milli` of a GPU, a limiter in the process throttles its kernel launches to that share of
// the GPU's time, and the GPU time-slices between the throttled processes underneath).
//
// A job alone has a duty cycle u (the share of time its kernels keep the GPU busy, launch gap
// included). The limiter grants it a GPU-time share a:
// - strict (not work-conserving, the default of HAMi-core and Run:ai fractions): a = min(u, f),
//   f its compute share. Time a job leaves unused (its CPU gaps, or share nobody holds) is lent
//   to nobody.
// - work-conserving: the strict grants first, then the time nobody uses, 1 - sum a, is handed
//   to the jobs that want more (a < u) in proportion to their shares, each up to u, repeated
//   until nobody wants more or nothing is left (water filling; at most n rounds).
// The throttled job then behaves, for the time-slicing underneath, like a job of duty cycle a
// (its kernels unchanged, its gaps longer); see fractional_model.h for how rates follow.
#pragma once

#include <span>

namespace gpumux {

// Writes each job's granted GPU-time share into `granted`. Preconditions: all spans have the
// same size; duty[i] in (0, 1]; share[i] in (0, 1] with sum(share) <= 1 (+ rounding).
// Allocation-free.
void limiter_grants(std::span<const double> duty, std::span<const double> share,
                    bool work_conserving, std::span<double> granted);

}  // namespace gpumux
