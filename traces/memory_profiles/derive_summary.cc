// The human-readable summary of a derivation (derive.h print_derive_summary).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "traces/memory_profiles/derive.h"
#include "traces/memory_profiles/derive_text.h"

namespace gpumux {

namespace {

using memory_derive::fixed;

// Linear-interpolated quantile of sorted values, q in [0, 1].
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

void print_distribution(std::ostream& out, const std::string& label, std::vector<double> v,
                        int decimals) {
  out << "  " << label;
  for (std::size_t k = label.size(); k < 40; ++k) out << ' ';
  if (v.empty()) {
    out << "(none)\n";
    return;
  }
  std::sort(v.begin(), v.end());
  out << "min " << fixed(v.front(), decimals) << "  p25 " << fixed(quantile(v, 0.25), decimals)
      << "  median " << fixed(quantile(v, 0.5), decimals) << "  p75 "
      << fixed(quantile(v, 0.75), decimals) << "  max " << fixed(v.back(), decimals) << "  (n "
      << v.size() << ")\n";
}

}  // namespace

void print_derive_summary(const DeriveResult& r, std::ostream& out) {
  std::size_t skipped = 0;
  for (const auto& [reason, count] : r.skipped_pods) skipped += count;
  out << "memory rows " << r.memory_rows << ", duty rows " << r.duty_rows << "\n";
  out << "pods " << r.pods << ": used " << r.profiles.size() << ", skipped " << skipped << "\n";
  for (const auto& [reason, count] : r.skipped_pods) {
    out << "  skipped pods, " << reason << ": " << count << "\n";
  }
  for (const auto& [reason, count] : r.skipped_rows) {
    out << "  skipped rows, " << reason << ": " << count << "\n";
  }
  if (r.duty_only_pods > 0) {
    out << "  pods with duty samples but no memory series: " << r.duty_only_pods << "\n";
  }
  if (r.comment_lines > 0) out << "  blank or comment lines: " << r.comment_lines << "\n";

  std::vector<double> hours, interval, ramp_observed, ramp_running, steady, spikes, height, duty,
      gib, steps;
  std::size_t observed = 0, gaps = 0, with_spikes = 0;
  for (const DerivedProfile& p : r.profiles) {
    const MemoryProfileStats& s = p.stats;
    hours.push_back(s.duration_s / 3600.0);
    interval.push_back(s.interval_s);
    (s.start_observed ? ramp_observed : ramp_running).push_back(s.ramp_s / 60.0);
    observed += s.start_observed ? 1 : 0;
    gaps += s.gaps_closed;
    steady.push_back(s.steady_fraction);
    spikes.push_back(s.spikes_per_hour);
    if (s.spikes > 0) {
      height.push_back(s.spike_height);
      ++with_spikes;
    }
    duty.push_back(s.mean_duty_cycle);
    gib.push_back(s.max_gib);
    steps.push_back(static_cast<double>(p.steps.size()));
  }
  out << "profiles: " << r.profiles.size() << " (start observed " << observed
      << ", already running at the trace start " << r.profiles.size() - observed
      << "); gaps closed " << gaps << "; with spikes " << with_spikes << "\n";
  print_distribution(out, "series length [h]", hours, 1);
  print_distribution(out, "sampling interval [s]", interval, 0);
  print_distribution(out, "ramp to 90% max, start observed [min]", ramp_observed, 0);
  print_distribution(out, "ramp to 90% max, running [min]", ramp_running, 0);
  print_distribution(out, "steady fraction (median)", steady, 2);
  print_distribution(out, "spikes per hour", spikes, 2);
  print_distribution(out, "spike height above steady", height, 2);
  print_distribution(out, "mean duty cycle", duty, 3);
  print_distribution(out, "max memory [GiB]", gib, 1);
  print_distribution(out, "steps per profile", steps, 0);
}

}  // namespace gpumux
