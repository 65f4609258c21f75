#include "traces/formats/trace_opening.h"

#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"
#include "traces/formats/public/loaders.h"
#include "traces/formats/public/public_traces.h"

namespace gpumux {

const std::vector<TraceFormatInfo>& trace_formats() {
  static const std::vector<TraceFormatInfo> table = {
      {"csv", "gpumux's native CSV, one column per job field", open_native_csv, nullptr, 1},
      {"jsonl", "one JSON object per line, the native fields", open_native_jsonl, nullptr, 0},
      {"tiresias", "the Tiresias simulator's job CSV", open_tiresias_csv, nullptr, 1},
      {"pai2020", "Alibaba PAI 2020 job and task tables (a folder)", nullptr,
       public_traces::open_pai2020},
      {"pai-sim", "the job CSV of the PAI 2020 repository's simulator", nullptr,
       public_traces::open_pai_sim},
      {"dlrm2025", "Alibaba GPU 2025 disaggregated_DLRM_trace.csv", nullptr,
       public_traces::open_dlrm2025},
      {"philly", "Microsoft Philly 2017 cluster_job_log", nullptr, public_traces::open_philly},
      {"helios", "SenseTime Helios cluster_log.csv", nullptr, public_traces::open_helios},
      {"openb-pods", "Alibaba GPU 2023 openb_pod_list_*.csv with times", nullptr,
       public_traces::open_openb_pods},
  };
  return table;
}

std::vector<std::string> all_trace_format_names() {
  std::vector<std::string> names;
  for (const auto& f : trace_formats()) names.emplace_back(f.name);
  return names;
}

std::unique_ptr<TraceSource> open_scenario_trace(const std::string& path, const std::string& format,
                                                 const TraceDefaults& defaults,
                                                 std::uint64_t seed) {
  for (const auto& f : trace_formats()) {
    if (f.name != format) continue;
    if (f.open) return f.open(path, defaults, seed);
    return f.open_public(path, defaults, seed);
  }
  throw InputError(path, "format",
                   "unknown trace format '" + format +
                       "' (valid: " + join_names(all_trace_format_names()) + ")");
}

std::unique_ptr<PublicTraceSource> open_public_trace_source(const std::string& path,
                                                            const std::string& format,
                                                            const TraceDefaults& defaults,
                                                            std::uint64_t seed) {
  for (const auto& f : trace_formats()) {
    if (f.name == format && f.open_public) return f.open_public(path, defaults, seed);
  }
  return nullptr;
}

std::unique_ptr<TraceSource> open_public_trace(const std::string& path, const std::string& format,
                                               const TraceDefaults& defaults, std::uint64_t seed) {
  return open_public_trace_source(path, format, defaults, seed);
}

std::vector<std::string> public_trace_format_names() {
  std::vector<std::string> names;
  for (const auto& f : trace_formats()) {
    if (f.open_public) names.emplace_back(f.name);
  }
  return names;
}

}  // namespace gpumux
