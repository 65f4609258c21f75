// Every trace format a scenario may name: the native ones (traces/formats/trace_source.h) and the
// public-trace loaders (traces/formats/public/public_traces.h), behind one function.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "traces/formats/trace_source.h"

namespace gpumux {

std::vector<std::string> all_trace_format_names();

// Throws InputError for an unknown format or unreadable input.
std::unique_ptr<TraceSource> open_scenario_trace(const std::string& path, const std::string& format,
                                                 const TraceDefaults& defaults, std::uint64_t seed);

}  // namespace gpumux
