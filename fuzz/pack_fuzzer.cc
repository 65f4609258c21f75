// `gpumux pack`: an openb node list and pod list (separated by a "=====" line), packed with the
// FGD policy up to 20 % of the cluster's GPU capacity, and once more with BestFit.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  const auto parts =
      fuzz::split_files(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  const std::string nodes = fuzz::write_scratch_file("nodes.csv", parts[0]);
  const std::string pods = fuzz::write_scratch_file("pods.csv", parts[1]);
  fuzz::run_gpumux({"pack", "--nodes", nodes, "--pods", pods, "--policy", "FGD", "--arrive-to",
                    "20"});
  fuzz::run_gpumux({"pack", "--nodes", nodes, "--pods", pods, "--policy", "BestFit",
                    "--arrive-to", "20", "--format", "json", "--tie-break", "uniform"});
  return 0;
}
