// Request arrivals that drive job 0 of a reference simulator (time-slicing:
// models/timeslice/kernel_reference.h; MPS blocks: models/mps/mps_block_reference.h), so that
// request latencies can be measured where every kernel of the co-runners is simulated.
#pragma once

namespace gpumux {

// Job 0 serves requests instead of alternating kernel/gap cycles (docs/services.md "Requests
// under time-slicing" and "Requests under MPS"): requests arrive as a Poisson process, wait
// first come first served, and a free job 0 serves up to max_batch waiting ones as ONE burst of
// service_us * (1 + batch_cost * (b - 1)) (kernels queued back to back, one synchronisation),
// formed when job 0 becomes ready; the next burst is ready launch_gap_us after a burst ends.
// Job 0's sm_util then only weighs its interference on the others (pass the request load).
struct RequestDriver {
  double rate_per_us = 0.0;  // Poisson arrivals, > 0
  double service_us = 0.0;   // one request alone, > 0
  int max_batch = 1;         // >= 1
  double batch_cost = 0.1;   // >= 0
};

}  // namespace gpumux
