// Request latency on a time-sliced GPU: the service replica's slice schedule
// (sim/services/slice_schedule.h, what cluster runs use) against the kernel-level reference
// driven by the same kind of request arrivals (kernel_reference.h, RequestDriver), through the
// grid driver (bench/validation/lib/grid_driver.h), on the grid
// of docs/services.md "Requests under time-slicing" (figures in
// bench/validation/timeslice/RESULTS.md, section 5).
//
// Both sides apply the same slice rules, so what the comparison tests is everything the fast
// side does differently to stay cheap: it simulates the other contexts only around the
// service's bursts, restarts them from random phases after idle stretches longer than its
// horizon, drives them from its own random stream, and reads percentiles from the replica's
// latency histogram (1% bins). One service (one request per burst, no batching) and one
// co-runner per case; interference 0 (the reference's physics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/validation/lib/grid_driver.h"

namespace gpumux {

struct RequestLatencyCase {
  double service_us = 0;       // one request alone, > 0
  double load = 0;             // arrival rate x service time, in (0, 1)
  double other_duty = 1;       // the co-runner's duty cycle alone, (0, 1]
  double other_kernel_us = 0;  // the co-runner's mean kernel, > 0
  double slice_us = 1024;      // > 0
  double switch_us = 50;       // >= 0
  bool fixed_lengths = false;  // the co-runner's kernels and gaps fixed, else exponential
};

// The grid: service 0.5-50 ms, load 0.1-0.9, co-runner duty 0.2-1, co-runner kernel 0.5 and
// 20 ms, slice 1 and 10 ms, fixed and exponential co-runners (288 cases). `stride` > 1 keeps
// every stride-th case (the test's subset).
std::vector<RequestLatencyCase> request_latency_grid(int stride = 1);
std::string describe(const RequestLatencyCase& c);

// Runs both sides `replications` times (seeds seed, seed + 1, ...) for about `requests`
// arrivals each (the window is requests / arrival rate, a tenth more as the reference's
// warm-up) and pools the latencies of the replications: near saturation one window's p99 moves
// by tens of percent with the seed (long busy periods), on both sides alike. Deterministic for
// a given seed.
RequestLatencyComparison compare_request_latency(const RequestLatencyCase& c, double requests,
                                                 std::uint64_t seed, int replications = 1);

}  // namespace gpumux
