#include "sim/services/burst_schedule.h"

#include <algorithm>
#include <cmath>

namespace gpumux {

double BurstSchedule::draw(double mean) {
  if (mean <= 0.0) return 0.0;
  if (fixed_) return mean;
  return -mean * std::log1p(-uniform());
}

double BurstSchedule::gap_us(double kernel_us, double sm_util) const {
  return std::max(launch_gap_us_, kernel_us * (1.0 - sm_util) / sm_util);
}

void BurstSchedule::start_frame(double t_us, bool fixed, double launch_gap_us) {
  fixed_ = fixed;
  launch_gap_us_ = launch_gap_us;
  service_free_at_ = t_us;
}

double BurstSchedule::serve(double t_us, double work_us) {
  const double start = std::max(t_us, service_free_at_);
  // An idle stretch longer than the horizon: the others' state no longer depends on what came
  // before it. The service holds nothing here (its last burst ended).
  if (start - now_ > horizon_us_) restart_others(start - horizon_us_);
  run(start, false);
  start_burst(work_us);
  return run(0.0, true);
}

}  // namespace gpumux
