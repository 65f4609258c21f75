#include "calibrate/probe/overlap_math.h"

#include <algorithm>
#include <cmath>

namespace gpumux::calibration {

int blocks_for_share(double sm_share, int sm_count) {
  const int blocks = static_cast<int>(std::lround(sm_share * sm_count));
  return std::clamp(blocks, 1, std::max(1, sm_count));
}

double gap_us(double kernel_us, double duty) { return kernel_us * (1.0 - duty) / duty; }

double kernels_per_s(int64_t kernels, double window_s) {
  if (!(window_s > 0)) return 0;
  return static_cast<double>(kernels) / window_s;
}

double relative_speed(double rate_together, double rate_alone) {
  if (!(rate_alone > 0)) return -1;
  return rate_together / rate_alone;
}

double alone_duty(double rate_alone, double kernel_us) { return rate_alone * kernel_us * 1e-6; }

double launch_overhead_us(double period_us, double kernel_us_measured) {
  return period_us - kernel_us_measured;
}

}  // namespace gpumux::calibration
