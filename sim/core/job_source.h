// A stream of jobs in non-decreasing submit order. The engine pulls one job ahead, so a trace of
// millions of jobs is never held in memory at once.
#pragma once

#include <cstdint>

#include "sim/core/job.h"

namespace gpumux {

class JobSource {
 public:
  virtual ~JobSource() = default;
  // Fills `job` with the next job and returns true, or returns false at the end of the stream.
  // Throws InputError on a malformed record or a submit time earlier than the previous one.
  virtual bool next(JobSpec& job) = 0;
  // Rows read but not turned into jobs (e.g. blank or comment lines), for the run's report.
  virtual std::uint64_t skipped_rows() const { return 0; }
};

}  // namespace gpumux
