// Loaders for public GPU-cluster traces, each a streaming JobSource with a documented field
// mapping (traces/formats/public/README.md: units, which JobSpec fields come from the trace and which
// from TraceDefaults, skip reasons, sort handling and memory per format).
//
// Every record of the trace becomes a job, or is skipped and counted under a named reason
// (PublicTraceSource::skipped_by_reason), or is malformed and throws InputError naming file:line
// and the field. Jobs come out sorted by submit time. A path ending in ".gz" is read through
// zlib.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "traces/formats/public/public_trace_source.h"
#include "traces/formats/trace_source.h"

namespace gpumux {

// Formats:
//  "pai2020"    Alibaba PAI 2020 tables (no header rows): `path` is a folder holding
//               pai_job_table.csv and pai_task_table.csv, optionally pai_sensor_table.csv
//               (each may be .csv.gz);
//  "pai-sim"    the job CSV the PAI 2020 repository's simulator reads (header row);
//  "dlrm2025"   Alibaba GPU 2025 disaggregated_DLRM_trace.csv;
//  "philly"     Microsoft Philly 2017 cluster_job_log (a JSON array of jobs);
//  "helios"     SenseTime Helios cluster_log.csv;
//  "openb-pods" Alibaba GPU 2023 openb_pod_list_*.csv (the lists with times).
// Returns nullptr for a format it does not know. Throws InputError for a missing file or folder
// or a bad header. `seed` seeds the draws of defaulted fields.
std::unique_ptr<TraceSource> open_public_trace(const std::string& path, const std::string& format,
                                               const TraceDefaults& defaults, std::uint64_t seed);

// The same, typed: the per-reason skip counters are on PublicTraceSource.
std::unique_ptr<PublicTraceSource> open_public_trace_source(const std::string& path,
                                                            const std::string& format,
                                                            const TraceDefaults& defaults,
                                                            std::uint64_t seed);

// The format names above, in that order. These three are defined from the one trace-format
// table (traces/formats/trace_opening.cc).
std::vector<std::string> public_trace_format_names();

}  // namespace gpumux
