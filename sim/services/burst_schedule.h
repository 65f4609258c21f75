// What a request-level service replica asks of a shared GPU's schedule (slice_schedule.h,
// block_schedule.h): when does a burst of its work, ready at a given time, end.
//
// Both schedules simulate the other contexts only around the service's own bursts, and share
// that frame here: the others' kernels and gaps are drawn (fixed or exponential), the service
// leaves at least the launch gap between two bursts, and over an idle stretch longer than the
// schedule's horizon the others restart that long before the burst (their state then no longer
// depends on the past), so a burst costs the events of one burst and one horizon. A schedule
// says how the others restart, how a burst enters and how the GPU runs (restart_others,
// start_burst, run). Times are double microseconds on the replica's clock; deterministic for a
// given seed.
#pragma once

#include <cstdint>

#include "sim/base/rng.h"

namespace gpumux {

class BurstSchedule {
 public:
  explicit BurstSchedule(std::uint64_t seed) : rng_(seed) {}
  virtual ~BurstSchedule() = default;

  // The service's next burst of `work_us` (microseconds at full speed, alone on an uncapped
  // GPU) becomes ready at t_us (not before the previous burst's end). Returns the time it ends.
  double serve(double t_us, double work_us);

  // Idle stretch beyond which the others restart, microseconds.
  double horizon_us() const { return horizon_us_; }

 protected:
  // A length of mean `mean`: the mean itself with fixed lengths, else exponential; 0 when the
  // mean is not positive.
  double draw(double mean);
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  // The mean CPU gap of a context of duty cycle `sm_util` and mean kernel `kernel_us` alone, at
  // least the launch gap (as the references and the rate models take it).
  double gap_us(double kernel_us, double sm_util) const;
  // Starts the frame at t_us (a reset): the service free, the lengths fixed or not, the launch
  // gap as given. The schedule then sets horizon_us_ and restarts the others there.
  void start_frame(double t_us, bool fixed, double launch_gap_us);

  // The others restart at t_us, the service holding nothing; sets now_ = t_us.
  virtual void restart_others(double t_us) = 0;
  // The service's burst of `work_us` becomes ready at now_.
  virtual void start_burst(double work_us) = 0;
  // Runs the schedule until `until_us`, or until the service's burst ends when `until_service`
  // (then returns that time, with service_free_at_ set past it); returns until_us otherwise.
  virtual double run(double until_us, bool until_service) = 0;

  Rng rng_;
  bool fixed_ = false;
  double launch_gap_us_ = 0;
  double horizon_us_ = 0;
  double service_free_at_ = 0;  // earliest start of its next burst (launch gap)
  double now_ = 0;
};

}  // namespace gpumux
