// `gpumux calibrate overlap check`: a measured kernel-overlap CSV (the probe's output), every row
// predicted by the models with their default parameters.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = gpumux::fuzz::write_scratch_file(
      "overlap.csv", std::string_view(reinterpret_cast<const char*>(data), size));
  gpumux::fuzz::run_gpumux({"calibrate", "check", path, "--format", "csv"});
  return 0;
}
