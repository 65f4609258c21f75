#include "models/timeslice/timeslice_rates.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/interposition.h"

namespace gpumux {
namespace {

constexpr int kMaxIterations = 500;
constexpr double kTolerance = 1e-12;
constexpr double kMinRate = 1e-9;
// Fixed points solved side by side (timeslice_rates below): every job's at once up to 8 jobs
// (more chains for the processor to overlap: 8 lanes ran ~5% faster than 4, 4 ~14% than 2).
constexpr std::size_t kLanes = 8;

// How a burst of mean `k` is cut into holds of at most one slice `t` while others wait.
struct Holds {
  double mean = 0.0;   // h: mean hold
  double count = 1.0;  // c: holds per burst
};

Holds holds_of(double k, double t, BurstDistribution d) {
  if (d == BurstDistribution::kFixed) {
    const double c = std::max(1.0, std::ceil(k / t - 1e-12));
    return {k / c, c};
  }
  // Exponential bursts are memoryless: every hold is min(Exp(k), t).
  const double e = std::exp(-t / k);
  return {k * (1.0 - e), 1.0 / (1.0 - e)};
}

void check(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("timeslice_rates: ") + what);
}

// Fixed kernels and gaps: the contexts lock into repeating patterns (measured: two duty-0.5
// processes with 2 ms kernels interleave and keep 0.94 each), served by the interposition form
// (models/interposition.h): every other context blocks a turn, which holds the GPU for its hold
// plus the switch into it. Uses the workspace filled by the caller (gap, util, slow, kernel,
// hold, holds_per_burst).
TimeSliceLoad lockstep_rates(std::span<const TimeSliceJob> jobs, const TimeSliceParams& p,
                             std::span<double> rates, TimeSliceWorkspace& ws) {
  const std::size_t n = jobs.size();
  const double s = p.switch_cost_us;
  for (std::size_t j = 0; j < n; ++j) {
    ws.interposition[j] = InterpositionJob{ws.kernel[j] + ws.gap[j], ws.gap[j], ws.hold[j] + s,
                                           ws.holds_per_burst[j]};
  }
  TimeSliceLoad out;
  out.iterations = interposition_cycles(
      std::span<const InterpositionJob>(ws.interposition.data(), n),
      [](std::size_t, std::size_t) { return 1.0; }, s, std::span<double>(ws.frequency.data(), n),
      ws.solver);
  double busy = 0.0, turns = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double cycle = ws.frequency[j];
    rates[j] = std::max(kMinRate, std::min(1.0, (jobs[j].mean_kernel_us + ws.gap[j]) / cycle));
    busy += ws.kernel[j] / cycle;
    turns += ws.holds_per_burst[j] / cycle;
  }
  // Every turn follows a switch once another context runs between two turns of one (n > 1).
  out.busy_fraction = std::min(1.0, busy);
  out.switch_fraction = std::min(1.0 - out.busy_fraction, turns * s);
  return out;
}

}  // namespace

TimeSliceLoad timeslice_rates(std::span<const TimeSliceJob> jobs, const TimeSliceParams& p,
                              std::span<double> rates, TimeSliceWorkspace& ws) {
  check(p.time_slice_us > 0.0, "time_slice_us must be > 0");
  check(p.switch_cost_us >= 0.0, "switch_cost_us must be >= 0");
  check(p.interference >= 0.0, "interference must be >= 0");
  const std::size_t n = jobs.size();
  check(rates.size() == n, "rates.size() must equal jobs.size()");
  check(p.launch_gap_us >= 0.0, "launch_gap_us must be >= 0");
  TimeSliceLoad out;
  ws.resize(n);
  double util_sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const TimeSliceJob& j = jobs[i];
    check(j.sm_util > 0.0 && j.sm_util <= 1.0, "sm_util must be in (0, 1]");
    check(j.mean_kernel_us > 0.0, "mean_kernel_us must be > 0");
    const EffectiveCycle e = effective_cycle(j.sm_util, j.mean_kernel_us, p.launch_gap_us);
    ws.gap[i] = e.gap_us;
    ws.util[i] = e.sm_util;
    util_sum += e.sm_util;
  }
  std::fill(rates.begin(), rates.end(), 1.0);
  if (n == 0) return out;
  const double s = p.switch_cost_us;
  const double t = p.time_slice_us;

  // Per job: slowdown, kernel (interference included), gap, holds. A never-idle job still
  // yields at each kernel end (strict alternation): it holds one kernel (at most a slice) per
  // turn and is always ready for its next one.
  std::vector<double>& util = ws.util;
  std::vector<double>& slow = ws.slow;
  std::vector<double>& k = ws.kernel;
  std::vector<double>& g = ws.gap;
  std::vector<double>& h = ws.hold;
  std::vector<double>& c = ws.holds_per_burst;
  std::vector<char>& continuous = ws.continuous;
  for (std::size_t i = 0; i < n; ++i) {
    slow[i] = 1.0 + p.interference * (util_sum - util[i]);
    k[i] = jobs[i].mean_kernel_us * slow[i];
    continuous[i] = g[i] <= 0.0;
    const Holds hold = holds_of(k[i], t, p.distribution);
    h[i] = hold.mean;
    c[i] = hold.count;
  }
  if (n == 1) {
    out.busy_fraction = util[0];
    return out;
  }
  if (p.distribution == BurstDistribution::kFixed) return lockstep_rates(jobs, p, rates, ws);

  // m's chance of taking a turn in one round of j, given how long the rest of that round lasts:
  // with x = exp(-L / g) (m still in its gap after the rest L of the round), the chance its gap
  // ended after a skip is 1 - x; after its own turn the round also holds the switch away from
  // m, so the chance it is still gapped is x exp(-s / g), and a turn is followed by another
  // with probability 1 - x exp(-s / g) / c. The stationary chance, e / (e + (1 - e') / c)
  // (header), is then (1 - x) / (1 - x + x exp(-s / g) / c): one exp per step, with -1 / g
  // and exp(-s / g) / c computed once per job.
  std::vector<double>& minus_gap_rate = ws.minus_gap_rate;
  std::vector<double>& stays_gapped = ws.stays_gapped;  // exp(-s / g) / c
  for (std::size_t m = 0; m < n; ++m) {
    minus_gap_rate[m] = continuous[m] ? 0.0 : -1.0 / g[m];
    stays_gapped[m] = continuous[m] ? 0.0 : std::exp(-s / g[m]) / c[m];
  }
  auto take_turn = [&](std::size_t m, double rest_of_round) {
    if (continuous[m]) return 1.0;
    const double x = std::exp(rest_of_round * minus_gap_rate[m]);
    const double ended = 1.0 - x;
    return ended / (ended + x * stays_gapped[m] + 1e-300);
  };

  std::vector<double>& turn = ws.turn;  // s + h[m]: a turn of m with the switch into it
  for (std::size_t m = 0; m < n; ++m) turn[m] = s + h[m];
  // The fixed points of different j are independent: they are solved kLanes at a time, their
  // sweeps interleaved m by m, so that the processor overlaps their chains of dependent steps
  // (each step waits on the one before through exp). Each lane performs exactly the operations
  // a solve of its own would, in the same order, and stops where that solve would.
  struct Lane {
    std::size_t j = 0;
    double* pi = nullptr;
    double own_gap = 0.0;
    double wait = 0.0;  // sum over m of pi[m] (s + h[m]), kept current through the sweep
    double change = 0.0;
    double before_m = 1.0;  // product over l < m, l != j of (1 - pi[l]), this sweep's pi
    // after[m]: product over l > m, l != j of (1 - pi[l]), the previous sweep's pi (those a
    // sweep has not reached yet when it is at m), computed once per sweep.
    double* after = nullptr;
    bool solving = false;
  };
  Lane lanes[kLanes];
  // One step of lane a's sweep at m (m != a.j).
  auto step = [&](Lane& a, std::size_t m) {
    double* pi = a.pi;
    // The product over l != j, m of (1 - pi[l]): over l < m (kept as m advances: those pi are
    // already this sweep's) times over l > m (not yet reached): O(1) per step, not O(n).
    const double nobody_else = a.before_m * a.after[m];
    // Without m, j's turns come one hold plus the longer of its own gap (spread over its
    // turns) and the other contexts' turns (and the switch back into j) apart.
    const double others = a.wait - pi[m] * turn[m] + s * (1.0 - nobody_else);
    const double next = take_turn(m, h[a.j] + std::max(a.own_gap, others));
    a.change = std::max(a.change, std::abs(next - pi[m]));
    // The round's wait takes the new pi[m] at once (Gauss-Seidel: the sweep's later steps see
    // it), as the product before m does: ~15% fewer sweeps than keeping the sweep's first wait.
    a.wait += (next - pi[m]) * turn[m];
    pi[m] = next;
    a.before_m *= 1.0 - next;
  };
  double busy = 0.0, lost = 0.0;
  for (std::size_t first = 0; first < n; first += kLanes) {
    const std::size_t lane_count = std::min(kLanes, n - first);
    for (std::size_t lane = 0; lane < lane_count; ++lane) {
      Lane& a = lanes[lane];
      a.j = first + lane;
      a.pi = ws.turn_chance.data() + lane * n;
      a.after = ws.not_later.data() + lane * n;
      std::fill(a.pi, a.pi + n, 1.0);
      a.pi[a.j] = 0.0;
      a.own_gap = continuous[a.j] ? 0.0 : g[a.j] / c[a.j];
      a.solving = true;
    }
    for (int it = 0; it < kMaxIterations; ++it) {
      bool any = false;
      for (std::size_t lane = 0; lane < lane_count; ++lane) {
        Lane& a = lanes[lane];
        if (!a.solving) continue;
        any = true;
        a.wait = 0.0;
        for (std::size_t m = 0; m < n; ++m) a.wait += a.pi[m] * turn[m];
        a.after[n - 1] = 1.0;
        for (std::size_t m = n - 1; m > 0; --m) {
          a.after[m - 1] = m == a.j ? a.after[m] : a.after[m] * (1.0 - a.pi[m]);
        }
        a.change = 0.0;
        a.before_m = 1.0;
      }
      if (!any) break;
      for (std::size_t m = 0; m < n; ++m) {
        for (std::size_t lane = 0; lane < lane_count; ++lane) {
          if (lanes[lane].solving && m != lanes[lane].j) step(lanes[lane], m);
        }
      }
      for (std::size_t lane = 0; lane < lane_count; ++lane) {
        Lane& a = lanes[lane];
        if (!a.solving) continue;
        out.iterations = std::max(out.iterations, it + 1);
        if (a.change < kTolerance) a.solving = false;
      }
    }
    for (std::size_t lane = 0; lane < lane_count; ++lane) {
      const std::size_t j = lanes[lane].j;
      const double* pi = lanes[lane].pi;
      double wait = 0.0;
      double nobody = 1.0;
      for (std::size_t m = 0; m < n; ++m) {
        wait += pi[m] * turn[m];
        if (m != j) nobody *= 1.0 - pi[m];
      }
      // A turn costs a switch only if another context ran since j's previous one.
      const double switch_per_turn = s * (1.0 - nobody);
      // A newcomer after a short gap (or none) queues behind a whole round; after a long one it
      // lands at a random point of one.
      const double round = wait + s + h[j];
      const double first_wait = wait * (1.0 - 0.5 * (1.0 - std::exp(-g[j] / round)));
      const double cycle =
          g[j] + first_wait + c[j] * (switch_per_turn + h[j]) + (c[j] - 1.0) * wait;
      const double rate = std::min(1.0, (jobs[j].mean_kernel_us + g[j]) / cycle);
      const double switching =
          c[j] * switch_per_turn / cycle * (rate * cycle / (jobs[j].mean_kernel_us + g[j]));
      rates[j] = std::max(rate, kMinRate);
      busy += rates[j] * util[j] * slow[j];
      lost += switching;
    }
  }
  // Each job's cycle is estimated on its own; where together they ask for more than the GPU,
  // scale everyone down to fit.
  if (busy + lost > 1.0) {
    const double scale = 1.0 / (busy + lost);
    for (double& rate : rates) rate *= scale;
    busy *= scale;
    lost *= scale;
  }
  out.busy_fraction = busy;
  out.switch_fraction = lost;
  return out;
}

void TimeSliceWorkspace::resize(std::size_t n) {
  for (auto* v : {&slow, &kernel, &gap, &util, &hold, &holds_per_burst, &turn_chance, &frequency,
                  &turn, &minus_gap_rate, &stays_gapped}) {
    if (v->size() < n) v->resize(n);
  }
  if (turn_chance.size() < kLanes * n) turn_chance.resize(kLanes * n);  // one row per lane
  if (not_later.size() < kLanes * n) not_later.resize(kLanes * n);
  if (interposition.size() < n) interposition.resize(n);
  if (continuous.size() < n) continuous.resize(n);
}

TimeSliceRates timeslice_rates(std::span<const TimeSliceJob> jobs, const TimeSliceParams& params) {
  TimeSliceRates out;
  out.rates.resize(jobs.size());
  TimeSliceWorkspace ws;
  const TimeSliceLoad load = timeslice_rates(jobs, params, out.rates, ws);
  out.busy_fraction = load.busy_fraction;
  out.switch_fraction = load.switch_fraction;
  out.iterations = load.iterations;
  return out;
}

}  // namespace gpumux
