// `gpumux pack` over several policies and seeds (`--policy FGD,BestFit --seeds 10`): every
// (policy, seed) run of the workload inflation (packing_sim.h), then per policy and arrived %
// the mean GPU allocation and fragmentation over the seeds with their 95% intervals (Student t,
// analysis/stats/mean_interval.h, cut to [0, 100] %): the FGD study's figure with error bars.
//
// Seeds are seed, seed + 1, ...; runs go on `threads` threads, each result into its own slot, so
// the study and everything written from it do not depend on the thread count.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "packing/openb_csv.h"
#include "packing/packing_sim.h"
#include "sim/placement/fgd/policy.h"

namespace gpumux::packing {

struct PackStudyRequest {
  std::vector<Policy> policies;  // in the order given, none twice
  std::uint64_t seed = 42;       // the first seed
  int seeds = 1;                 // >= 1
  int arrive_to = 130;
  TieBreak tie_break = TieBreak::kNodeOrder;
  int threads = 1;  // >= 1
};

// A percentage over the seeds that have it at one arrived %: mean and 95% interval (low ==
// high == mean with one seed), cut to [0, 100].
struct PackStat {
  std::optional<double> mean;
  double low = 0.0, high = 0.0;
  std::size_t n = 0;  // seeds with a value
  bool clipped = false;
};

struct PackStudyPoint {
  int arrived_pct = 0;
  PackStat alloc_pct, frag_pct;
};

struct PackStudyPolicy {
  Policy policy = Policy::kFgd;
  std::vector<PackResult> runs;       // per seed, in seed order
  std::vector<PackStudyPoint> curve;  // arrived_pct = 0 .. arrive_to
};

struct PackStudy {
  std::vector<std::uint64_t> seeds;
  std::vector<PackStudyPolicy> policies;  // in the request's order
};

// Precondition: `pods` has a GPU pod, `nodes` a GPU (run_pack_command checks both).
PackStudy run_pack_study(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods,
                         const PackStudyRequest& request);

// `policy,arrived_pct,seeds,alloc_pct_mean,alloc_pct_ci95_low,alloc_pct_ci95_high,frag_pct_mean,
// frag_pct_ci95_low,frag_pct_ci95_high`: one row per policy and arrived %, percentages to 2
// decimals, empty where no seed has a value.
std::string pack_study_csv(const PackStudy& study);

// {"seeds", "policies": [{"policy", "runs": [{seed, pods_arrived, pods_failed,
// final_alloc_pct}], "curve": [{arrived_pct, alloc_pct: {mean, ci95_low, ci95_high, n, clipped},
// frag_pct: {...}}]}]}; null where no seed has a value. The caller adds the inputs.
nlohmann::ordered_json pack_study_json(const PackStudy& study);

}  // namespace gpumux::packing
