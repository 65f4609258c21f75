// One pod's profile from its samples: gaps closed, steps merged and quantized, the repetition
// point, and its stats (derive.h derive_pod_profile).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "traces/memory_profiles/derive.h"

namespace gpumux {

namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// Median of a copy (mean of the two middle values for an even count); `v` non-empty.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A run of consecutive samples [begin, end) that becomes one step.
struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  double weight = 0.0;    // seconds the samples hold
  double weighted = 0.0;  // sum of fraction * seconds
  double mean() const { return weighted / weight; }
};

}  // namespace

void check_derive_options(const MemoryDeriveOptions& o) {
  if (o.min_samples < 2) throw std::invalid_argument("min_samples must be >= 2");
  // Up to three boundaries are pinned (the peak on both sides, the repetition point).
  if (o.max_steps < 4) throw std::invalid_argument("max_steps must be >= 4");
  if (!(o.quantum > 0.0 && o.quantum <= 0.5)) throw std::invalid_argument("quantum in (0, 0.5]");
  if (!(o.merge_tolerance >= 0.0)) throw std::invalid_argument("merge_tolerance must be >= 0");
  if (!(o.ramp_threshold > 0.0 && o.ramp_threshold <= 1.0)) {
    throw std::invalid_argument("ramp_threshold in (0, 1]");
  }
  if (!(o.spike_margin >= 0.0)) throw std::invalid_argument("spike_margin must be >= 0");
  if (!(o.gap_factor > 1.0)) throw std::invalid_argument("gap_factor must be > 1");
  if (!(o.censor_window_s >= 0.0)) throw std::invalid_argument("censor_window_s must be >= 0");
}

DerivedProfile derive_pod_profile(const std::vector<PodSample>& memory,
                                  const std::vector<PodSample>& duty, bool start_observed,
                                  const MemoryDeriveOptions& options) {
  check_derive_options(options);
  const std::size_t n = memory.size();
  if (n < 2) throw std::invalid_argument("derive_pod_profile needs at least 2 samples");
  double max_value = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && !(memory[i].t_s > memory[i - 1].t_s)) {
      throw std::invalid_argument("derive_pod_profile needs strictly increasing times");
    }
    max_value = std::max(max_value, memory[i].value);
  }
  if (!(max_value > 0.0)) throw std::invalid_argument("derive_pod_profile needs a positive max");

  DerivedProfile p;
  MemoryProfileStats& s = p.stats;
  s.samples = n;
  s.start_observed = start_observed;
  s.max_gib = max_value / kBytesPerGiB;

  // Time axis: the job's progress, so an absence (no samples for a long while: the pod was not
  // running or not scraped) is closed to one ordinary interval rather than held.
  std::vector<double> intervals(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) intervals[i] = memory[i + 1].t_s - memory[i].t_s;
  s.interval_s = median(intervals);
  std::vector<double> x(n, 0.0);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    double d = intervals[i];
    if (d > options.gap_factor * s.interval_s) {
      d = s.interval_s;
      ++s.gaps_closed;
    }
    x[i + 1] = x[i] + d;
  }
  s.duration_s = x[n - 1] + s.interval_s;

  std::vector<double> f(n);
  for (std::size_t i = 0; i < n; ++i) f[i] = memory[i].value / max_value;

  std::size_t ramp_index = 0;
  while (memory[ramp_index].value < options.ramp_threshold * max_value) ++ramp_index;
  s.ramp_s = x[ramp_index];
  s.steady_fraction = median(f);

  const double spike_level = s.steady_fraction + options.spike_margin;
  double heights = 0.0;
  for (std::size_t i = 0; i < n;) {
    if (!(f[i] > spike_level)) {
      ++i;
      continue;
    }
    double top = f[i];
    for (; i < n && f[i] > spike_level; ++i) top = std::max(top, f[i]);
    ++s.spikes;
    heights += top - s.steady_fraction;
  }
  s.spikes_per_hour = static_cast<double>(s.spikes) / (s.duration_s / 3600.0);
  s.spike_height = s.spikes > 0 ? heights / static_cast<double>(s.spikes) : 0.0;

  double duty_sum = 0.0;
  for (const PodSample& d : duty) duty_sum += d.value;
  s.duty_samples = duty.size();
  s.mean_duty_cycle = duty.empty() ? 0.0 : duty_sum / static_cast<double>(duty.size()) / 100.0;

  // Pinned boundaries: the first sample at the maximum is a step of its own (so the profile
  // reaches the peak the job declares), and the repetition point starts a step.
  std::size_t peak = 0;
  while (memory[peak].value != max_value) ++peak;
  const std::size_t repeat_index = start_observed ? ramp_index : 0;
  std::vector<bool> pinned(n + 1, false);
  pinned[0] = pinned[peak] = pinned[repeat_index] = true;
  pinned[peak + 1] = true;

  const auto hold = [&](std::size_t i) { return i + 1 < n ? x[i + 1] - x[i] : s.interval_s; };

  // Stage 1: consecutive samples merge while the segment's range stays below the tolerance.
  std::vector<Segment> segs;
  for (std::size_t i = 0; i < n;) {
    Segment g{i, i, 0.0, 0.0};
    double lo = f[i], hi = f[i];
    do {
      g.weight += hold(g.end);
      g.weighted += f[g.end] * hold(g.end);
      ++g.end;
      if (g.end < n) {
        lo = std::min(lo, f[g.end]);
        hi = std::max(hi, f[g.end]);
      }
    } while (g.end < n && !pinned[g.end] && hi - lo < options.merge_tolerance);
    segs.push_back(g);
    i = g.end;
  }

  // Stage 2: merge the adjacent pair that adds the least squared error (time-weighted, Ward's
  // criterion) until few enough steps remain; short deep dips and spikes cost the most, so they
  // survive longest. Ties go to the earliest pair.
  while (segs.size() > options.max_steps) {
    std::size_t best = segs.size();
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j + 1 < segs.size(); ++j) {
      if (pinned[segs[j + 1].begin]) continue;
      const Segment& a = segs[j];
      const Segment& b = segs[j + 1];
      const double dm = a.mean() - b.mean();
      const double cost = a.weight * b.weight / (a.weight + b.weight) * dm * dm;
      if (cost < best_cost) {
        best_cost = cost;
        best = j;
      }
    }
    if (best == segs.size()) break;
    segs[best].end = segs[best + 1].end;
    segs[best].weight += segs[best + 1].weight;
    segs[best].weighted += segs[best + 1].weighted;
    segs.erase(segs.begin() + static_cast<std::ptrdiff_t>(best + 1));
  }

  // Stage 3: quantize, join equal neighbours (except across the repetition point), whole seconds.
  const std::int64_t repeat_at = std::llround(x[repeat_index]);
  for (const Segment& g : segs) {
    const double q = std::clamp(std::round(g.mean() / options.quantum) * options.quantum, 0.0, 1.0);
    const std::int64_t at = std::llround(x[g.begin]);
    if (!p.steps.empty()) {
      DerivedStep& last = p.steps.back();
      if (at <= last.at_s) {  // sub-second segment: the later value wins
        last.fraction = q;
        continue;
      }
      if (last.fraction == q && at != repeat_at) continue;
    }
    p.steps.push_back({at, q});
  }
  p.repeat_from_s = repeat_at;
  p.period_s = std::max<std::int64_t>(std::llround(s.duration_s) - repeat_at,
                                      p.steps.back().at_s - repeat_at + 1);
  return p;
}

}  // namespace gpumux
