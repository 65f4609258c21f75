#include "traces/memory_profiles/derive.h"

#include "sim/base/atomic_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "sim/base/input_error.h"
#include "sim/core/memory_profile.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
// Timestamps are Unix-like seconds; anything beyond this is not a timestamp.
constexpr double kMaxTimestamp = 1e12;

void check_options(const MemoryDeriveOptions& o) {
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

// Median of a copy (mean of the two middle values for an even count); `v` non-empty.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Linear-interpolated quantile of sorted values, q in [0, 1].
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  // "-0.00" (a tiny negative rounded away) reads as 0.
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

int quantum_decimals(double quantum) {
  int d = 0;
  while (d < 6 &&
         std::fabs(quantum * std::pow(10.0, d) - std::round(quantum * std::pow(10.0, d))) > 1e-9) {
    ++d;
  }
  return d;
}

// A run of consecutive samples [begin, end) that becomes one step.
struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  double weight = 0.0;    // seconds the samples hold
  double weighted = 0.0;  // sum of fraction * seconds
  double mean() const { return weighted / weight; }
};

struct Row {
  double t = 0.0;
  double value = 0.0;
};

}  // namespace

std::map<std::string, std::vector<PodSample>> read_pod_series(const std::string& path,
                                                              double value_max, std::size_t& rows,
                                                              std::size_t& duplicates,
                                                              std::size_t& comment_lines) {
  CsvReader reader(path);
  std::vector<std::string> fields;
  if (!reader.next(fields)) {
    throw InputError(path + ":1", "",
                     "empty file: expected a header with timestamp_anon, value, container_ip");
  }
  const std::vector<std::string> header = fields;
  const auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      throw InputError(reader.where(), name,
                       "missing column (expected timestamp_anon, value, container_ip)");
    }
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t t_col = column("timestamp_anon");
  const std::size_t v_col = column("value");
  const std::size_t pod_col = column("container_ip");

  std::map<std::string, std::vector<Row>> grouped;
  while (reader.next(fields)) {
    const std::string where = reader.where();
    if (fields.size() != header.size()) {
      throw InputError(where, "",
                       "expected " + std::to_string(header.size()) + " fields, got " +
                           std::to_string(fields.size()));
    }
    const double t = parse_number_cell(fields[t_col], where, "timestamp_anon", 0.0, kMaxTimestamp);
    const double v = parse_number_cell(fields[v_col], where, "value", 0.0, value_max);
    const std::string& pod = fields[pod_col];
    if (pod.find_first_not_of(" \t") == std::string::npos) {
      throw InputError(where, "container_ip", "expected a pod id, got an empty cell");
    }
    grouped[pod].push_back({t, v});
    ++rows;
  }
  comment_lines += reader.skipped_lines();

  std::map<std::string, std::vector<PodSample>> out;
  for (auto& [pod, series] : grouped) {
    // Stable: among rows with the same timestamp the first in file order is kept.
    std::stable_sort(series.begin(), series.end(),
                     [](const Row& a, const Row& b) { return a.t < b.t; });
    std::vector<PodSample>& samples = out[pod];
    samples.reserve(series.size());
    for (const Row& r : series) {
      if (!samples.empty() && samples.back().t_s == r.t) {
        ++duplicates;
        continue;
      }
      samples.push_back({r.t, r.value});
    }
  }
  return out;
}

DerivedProfile derive_pod_profile(const std::vector<PodSample>& memory,
                                  const std::vector<PodSample>& duty, bool start_observed,
                                  const MemoryDeriveOptions& options) {
  check_options(options);
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

DeriveResult derive_memory_profiles(const std::string& memory_csv, const std::string& duty_csv,
                                    const MemoryDeriveOptions& options) {
  check_options(options);
  DeriveResult r;
  r.options = options;
  std::size_t duplicates = 0;
  const auto memory = read_pod_series(memory_csv, std::numeric_limits<double>::max(), r.memory_rows,
                                      duplicates, r.comment_lines);
  const auto duty = read_pod_series(duty_csv, 100.0, r.duty_rows, duplicates, r.comment_lines);
  if (duplicates > 0) r.skipped_rows[kSkipDuplicateTimestamp] = duplicates;

  double first_t = std::numeric_limits<double>::infinity();
  for (const auto& [pod, samples] : memory) first_t = std::min(first_t, samples.front().t_s);
  for (const auto& [pod, samples] : duty) {
    if (!memory.contains(pod)) ++r.duty_only_pods;
  }

  r.pods = memory.size();
  for (const auto& [pod, samples] : memory) {
    const auto skip = [&](const char* reason) { ++r.skipped_pods[reason]; };
    if (samples.size() < options.min_samples) {
      skip(kSkipTooFewSamples);
      continue;
    }
    const bool allocates = std::any_of(samples.begin(), samples.end(),
                                       [](const PodSample& x) { return x.value > 0.0; });
    if (!allocates) {
      skip(kSkipNeverAllocates);
      continue;
    }
    const auto d = duty.find(pod);
    if (d == duty.end() || d->second.empty()) {
      skip(kSkipNoDuty);
      continue;
    }
    const bool start_observed = samples.front().t_s > first_t + options.censor_window_s;
    DerivedProfile p = derive_pod_profile(samples, d->second, start_observed, options);
    p.pod = pod;
    r.profiles.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < r.profiles.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "genai-pod-%03zu", i + 1);
    r.profiles[i].name = name;
  }
  return r;
}

namespace {

std::string method_text(const MemoryDeriveOptions& o) {
  std::ostringstream m;
  m << "Per pod (container_ip), memory samples sorted by time; pods with fewer than "
    << o.min_samples
    << " samples or never using memory are left out. Time is seconds since the pod's first "
       "sample, with absences longer than "
    << fixed(o.gap_factor, 0)
    << " median intervals closed to one interval (time is the job's progress). Each sample is "
       "divided by the pod's own maximum; consecutive samples merge into one step while their "
       "range stays below "
    << fixed(o.merge_tolerance, 2) << ", then adjacent steps merge least-squared-error first "
    << "(time-weighted) down to at most " << o.max_steps
    << " steps; a step holds the time-weighted mean of its samples rounded to "
    << fixed(o.quantum, quantum_decimals(o.quantum))
    << ", and the first sample at the maximum stays a step of its own so every profile "
       "reaches 1.0. Each profile replays periodically with period = the observed series: from "
       "0 when the pod was already running at the trace start (its start is not observed), else "
       "from the end of its ramp-up (first sample >= "
    << fixed(o.ramp_threshold, 2)
    << " of the max). stats: samples; ramp_s = that ramp-up time; steady_fraction = median "
       "fraction; spikes_per_hour = runs of samples above steady + "
    << fixed(o.spike_margin, 2)
    << " per hour; mean_duty_cycle = mean of the pod's GPU duty-cycle samples (percent / 100; "
       "maps to sm_util); max_gib = the pod's maximum in GiB. See "
       "traces/memory_profiles/README.md.";
  return m.str();
}

constexpr const char* kSource =
    "Alibaba clusterdata cluster-trace-v2026-GenAI (alibaba/clusterdata @ 7a6c496e: "
    "pod_gpu_memory_used_bytes_anon.csv, pod_gpu_duty_cycle_anon.csv), licensed CC BY 4.0; "
    "derived by gpumux traces/memory_profiles (run_derive_memory_profiles)";

}  // namespace

void write_profile_library(const DeriveResult& result, std::ostream& out) {
  const int decimals = quantum_decimals(result.options.quantum);
  out << "{\"source\": " << nlohmann::json(kSource).dump() << ",\n";
  out << " \"method\": " << nlohmann::json(method_text(result.options)).dump() << ",\n";
  out << " \"profiles\": [";
  for (std::size_t i = 0; i < result.profiles.size(); ++i) {
    const DerivedProfile& p = result.profiles[i];
    // The engine's contract, checked before anything is written.
    std::vector<MemoryProfile::Step> steps;
    for (const DerivedStep& st : p.steps) {
      steps.push_back({static_cast<double>(st.at_s) * 1e6, st.fraction});
    }
    const MemoryProfile check(p.name, steps, static_cast<double>(p.repeat_from_s) * 1e6,
                              static_cast<double>(p.period_s) * 1e6);
    (void)check;

    out << (i == 0 ? "\n" : ",\n");
    out << "  {\"name\": " << nlohmann::json(p.name).dump() << ", \"steps\": [";
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      out << (k == 0 ? "" : ", ") << "[" << p.steps[k].at_s << ", "
          << fixed(p.steps[k].fraction, decimals) << "]";
    }
    out << "]";
    if (p.period_s > 0) {
      out << ", \"repeat_from_s\": " << p.repeat_from_s << ", \"period_s\": " << p.period_s;
    }
    const MemoryProfileStats& s = p.stats;
    out << ",\n   \"stats\": {\"samples\": " << s.samples
        << ", \"ramp_s\": " << std::llround(s.ramp_s)
        << ", \"steady_fraction\": " << fixed(s.steady_fraction, 2)
        << ", \"spikes_per_hour\": " << fixed(s.spikes_per_hour, 2)
        << ", \"mean_duty_cycle\": " << fixed(s.mean_duty_cycle, 3)
        << ", \"max_gib\": " << fixed(s.max_gib, 2) << "}}";
  }
  out << (result.profiles.empty() ? "]}\n" : "\n ]}\n");
}

namespace {

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

int run_derive_memory_profiles(const std::string& memory_csv, const std::string& duty_csv,
                               const std::string& out_json, std::ostream& out, std::ostream& err) {
  try {
    const DeriveResult result = derive_memory_profiles(memory_csv, duty_csv);
    std::ostringstream json;
    write_profile_library(result, json);
    const std::string text = json.str();

    // The same atomic writer as every output: the file appears whole or not at all, and its
    // temporary goes on failure or SIGINT/SIGTERM.
    AtomicFile file(out_json);
    file.stream() << text;
    file.commit();
    print_derive_summary(result, out);
    out << "wrote " << result.profiles.size() << " profiles (" << text.size() << " bytes) to "
        << out_json << "\n";
    return 0;
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace gpumux
