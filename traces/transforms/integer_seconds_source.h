// `trace.integer_seconds`: whole-second times, as the PAI 2020 simulator reads its trace
// (cluster-trace-gpu-v2020/simulator, utils.py): a submit time is rounded to the nearest second
// (ties to even, Python's round), a runtime is truncated to whole seconds, and a runtime under
// 1 s becomes 1 s (that simulator's "duration == 0" fix). Applied before trace.arrival_batches,
// whose ranking then sees the rounded submit times as that simulator's does.
//
// Rounding keeps a non-decreasing stream non-decreasing, so the output is ordered too.
#pragma once

#include <cstdint>

#include "sim/core/job_source.h"

namespace gpumux {

class IntegerSecondsSource : public JobSource {
 public:
  explicit IntegerSecondsSource(JobSource& inner) : inner_(inner) {}
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }

 private:
  JobSource& inner_;
};

// The rules above, on one job.
void to_integer_seconds(JobSpec& job);

}  // namespace gpumux
