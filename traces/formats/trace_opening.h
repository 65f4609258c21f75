// Opening a trace in a format of the table (traces/formats/registry.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "traces/formats/registry.h"
#include "traces/formats/trace_source.h"

namespace gpumux {

// Opens `path` in `format`. Throws InputError for an unknown format (listing the valid ones) or
// unreadable input.
std::unique_ptr<TraceSource> open_scenario_trace(const std::string& path, const std::string& format,
                                                 const TraceDefaults& defaults, std::uint64_t seed);

// The same (a shorter name for tests and tools).
inline std::unique_ptr<TraceSource> open_trace(const std::string& path, const std::string& format,
                                               const TraceDefaults& defaults, std::uint64_t seed) {
  return open_scenario_trace(path, format, defaults, seed);
}

}  // namespace gpumux
