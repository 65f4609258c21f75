// The trace formats a scenario may name (trace.format), in one table (registry.cc; a Registry,
// sim/base/registry.h): the native ones (traces/formats/trace_source.h) and the public-trace
// loaders (traces/formats/public/), each with its name, one line of what it reads and its
// opener. `gpumux models`, the scenario validator, the progress estimate and the openers
// (trace_opening.h) read this table; it is the only list of format names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sim/base/registry.h"
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
const Registry<TraceFormatInfo>& trace_formats();

}  // namespace gpumux
