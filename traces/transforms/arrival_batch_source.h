// `trace.arrival_batches`: rewrites every job's submit time to the start of its batch. Jobs are
// ranked by (submit time, job id) (compare_job_ids), rank 0 first; job of rank r arrives at
// floor(r / jobs_per_batch) * every. The batch arrival rule of the Alibaba PAI 2020 simulator
// (its `-r R` option, with every = 60 s).
//
// Streaming: every JobSource yields jobs in non-decreasing submit order (sources reject a row
// earlier than the one before it), so the rank is known once all jobs of one submit time are
// read. Only one such group is held at a time (a trace whose jobs all share one submit time is
// held whole). Jobs leave in rank order, so the rewritten stream is ordered too.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/job_source.h"
#include "sim/base/units.h"

namespace gpumux {

class ArrivalBatchSource : public JobSource {
 public:
  // Preconditions: jobs_per_batch >= 1, every >= 0.
  ArrivalBatchSource(JobSource& inner, std::uint64_t jobs_per_batch, Time every);
  // Throws TimeOverflow when a batch's time would pass kMaxSimulatedUs.
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }

 private:
  // Reads the next group of jobs sharing one submit time into group_, sorted by id.
  bool fill();

  JobSource& inner_;
  std::uint64_t per_batch_;
  Time every_;
  std::vector<JobSpec> group_;
  std::size_t at_ = 0;
  JobSpec ahead_;  // the first job of the next group, when have_ahead_
  bool have_ahead_ = false;
  bool ended_ = false;  // the inner source returned false
  std::uint64_t rank_ = 0;
};

}  // namespace gpumux
