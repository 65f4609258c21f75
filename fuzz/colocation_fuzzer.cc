// `gpumux calibrate pairs check`: measured singles and pairs (separated by a "=====" line),
// predicted by the timeslice model with its default parameters and by the proportional model.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  const auto parts =
      fuzz::split_files(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  const std::string singles = fuzz::write_scratch_file("single.csv", parts[0]);
  const std::string pairs = fuzz::write_scratch_file("pairs.csv", parts[1]);
  fuzz::run_gpumux({"colocation", "predict", "--single", singles, "--pairs", pairs});
  fuzz::run_gpumux({"colocation", "predict", "--single", singles, "--pairs", pairs, "--model",
                    "proportional", "--format", "json"});
  return 0;
}
