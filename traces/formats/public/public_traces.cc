#include "traces/formats/public/public_traces.h"

#include "traces/formats/public/loaders.h"

namespace gpumux {

namespace {

using Opener = std::unique_ptr<PublicTraceSource> (*)(const std::string&, const TraceDefaults&,
                                                      std::uint64_t);

struct Format {
  const char* name;
  Opener open;
};

constexpr Format kFormats[] = {
    {"pai2020", public_traces::open_pai2020},   {"pai-sim", public_traces::open_pai_sim},
    {"dlrm2025", public_traces::open_dlrm2025}, {"philly", public_traces::open_philly},
    {"helios", public_traces::open_helios},     {"openb-pods", public_traces::open_openb_pods},
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_public_trace_source(const std::string& path,
                                                            const std::string& format,
                                                            const TraceDefaults& defaults,
                                                            std::uint64_t seed) {
  for (const auto& f : kFormats) {
    if (format == f.name) return f.open(path, defaults, seed);
  }
  return nullptr;
}

std::unique_ptr<TraceSource> open_public_trace(const std::string& path, const std::string& format,
                                               const TraceDefaults& defaults, std::uint64_t seed) {
  return open_public_trace_source(path, format, defaults, seed);
}

std::vector<std::string> public_trace_format_names() {
  std::vector<std::string> names;
  for (const auto& f : kFormats) names.emplace_back(f.name);
  return names;
}

}  // namespace gpumux
