// Request arrivals that drive job 0 of a reference simulator (time-slicing:
// bench/validation/timeslice/lib/kernel_reference.h; MPS blocks: bench/validation/mps/lib/mps_block_reference.h), so that
// request latencies can be measured where every kernel of the co-runners is simulated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

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

// Job 0's requests inside a reference simulator: its own arrival stream (a separate generator,
// so that the others' draws do not depend on the arrivals), the waiting queue and the burst in
// service. Times in microseconds.
class RequestQueue {
 public:
  // Throws std::invalid_argument("<who>: requests.<field> ...") unless the RequestDriver's
  // preconditions hold.
  RequestQueue(const RequestDriver& driver, std::uint64_t seed, const std::string& who);

  double next_arrival() const { return next_arrival_; }
  // The arrival due at next_arrival() happens at `now`: it waits, the next one is drawn.
  void arrive(double now);
  bool empty() const { return waiting_.empty(); }
  // Takes up to max_batch waiting requests (at least one waits) into service; returns the
  // burst's work alone, us.
  double start_burst();
  // The burst ends at `now`: records the latency of each of its requests that arrived at or
  // after `warmup`.
  void finish_burst(double now, double warmup, std::vector<double>& latencies_us);
  // Requests that arrived at or after `warmup` and are still waiting or in service.
  std::int64_t unfinished(double warmup) const;

 private:
  double gap();  // exponential interarrival time, us

  RequestDriver driver_;
  std::mt19937_64 rng_;
  double next_arrival_ = 0.0;
  std::deque<double> waiting_;     // arrival times, first come first served
  std::vector<double> in_service_;  // arrival times of the burst's requests
};

}  // namespace gpumux
