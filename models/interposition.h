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
// j's gap hiding what the others run after its kernel ended. The expectation is exact (a pruned
// enumeration of the blockers' on/off states) for up to kInterpositionExactJobs blockers,
// max(0, E[X] - g_j) beyond. Solved by Jacobi iteration from c = a (identical jobs stay identical;
// see interposition_cycles); rate_j = a_j / c_j.
//
// Exact cases: n identical busy jobs with kernels within one turn (c = n (k + s)); jobs that fit
// in each other's gaps (c = a); a busy short job beside a busy long one (one kernel per long
// turn). Validated against the kernel-level and block-level reference simulators
// (bench/validation/timeslice/RESULTS.md, bench/validation/mps/RESULTS.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpumux {

struct InterpositionJob {
  double alone_cycle_us = 0.0;  // a_j: kernel alone + gap
  double gap_us = 0.0;          // g_j
  double turn_us = 0.0;         // T_j: GPU time one turn of j blocks the jobs it conflicts with
  double turns = 1.0;           // q_j: turns per kernel, >= 1
};

inline constexpr std::size_t kInterpositionExactJobs = 10;

// E[max(0, X - gap)], X = switch_us + the summed turn[k] of the blockers that are on, blocker k
// on with probability chance[k] independently: the exact expectation of the form above, without
// visiting all 2^count on/off states. The blockers are decided longest turn first; a partial
// choice whose X already exceeds the gap contributes its probability times (X - gap + the mean
// of the undecided rest), whatever they do, and one that cannot exceed the gap even with all the
// rest on contributes nothing, so only choices that straddle the gap are split further (a busy
// GPU, where most states exceed the gap, or an idle one, where few do, visit a handful). Exact
// up to rounding: the sum is taken in a different order than a plain enumeration, so results
// differ from one in their last bits (tests/models/interposition_test.cc checks it against the
// enumeration). Preconditions: count <= kInterpositionExactJobs, chance in [0, 1], turn >= 0.
// Allocation-free, recursion depth <= count.
namespace interposition_detail {

struct Blockers {
  const double* chance = nullptr;
  const double* turn = nullptr;       // longest first
  const double* rest_turn = nullptr;  // rest_turn[k]: sum of turn[k..], count + 1 entries
  double rest_mean[kInterpositionExactJobs + 1];  // sum of chance[k] turn[k] over k..
  double gap = 0.0;
};

// The expectation over blockers k.. of max(0, x + their X - gap), times `weight`.
inline double excess_from(const Blockers& b, std::size_t k, double x, double weight) {
  if (!(x + b.rest_turn[k] > b.gap)) return 0.0;
  if (x >= b.gap) return weight * (x - b.gap + b.rest_mean[k]);
  // Here x < gap < x + rest_turn[k], so some blocker remains (k < count).
  const double on = b.chance[k];
  double lost = 0.0;
  if (on > 0.0) lost += excess_from(b, k + 1, x + b.turn[k], weight * on);
  if (on < 1.0) lost += excess_from(b, k + 1, x, weight * (1.0 - on));
  return lost;
}

}  // namespace interposition_detail

// The same expectation for blockers already ordered longest turn first, with rest_turn[k] the
// sum of turn[k..] (count + 1 entries, the last 0): what interposition_cycles keeps per job,
// since turns do not change between its iterations.
inline double expected_excess_sorted(const double* chance, const double* turn,
                                     const double* rest_turn, std::size_t count,
                                     double switch_us, double gap_us) {
  if (!(switch_us + rest_turn[0] > gap_us)) return 0.0;
  interposition_detail::Blockers b;
  b.chance = chance;
  b.turn = turn;
  b.rest_turn = rest_turn;
  b.gap = gap_us;
  b.rest_mean[count] = 0.0;
  for (std::size_t k = count; k-- > 0;) b.rest_mean[k] = b.rest_mean[k + 1] + chance[k] * turn[k];
  return interposition_detail::excess_from(b, 0, switch_us, 1.0);
}

inline double expected_excess(const double* chance, const double* turn, std::size_t count,
                              double switch_us, double gap_us) {
  double sorted_chance[kInterpositionExactJobs], sorted_turn[kInterpositionExactJobs];
  double rest_turn[kInterpositionExactJobs + 1];
  // Longest turn first (insertion sort: count <= 10), so that the choices that decide whether
  // X exceeds the gap are taken first and the rest is settled early.
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t at = k;
    while (at > 0 && sorted_turn[at - 1] < turn[k]) {
      sorted_turn[at] = sorted_turn[at - 1];
      sorted_chance[at] = sorted_chance[at - 1];
      --at;
    }
    sorted_turn[at] = turn[k];
    sorted_chance[at] = chance[k];
  }
  rest_turn[count] = 0.0;
  for (std::size_t k = count; k-- > 0;) rest_turn[k] = rest_turn[k + 1] + sorted_turn[k];
  return expected_excess_sorted(sorted_chance, sorted_turn, rest_turn, count, switch_us, gap_us);
}

// Scratch space of interposition_cycles. It only grows: once it has seen the largest job count
// the solve never allocates.
struct InterpositionWorkspace {
  std::vector<double> next, last_step, waits, inverse_cycle;
  // Row j lists the jobs whose turns block j, longest blocked time first (ties: m ascending),
  // the GPU time each turn blocks and, for rows of up to kInterpositionExactJobs, its sums
  // from each position on (expected_excess_sorted's rest_turn).
  std::vector<std::uint32_t> blocker;
  std::vector<double> blocked, rest_blocked;
  std::vector<std::uint32_t> blocker_count;
  void resize(std::size_t jobs) {
    for (auto* v : {&next, &last_step, &waits, &inverse_cycle}) {
      if (v->size() < jobs) v->resize(jobs);
    }
    if (blocker_count.size() < jobs) blocker_count.resize(jobs);
    if (blocker.size() < jobs * jobs) blocker.resize(jobs * jobs);
    if (blocked.size() < jobs * jobs) blocked.resize(jobs * jobs);
    if (rest_blocked.size() < jobs * (kInterpositionExactJobs + 1)) {
      rest_blocked.resize(jobs * (kInterpositionExactJobs + 1));
    }
  }
};

// Writes each job's cycle length into `cycles` (same order). `blocks(j, m)` is the share of a
// turn of m that blocks j, in [0, 1] (0: m never delays j; 1: all of T_m), asked once per pair;
// `switch_us` is s above (0 under MPS). Preconditions: cycles.size() == jobs.size(); alone
// cycles > 0. Allocates only if `ws` has not yet seen this many jobs. Returns the iterations.
//
// The iteration is Jacobi (every job's next cycle from the same previous cycles, so identical
// jobs stay identical), stopped when no cycle moves by more than 1e-10 of itself. Whole steps are
// taken while every cycle keeps moving the same way as in the step before: the map then
// converges monotonically, where half steps would only slow it (a mode shrinking by l per
// whole step shrinks by (1 + l) / 2 per half step). Once some cycle turns back (the map
// overshoots), half steps from then on, which damp the oscillation. While whole steps shrink
// by a steady ratio r (two successive ratios within 10% of each other, r < 0.95), the rest of
// that geometric series, r / (1 - r) times the step, is added at once (Aitken's extrapolation),
// and the ratio is measured afresh after it. Both only change how fast the iteration gets to
// the fixed point (tests/models/interposition_test.cc checks it against half steps alone):
// measured on a 10,000-job MPS replay, 661,000 iterations became about 254,000 with whole
// steps and fewer still with the extrapolation.
template <class Blocks>
int interposition_cycles(std::span<const InterpositionJob> jobs, const Blocks& blocks,
                         double switch_us, std::span<double> cycles, InterpositionWorkspace& ws) {
  const std::size_t n = jobs.size();
  ws.resize(n);
  double* const next = ws.next.data();
  double* const last_step = ws.last_step.data();
  double* const waits = ws.waits.data();
  double* const inverse_cycle = ws.inverse_cycle.data();
  for (std::size_t j = 0; j < n; ++j) {
    cycles[j] = jobs[j].alone_cycle_us;
    std::uint32_t* blocker = ws.blocker.data() + j * n;
    double* blocked = ws.blocked.data() + j * n;
    std::size_t count = 0;
    for (std::size_t m = 0; m < n; ++m) {
      if (m == j) continue;
      const double share = blocks(j, m);
      if (share <= 0.0) continue;
      const double time = share * jobs[m].turn_us;
      std::size_t at = count++;
      for (; at > 0 && blocked[at - 1] < time; --at) {
        blocked[at] = blocked[at - 1];
        blocker[at] = blocker[at - 1];
      }
      blocked[at] = time;
      blocker[at] = static_cast<std::uint32_t>(m);
    }
    ws.blocker_count[j] = static_cast<std::uint32_t>(count);
    if (count <= kInterpositionExactJobs) {
      double* rest = ws.rest_blocked.data() + j * (kInterpositionExactJobs + 1);
      rest[count] = 0.0;
      for (std::size_t k = count; k-- > 0;) rest[k] = rest[k + 1] + blocked[k];
    }
  }
  double chance[kInterpositionExactJobs];
  double step_share = 1.0;     // 1: whole steps; 0.5 once the map has overshot
  bool has_last_step = false;  // last_step holds the previous (unextrapolated) step
  double last_change = 0.0, last_ratio = 0.0;
  int iterations = 0;
  for (; iterations < 500; ++iterations) {
    // m becomes ready once per cycle and then waits c_m - a_m on average.
    for (std::size_t m = 0; m < n; ++m) {
      waits[m] = std::max(0.0, cycles[m] - jobs[m].alone_cycle_us);
      inverse_cycle[m] = 1.0 / cycles[m];
    }
    double change = 0.0;
    bool turned_back = false;
    for (std::size_t j = 0; j < n; ++j) {
      const InterpositionJob& a = jobs[j];
      const std::uint32_t* blocker = ws.blocker.data() + j * n;
      const double* blocked = ws.blocked.data() + j * n;
      const std::size_t count = ws.blocker_count[j];
      const bool exact = count <= kInterpositionExactJobs;
      double mean_end = 0.0, mean_between = 0.0, any_between = 1.0;
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t m = blocker[k];
        // m is waiting already, or becomes ready within j's cycle (or j's turn), and then
        // takes a turn.
        const double after_end = std::min(1.0, (waits[m] + cycles[j]) * inverse_cycle[m]);
        const double ready = std::min(1.0, (waits[m] + a.turn_us) * inverse_cycle[m]);
        mean_end += after_end * blocked[k];
        mean_between += ready * blocked[k];
        any_between *= 1.0 - ready;
        if (exact) chance[k] = after_end;
      }
      const double lost_after_end =
          exact ? expected_excess_sorted(
                      chance, blocked,
                      ws.rest_blocked.data() + j * (kInterpositionExactJobs + 1), count,
                      switch_us, a.gap_us)
                : std::max(0.0, mean_end + switch_us - a.gap_us);
      const double between = mean_between + switch_us * (1.0 - any_between);
      const double cycle = a.alone_cycle_us + (a.turns - 1.0) * between + lost_after_end;
      const double step = step_share * (cycle - cycles[j]);
      if (has_last_step && step * last_step[j] < 0.0) turned_back = true;
      last_step[j] = step;
      next[j] = cycles[j] + step;
      change = std::max(change, std::abs(step) * inverse_cycle[j]);
    }
    for (std::size_t j = 0; j < n; ++j) cycles[j] = next[j];
    if (change < 1e-10) break;
    if (turned_back) step_share = 0.5;
    double ratio = 0.0;
    if (step_share == 1.0 && has_last_step && last_change > 0.0) {
      ratio = change / last_change;
      if (last_ratio > 0.0 && ratio < 0.95 && std::abs(ratio - last_ratio) <= 0.1 * ratio) {
        const double rest = ratio / (1.0 - ratio);
        // No cycle is ever shorter than alone (every term added to a_j is >= 0): an
        // extrapolation past that is cut there.
        for (std::size_t j = 0; j < n; ++j) {
          cycles[j] = std::max(jobs[j].alone_cycle_us, cycles[j] + rest * last_step[j]);
        }
        has_last_step = false;  // the next step starts a fresh series
        last_ratio = 0.0;
        continue;
      }
    }
    has_last_step = true;
    last_change = change;
    last_ratio = ratio;
  }
  return iterations + 1;
}

}  // namespace gpumux
