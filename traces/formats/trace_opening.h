// The trace formats a scenario may name (trace.format), in one table: the native ones
// (traces/formats/trace_source.h) and the public-trace loaders (traces/formats/public/), each
// with its name, one line of what it reads and its opener. `gpumux models`, the scenario
// validator, the progress estimate and the openers read this table; it is the only list of
// format names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "traces/formats/public/public_trace_source.h"
#include "traces/formats/trace_source.h"

namespace gpumux {

struct TraceFormatInfo {
  using Opener = std::unique_ptr<TraceSource> (*)(const std::string& path,
                                                  const TraceDefaults& defaults,
                                                  std::uint64_t seed);
  using PublicOpener = std::unique_ptr<PublicTraceSource> (*)(const std::string& path,
                                                              const TraceDefaults& defaults,
                                                              std::uint64_t seed);
  std::string_view name;
  std::string_view summary;
  Opener open = nullptr;               // native formats
  PublicOpener open_public = nullptr;  // public traces (with per-reason skip counts)
  // Lines before the first job when every further non-blank line is one job (for the
  // progress estimate), or -1 when jobs cannot be counted by lines (public traces).
  int header_lines = -1;
};

// The table, in listing order: native formats first.
const std::vector<TraceFormatInfo>& trace_formats();

std::vector<std::string> all_trace_format_names();

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
