// Calibration files (models/calibration_file.h) as the timeslice and mps models read them from
// a scenario's `sharing.params.calibration`, through `gpumux validate`.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.h"

namespace {

std::string scenario_for(const std::string& model) {
  return R"({"cluster": {"node_groups": [{"name": "g", "nodes": 1, "gpus_per_node": 2, "device": "A100-40GB"}]},
  "sharing": {"model": ")" +
         model + R"(", "params": {"calibration": "cal.json"}},
  "trace": {"generator": {"jobs": 1}}})";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  fuzz::write_scratch_file("cal.json", std::string_view(reinterpret_cast<const char*>(data), size));
  static const std::string timeslice =
      fuzz::write_scratch_file("timeslice.json", scenario_for("timeslice"));
  static const std::string mps = fuzz::write_scratch_file("mps.json", scenario_for("mps"));
  fuzz::run_gpumux({"validate", timeslice});
  fuzz::run_gpumux({"validate", mps});
  return 0;
}
