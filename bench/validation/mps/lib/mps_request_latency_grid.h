// Request latency on an MPS GPU: the service replica's block schedule
// (sim/services/block_schedule.h, what cluster runs use) against the block-level MPS reference
// driven by the same kind of request arrivals (mps_block_reference.h, RequestDriver), on the
// grid of docs/services.md "Requests under MPS" (figures in bench/validation/mps/RESULTS.md,
// last section). As for time-slicing (bench/validation/timeslice/lib/request_latency_grid.h), both
// sides apply the same block rules, so the comparison checks the fast side's shortcuts (the
// co-runner simulated only around the service's bursts and restarted after long idle stretches, its
// own random stream, the 1% histogram bins). One service (one request per burst) and one co-runner
// per case, an A100's 108 SMs, interference 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/validation/timeslice/lib/request_latency_grid.h"

namespace gpumux {

struct MpsRequestLatencyCase {
  double service_us = 0;        // one request alone, > 0
  double load = 0;              // arrival rate x service time, in (0, 1)
  double service_sm_share = 1;  // SMs its kernels occupy, (0, 1]
  double other_duty = 1;        // the co-runner's duty cycle alone, (0, 1]
  double other_kernel_us = 0;   // the co-runner's mean kernel, > 0
  double other_sm_share = 1;    // (0, 1]
  bool fixed_lengths = false;   // the co-runner's kernels and gaps fixed, else exponential
  int sms = 108;
};

// Service 0.5 / 5 / 50 ms, load 0.1 / 0.5 / 0.9, service sm_share 0.2 / 1, co-runner duty
// 0.2 / 0.6 / 1 with 0.5 or 20 ms kernels and sm_share 0.6 or 1, fixed or exponential: 432
// cases; `stride` > 1 keeps every stride-th.
std::vector<MpsRequestLatencyCase> mps_request_latency_grid(int stride = 1);
std::string describe(const MpsRequestLatencyCase& c);

// As compare_request_latency (time-slicing): `replications` pooled runs of about `requests`
// arrivals each.
RequestLatencyComparison compare_mps_request_latency(const MpsRequestLatencyCase& c,
                                                     double requests, std::uint64_t seed,
                                                     int replications = 1);

}  // namespace gpumux
