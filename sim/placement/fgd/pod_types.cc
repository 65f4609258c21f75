#include "sim/placement/fgd/pod_types.h"

namespace gpumux::packing {

std::string gpu_spec_text(const PodSpec& pod) {
  std::string out;
  for (const auto& m : pod.gpu_spec) {
    if (!out.empty()) out += '|';
    out += m;
  }
  return out;
}

}  // namespace gpumux::packing
