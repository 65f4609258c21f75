#include "calibrate/probe/device_naming.h"

#include <cctype>
#include <regex>

namespace gpumux::calibration {
namespace {

// True when `model` appears in `name` as a whole word ("A10" in "NVIDIA A10", not in
// "NVIDIA A100-SXM4-40GB").
bool has_model(const std::string& name, const std::string& model) {
  const std::regex word("(^|[^A-Za-z0-9])" + model + "($|[^A-Za-z0-9])");
  return std::regex_search(name, word);
}

}  // namespace

std::string profile_name(const std::string& cuda_name, uint64_t total_memory_bytes) {
  const double gib = static_cast<double>(total_memory_bytes) / (1024.0 * 1024.0 * 1024.0);
  // Memory splits variants that share a model name; the thresholds sit between the
  // variants' capacities as CUDA reports them (a little under the marketing figure).
  if (has_model(cuda_name, "H200")) return "H200-141GB";
  if (has_model(cuda_name, "B200")) return "B200-180GB";
  if (has_model(cuda_name, "H100") || has_model(cuda_name, "H800")) {
    return gib > 85 ? "H100-94GB" : "H100-80GB";
  }
  if (has_model(cuda_name, "A100") || has_model(cuda_name, "A800")) {
    return gib > 45 ? "A100-80GB" : "A100-40GB";
  }
  if (has_model(cuda_name, "A30")) return "A30-24GB";
  if (has_model(cuda_name, "A10")) return "A10";
  if (has_model(cuda_name, "T4")) return "T4";
  if (has_model(cuda_name, "P100")) return "P100";
  if (has_model(cuda_name, "V100")) return gib > 20 ? "V100M32" : "V100M16";
  std::string raw = cuda_name;
  for (char& c : raw) {
    if (c == ',' || c == '"' || c == '\n' || c == '\r') c = ' ';
  }
  return raw;
}

}  // namespace gpumux::calibration
