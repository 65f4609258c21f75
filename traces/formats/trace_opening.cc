#include "traces/formats/trace_opening.h"

#include "traces/formats/public/public_traces.h"

namespace gpumux {

std::vector<std::string> all_trace_format_names() {
  std::vector<std::string> names = trace_format_names();
  for (auto& n : public_trace_format_names()) names.push_back(std::move(n));
  return names;
}

std::unique_ptr<TraceSource> open_scenario_trace(const std::string& path, const std::string& format,
                                                 const TraceDefaults& defaults,
                                                 std::uint64_t seed) {
  if (auto source = open_public_trace(path, format, defaults, seed)) return source;
  return open_trace(path, format, defaults, seed);
}

}  // namespace gpumux
