// The job metrics of a run split by kind of job (summary.json metrics.by_kind), so that a
// mixed run's training JCT is not read through its services' lifetimes: training jobs
// (JobKind::kTraining), batch inference jobs (JobKind::kInference without a service) and
// inference services (JobSpec::service), each with its arrived and finished jobs and the same
// distributions over its finished jobs as the run's (jct_s, queueing_delay_s: for a service the
// delay before it started serving, slowdown). Reported only when jobs of two kinds or more
// arrived: a run of one kind has its numbers at the top level already.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "analysis/stats/quantile_sketch.h"
#include "sim/core/job.h"

namespace gpumux {

class KindMetrics {
 public:
  // The kinds in the order summary.json lists them.
  static constexpr std::array<std::string_view, 3> kNames = {"training", "inference", "services"};

  // Exact percentiles up to `exact_limit` finished jobs per kind (QuantileSketch).
  void set_exact_limit(std::size_t exact_limit);

  void arrived(const JobSpec& job) { ++of(job).arrived; }
  // A finished job: its completion time and queueing delay (s), and its slowdown when its
  // exclusive runtime is positive.
  void finished(const JobSpec& job, double jct_s, double queueing_s);

  // {"training": {...}, "inference": {...}, "services": {...}}, the kinds that arrived only;
  // null when fewer than two kinds arrived.
  nlohmann::json to_json();

 private:
  struct Kind {
    std::uint64_t arrived = 0;
    std::uint64_t finished = 0;
    QuantileSketch jct_s, queueing_delay_s, slowdown;
  };
  static std::size_t index_of(const JobSpec& job) {
    if (job.service) return 2;
    return job.kind == JobKind::kInference ? 1 : 0;
  }
  Kind& of(const JobSpec& job) { return kinds_[index_of(job)]; }

  std::array<Kind, 3> kinds_;
};

}  // namespace gpumux
