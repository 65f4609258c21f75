// Marks every job of an inner source as having fixed kernel and gap lengths
// (JobSpec::fixed_kernel_lengths), for `trace.kernel_lengths: "fixed"`: benchmark loops and the
// calibration probe repeat one kernel and one gap, and the sharing models treat such jobs as
// deterministic (they lock into alternation) instead of exponential.
#pragma once

#include <cstdint>

#include "sim/core/job_source.h"

namespace gpumux {

class FixedKernelSource : public JobSource {
 public:
  explicit FixedKernelSource(JobSource& inner) : inner_(inner) {}
  bool next(JobSpec& job) override {
    if (!inner_.next(job)) return false;
    job.fixed_kernel_lengths = true;
    return true;
  }
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }

 private:
  JobSource& inner_;
};

}  // namespace gpumux
