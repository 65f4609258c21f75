// Trace resampling as a seed's randomness (scenario key `trace.resample`): the job list drawn
// anew from the trace, so that runs with different seeds see different workloads and an
// interval across seeds says something about the workload's variability even when every job
// field comes from the trace.
//
// The source reads the whole upstream list first (at most kMaxResampleJobs jobs), then emits
// as many jobs as it read, in non-decreasing submit order:
// - kBootstrap: N draws with replacement, uniform over the N list jobs. A drawn job keeps every
//   field, its submit time included; a list job drawn m times (m >= 1) is emitted m times in a
//   row, as "<id>#1" .. "<id>#m" (every emitted id carries its copy number, so the ids stay
//   distinct whatever the trace's ids look like: the text after the last '#' is the copy
//   number, the text before it the list job's id). Emitted in list order (submit time, then
//   the list's own order for equal submit times), copies of one job by copy number.
// - kArrivalOrder: the list's submit instants are kept and the jobs are shuffled over them (a
//   uniform permutation): the job at list position i takes the submit time of list position
//   i and keeps every other field, its id included.
// Draws come from their own stream of the run's seed: the same scenario and seed give the same
// list, and no other draw (trace defaults, memory profiles, placement) changes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/rng.h"
#include "sim/core/job_source.h"

namespace gpumux {

inline constexpr std::size_t kMaxResampleJobs = 4'000'000;

enum class ResampleMethod : std::uint8_t { kNone, kBootstrap, kArrivalOrder };

// The scenario names of the methods but kNone ("bootstrap", "arrival-order"), in that order.
const std::vector<std::string>& resample_method_names();
// The scenario name of `method`; "none" for kNone.
std::string_view resample_method_name(ResampleMethod method);

class ResamplingSource : public JobSource {
 public:
  // Precondition: method != kNone. `where` names the scenario key in errors.
  ResamplingSource(JobSource& upstream, ResampleMethod method, std::uint64_t seed,
                   std::string where);

  // Throws InputError (at `where`) when the trace has more than kMaxResampleJobs jobs, and
  // what the upstream source throws.
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return upstream_.skipped_rows(); }

  // Valid after the first next(): the jobs read, and how many of them the list emits at least
  // once (bootstrap: about 1 - 1/e of them; arrival-order: all).
  std::size_t list_size() const { return jobs_.size(); }
  std::size_t distinct_jobs() const { return distinct_; }

 private:
  void read_list();
  // Uniform in [0, n) by rejection: the same draws on every standard library. Precondition: n > 0.
  std::uint64_t uniform_index(std::uint64_t n);

  JobSource& upstream_;
  ResampleMethod method_;
  Rng rng_;
  std::string where_;
  bool read_ = false;
  std::vector<JobSpec> jobs_;
  // Bootstrap: copies of each list job; arrival-order: the list job at each position.
  std::vector<std::uint32_t> drawn_;
  std::vector<Time> instants_;  // arrival-order: the list's submit times, in list order
  std::size_t distinct_ = 0;
  std::size_t position_ = 0;  // next list position to emit from
  std::uint32_t copy_ = 0;    // copies of jobs_[position_] emitted (bootstrap)
};

}  // namespace gpumux
