// The library JSON read by the engine (derive.h write_profile_library): its source, the method
// in words, one profile per line.
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "sim/core/memory_profile.h"
#include "traces/memory_profiles/derive.h"
#include "traces/memory_profiles/derive_text.h"

namespace gpumux {

namespace {

using memory_derive::fixed;
using memory_derive::quantum_decimals;

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

}  // namespace gpumux
