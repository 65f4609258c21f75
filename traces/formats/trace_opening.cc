#include "traces/formats/trace_opening.h"

#include "traces/formats/public/public_traces.h"

namespace gpumux {

std::unique_ptr<TraceSource> open_scenario_trace(const std::string& path, const std::string& format,
                                                 const TraceDefaults& defaults,
                                                 std::uint64_t seed) {
  const TraceFormatInfo& f = trace_formats().get(format, path, "format");
  if (f.open) return f.open(path, defaults, seed);
  return f.open_public(path, defaults, seed);
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
