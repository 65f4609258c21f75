// One trace format's loader (fuzz::kTraceFormat, read from a file named fuzz::kTraceFile; see
// trace_fuzzer.h): opened as a scenario's trace is (traces/formats/trace_opening.h) and read to the
// end, as a run reads it.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "fuzz/trace_fuzzer.h"
#include "traces/formats/trace_opening.h"
#include "sim/base/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  const std::string path = fuzz::write_scratch_file(
      fuzz::kTraceFile, std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    const auto source = open_scenario_trace(path, fuzz::kTraceFormat, TraceDefaults(), 1);
    JobSpec job;
    while (source->next(job)) {
    }
  } catch (const InputError&) {
    // the expected answer to bad input
  } catch (const std::exception& e) {
    fuzz::finding(std::string("not an InputError: ") + e.what());
  }
  return 0;
}
