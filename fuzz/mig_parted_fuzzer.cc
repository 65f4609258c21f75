// mig-parted files as a scenario's mig model reads them: config "fuzz" of mig.yaml resolved on
// a fleet of A100-40GB, A100-80GB, H100, A30 and V100 (no MIG) nodes by `gpumux validate`.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"

namespace {

constexpr std::string_view kScenario = R"({
  "cluster": {"node_groups": [
    {"name": "a", "nodes": 1, "gpus_per_node": 8, "device": "A100-40GB"},
    {"name": "b", "nodes": 1, "gpus_per_node": 4, "device": "A100-80GB"},
    {"name": "h", "nodes": 1, "gpus_per_node": 8, "device": "H100-80GB"},
    {"name": "c", "nodes": 1, "gpus_per_node": 2, "device": "A30-24GB"}]},
  "sharing": {"model": "mig", "params": {"mig_parted": "mig.yaml", "config": "fuzz"}},
  "trace": {"generator": {"jobs": 1}}
})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  fuzz::write_scratch_file("mig.yaml", std::string_view(reinterpret_cast<const char*>(data), size));
  static const std::string scenario = fuzz::write_scratch_file("mig_scenario.json", kScenario);
  fuzz::run_gpumux({"validate", scenario});
  return 0;
}
