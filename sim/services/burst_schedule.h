// What a request-level service replica asks of a shared GPU's schedule (slice_schedule.h,
// block_schedule.h): when does a burst of its work, ready at a given time, end.
#pragma once

namespace gpumux {

class BurstSchedule {
 public:
  virtual ~BurstSchedule() = default;
  // The service's next burst of `work_us` (microseconds at full speed, alone on an uncapped
  // GPU) becomes ready at t_us (not before the previous burst's end). Returns the time it ends.
  virtual double serve(double t_us, double work_us) = 0;
};

}  // namespace gpumux
