// The CUDA implementation of GpuBackend (cuda_backend.cu). Only gpumux-probe links it; the
// rest of gpumux never needs a CUDA toolkit.
#pragma once

#include <memory>

#include "calibrate/probe/gpu_backend.h"

namespace gpumux::calibration {

std::unique_ptr<GpuBackend> make_cuda_backend();

}  // namespace gpumux::calibration
