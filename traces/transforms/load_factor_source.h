// `trace.load_factor`: the arrival rate scaled by k, as a planner asks "what if arrivals grow
// k-fold": submit times are compressed towards the first one, submit' = first + (submit -
// first) / k, so every gap between consecutive arrivals is divided by k (k = 2 halves them)
// while each job keeps its runtime, size and every other field. k < 1 stretches the trace.
// Applied after inflation and before trace.integer_seconds and trace.arrival_batches, which see
// the compressed times. Inference services' request rates are not scaled (their own section).
//
// Compression keeps a non-decreasing stream non-decreasing, so the output is ordered too.
#pragma once

#include <optional>

#include "sim/core/job_source.h"

namespace gpumux {

class LoadFactorSource : public JobSource {
 public:
  // Precondition: factor > 0.
  LoadFactorSource(JobSource& inner, double factor) : inner_(inner), factor_(factor) {}
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }

 private:
  JobSource& inner_;
  double factor_;
  std::optional<Time> first_;
};

}  // namespace gpumux
