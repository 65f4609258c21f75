// The trace format a fuzz_trace_* target reads, and the name of the file it is read from
// (trace_fuzzer.cc is compiled once; each target defines these in a file fuzz/CMakeLists.txt
// generates).
#pragma once

namespace gpumux::fuzz {

extern const char* const kTraceFormat;  // a trace format name, e.g. "philly"
extern const char* const kTraceFile;    // the file name it usually has, e.g. "cluster_job_log"

}  // namespace gpumux::fuzz
