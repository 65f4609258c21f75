// The loader of each public format (one .cc each); public_traces.cc binds them to names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "traces/formats/public/public_trace_source.h"

namespace gpumux::public_traces {

std::unique_ptr<PublicTraceSource> open_pai2020(const std::string& folder,
                                                const TraceDefaults& defaults, std::uint64_t seed);
std::unique_ptr<PublicTraceSource> open_pai_sim(const std::string& path,
                                                const TraceDefaults& defaults, std::uint64_t seed);
std::unique_ptr<PublicTraceSource> open_dlrm2025(const std::string& path,
                                                 const TraceDefaults& defaults, std::uint64_t seed);
std::unique_ptr<PublicTraceSource> open_philly(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed);
std::unique_ptr<PublicTraceSource> open_helios(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed);
std::unique_ptr<PublicTraceSource> open_openb_pods(const std::string& path,
                                                   const TraceDefaults& defaults,
                                                   std::uint64_t seed);

}  // namespace gpumux::public_traces
