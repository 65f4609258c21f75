// `gpumux generate --config gen.json --jobs 50`: the synthetic generator's configuration.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  const std::string config = fuzz::write_scratch_file(
      "gen.json", std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz::run_gpumux({"generate", "--config", config, "--jobs", "50", "-o",
                    fuzz::scratch_path("generated.csv")});
  return 0;
}
