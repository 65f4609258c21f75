// Replays a snapshot pod list in time: the FGD study's workload inflation (pods re-sampled
// uniformly with replacement from the list until the arrived GPU request reaches a target
// share of the cluster) turned into arrivals over time (scenario key `trace.inflation`).
//
// The source reads the whole upstream list first (at most kMaxInflationPods jobs), then emits
// `jobs` jobs: each a copy of a uniformly drawn list job (its gang, gpu_milli, runtime clipped
// at `max_runtime` when given, and every other field; id "<id>#<k>", k the arrival's number),
// arriving as a Poisson process whose rate makes the offered load, rate x mean(gpus x gpu_milli
// x runtime), equal to `load` x the cluster's milli-GPU: load 1.0 asks, on average, for every
// GPU of the cluster. Draws come from
// their own seeded stream: the same scenario and seed give the same arrivals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/job_source.h"
#include "sim/base/rng.h"

namespace gpumux {

inline constexpr std::size_t kMaxInflationPods = 4'000'000;

struct InflationConfig {
  double load = 0.0;       // target offered load, share of the cluster's GPU capacity; 0: off
  std::uint64_t jobs = 0;  // arrivals to emit; 0: as many as the list has
  // Re-sampled runtimes are clipped at this (snapshot lifetimes run to the list's whole span,
  // months for openb, so that a short replay never reaches the load); zero: not clipped.
  Time max_runtime;
  // The cluster `load` is a share of, in GPUs; 0: the scenario's own cluster. `gpumux plan`
  // sets it to the scenario's own GPUs so that every probed size replays the same arrivals.
  std::uint64_t cluster_gpus = 0;
};

class InflatingSource : public JobSource {
 public:
  // `cluster_milli` = the cluster's GPUs x 1000. `where` names the scenario key in errors.
  InflatingSource(JobSource& upstream, const InflationConfig& config, std::int64_t cluster_milli,
                  std::uint64_t seed, std::string where);

  // Throws InputError (at `where`) when the list is empty, too long, or asks for no GPU time,
  // and when cluster_milli is 0 (a cluster of CPU pools alone, without cluster_gpus).
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return upstream_.skipped_rows(); }

  // Valid after the first next(): pods in the list and the arrival rate (per second).
  std::size_t list_size() const { return pods_.size(); }
  std::size_t clipped() const { return clipped_; }  // list jobs whose runtime was clipped
  double arrivals_per_s() const { return rate_per_s_; }

 private:
  void read_list();

  JobSource& upstream_;
  InflationConfig config_;
  std::int64_t cluster_milli_;
  Rng rng_;
  std::string where_;
  bool read_ = false;
  std::vector<JobSpec> pods_;
  double rate_per_s_ = 0.0;
  double clock_s_ = 0.0;
  std::uint64_t emitted_ = 0;
  std::size_t clipped_ = 0;
};

}  // namespace gpumux
