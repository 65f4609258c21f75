// The scenario parser: `gpumux validate scenario.json --seed 7` (the strict JSON reader, the
// schema, overrides, devices, models' parameters, and the trace's header when it names a file).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = gpumux::fuzz::write_scratch_file(
      "scenario.json", std::string_view(reinterpret_cast<const char*>(data), size));
  gpumux::fuzz::run_gpumux({"validate", path, "--seed", "7"});
  return 0;
}
