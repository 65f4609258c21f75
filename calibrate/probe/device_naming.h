// Maps what CUDA reports about a GPU to the name of gpumux's built-in device profile, so
// that measured rows can be fitted against that profile.
#pragma once

#include <cstdint>
#include <string>

namespace gpumux::calibration {

// `cuda_name` as cudaDeviceProp::name ("NVIDIA H200", "NVIDIA A100-SXM4-80GB"), memory in
// bytes. Returns a profile name ("H200-141GB", "A100-80GB", ...) for GPUs with a built-in
// profile, else the raw name with characters that would break a CSV field (',', '"',
// line breaks) replaced by spaces.
std::string profile_name(const std::string& cuda_name, uint64_t total_memory_bytes);

}  // namespace gpumux::calibration
