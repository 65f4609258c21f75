// Fixed-length kernels on one GPU: how long each job's cycle gets when other jobs' kernels
// interpose between its own (the "interposition" form shared by the time-slicing and MPS
// rate models for fixed kernel and gap lengths).
//
// Why: fixed lengths lock into patterns that averages over random phases miss (two duty-0.5
// processes with 2 ms kernels interleave perfectly: each gap covers the other's kernel; the H200
// measured 0.94 each under time-slicing, 0.998 under MPS). A job j alone repeats a cycle
// a_j = its kernel + its gap g_j, its kernel cut into q_j turns (kernels longer than a time
// slice). Another job m whose turns block j (time-slicing: every other context; MPS: a kernel
// that cannot run beside j's, their SM demands summing above the GPU) holds the GPU for T_m per
// turn (its hold, plus under time-slicing the switch into it). Turns are served in arrival order
// and one turn of each waiting job comes between two turns of j (strict alternation). m becomes
// ready once per cycle c_m and then waits W_m = c_m - a_m on average, so it takes a turn in a
// given cycle of j with P_jm = min(1, (W_m + c_j) / c_m), and between two turns of one of j's
// kernels with P'_jm = min(1, (W_m + T_j) / c_m).
// With X = sum_m B_m T_m + s [any B_m] (B_m ~ Bernoulli, s the switch back into j):
//     c_j = a_j + (q_j - 1) E'[X] + E[max(0, X - g_j)],
// j's gap hiding what the others run after its kernel ended. The expectation is exact
// (enumeration) for up to kInterpositionExactJobs blockers, max(0, E[X] - g_j) beyond. Solved by
// damped Jacobi iteration from c = a (identical jobs stay identical); rate_j = a_j / c_j.
//
// Exact cases: n identical busy jobs with kernels within one turn (c = n (k + s)); jobs that fit
// in each other's gaps (c = a); a busy short job beside a busy long one (one kernel per long
// turn). Validated against the kernel-level and block-level reference simulators (RESULTS.md of
// models/timeslice and models/mps).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

namespace gpumux {

struct InterpositionJob {
  double alone_cycle_us = 0.0;  // a_j: kernel alone + gap
  double gap_us = 0.0;          // g_j
  double turn_us = 0.0;         // T_j: GPU time one turn of j blocks the jobs it conflicts with
  double turns = 1.0;           // q_j: turns per kernel, >= 1
};

inline constexpr std::size_t kInterpositionExactJobs = 10;

// E[max(0, X - gap)] over the 2^count on/off states of the blockers, X = switch_us + the summed
// turn[k] of those on, blocker k on with probability chance[k]: the exact expectation of the
// form above. States are numbered by bit k = blocker k and summed in that order, each state's
// probability a product over k = 0, 1, ... and its X a sum in the same order. The tables are
// built a bit at a time (state s | 2^k extends state s), so each state costs one product and
// one sum instead of `count` of each: the same operations in the same order, hence the same
// bits, as a direct product and sum per state. `p` and `x` hold 2^count entries (scratch).
inline double expected_excess(const double* chance, const double* turn, std::size_t count,
                              double switch_us, double gap_us, double* p, double* x) {
  // Skipping a non-negative term never raises a rounded sum, so no state's X exceeds the sum
  // of every turn: when that fits in the gap, every term is exactly zero.
  double most = switch_us;
  for (std::size_t k = 0; k < count; ++k) most += turn[k];
  if (!(most > gap_us)) return 0.0;
  p[0] = 1.0;
  x[0] = switch_us;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t half = std::size_t{1} << k;
    const double on = chance[k], off = 1.0 - chance[k];
    for (std::size_t s = 0; s < half; ++s) {
      p[s + half] = p[s] * on;
      x[s + half] = x[s] + turn[k];
      p[s] *= off;
    }
  }
  double lost = 0.0;
  for (std::size_t s = 1; s < (std::size_t{1} << count); ++s) {
    lost += p[s] * std::max(0.0, x[s] - gap_us);
  }
  return lost;
}

// Writes each job's cycle length into `cycles` (same order). `blocks(j, m)` is the share of a
// turn of m that blocks j, in [0, 1] (0: m never delays j; 1: all of T_m); `switch_us` is s
// above (0 under MPS). Preconditions: cycles.size() ==
// scratch.size() == jobs.size(); alone cycles > 0. Allocation-free. Returns the iterations.
template <class Blocks>
int interposition_cycles(std::span<const InterpositionJob> jobs, const Blocks& blocks,
                         double switch_us, std::span<double> cycles, std::span<double> scratch) {
  const std::size_t n = jobs.size();
  for (std::size_t j = 0; j < n; ++j) cycles[j] = jobs[j].alone_cycle_us;
  int iterations = 0;
  double chance[kInterpositionExactJobs], turn[kInterpositionExactJobs];
  double subset_p[std::size_t{1} << kInterpositionExactJobs];
  double subset_x[std::size_t{1} << kInterpositionExactJobs];
  for (; iterations < 500; ++iterations) {
    double change = 0.0;
    // Jacobi: every job's next cycle from the same previous cycles, written after the sweep.
    for (std::size_t j = 0; j < n; ++j) {
      const InterpositionJob& a = jobs[j];
      double mean_end = 0.0, mean_between = 0.0, any_between = 1.0;
      std::size_t count = 0;
      for (std::size_t m = 0; m < n; ++m) {
        if (m == j) continue;
        const double share = blocks(j, m);
        if (share <= 0.0) continue;
        const InterpositionJob& b = jobs[m];
        const double blocked = share * b.turn_us;
        // m becomes ready once per cycle and then waits c_m - a_m on average: it is waiting
        // already, or becomes ready within j's cycle (or j's turn), and then takes a turn.
        const double waits = std::max(0.0, cycles[m] - b.alone_cycle_us);
        const double after_end = std::min(1.0, (waits + cycles[j]) / cycles[m]);
        const double ready = std::min(1.0, (waits + a.turn_us) / cycles[m]);
        mean_end += after_end * blocked;
        mean_between += ready * blocked;
        any_between *= 1.0 - ready;
        if (count < kInterpositionExactJobs) {
          chance[count] = after_end;
          turn[count] = blocked;
        }
        ++count;
      }
      double lost_after_end = 0.0;
      if (count > kInterpositionExactJobs) {
        lost_after_end = std::max(0.0, mean_end + switch_us - a.gap_us);
      } else {
        lost_after_end = expected_excess(chance, turn, count, switch_us, a.gap_us, subset_p,
                                         subset_x);
      }
      const double between = mean_between + switch_us * (1.0 - any_between);
      const double cycle = a.alone_cycle_us + (a.turns - 1.0) * between + lost_after_end;
      const double next = 0.5 * (cycles[j] + cycle);
      change = std::max(change, std::abs(next - cycles[j]) / cycles[j]);
      scratch[j] = next;
    }
    for (std::size_t j = 0; j < n; ++j) cycles[j] = scratch[j];
    if (change < 1e-10) break;
  }
  return iterations + 1;
}

}  // namespace gpumux
