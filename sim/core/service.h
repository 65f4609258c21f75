// What makes an inference job a service: its request arrivals, per-request service time,
// batching, limits and latency objective (docs/services.md "Inference services").
//
// A service is a job of kind inference that carries a ServiceSpec. Unlike other jobs its
// `runtime` is a lifetime: it leaves the GPU `runtime` of wall-clock time after it starts,
// whatever its rate; its rate (sim/core/sharing_model.h) only sets how fast it serves requests.
// Arrival times are measured from the service's first start.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpumux {

struct LlmEndpointSpec;  // sim/llm/llm_endpoint.h

enum class ArrivalKind : std::uint8_t {
  kPoisson,  // at rate_per_s
  kSeries,   // Poisson at a piecewise-constant rate over time (series)
  kTrace,    // at the given request times
};

// A piecewise-constant request rate: `points` are (t_s, rate_per_s), t strictly increasing
// from 0; each rate holds until the next point, the last one forever or, when repeat_s > 0,
// until repeat_s, after which the series starts again.
struct RateSeries {
  std::vector<std::pair<double, double>> points;
  double repeat_s = 0.0;
};

struct ServiceSpec {
  ArrivalKind arrival = ArrivalKind::kPoisson;
  double rate_per_s = 0.0;                             // kPoisson
  std::shared_ptr<const RateSeries> series;            // kSeries
  std::shared_ptr<const std::vector<double>> times_s;  // kTrace: sorted request times, s
  double service_ms = 0.0;  // one request alone on an exclusive GPU (rate 1), > 0
  double slo_ms = 0.0;      // latency objective; 0: none
  int max_batch = 1;        // waiting requests served together, at most this many
  // A batch of b requests takes service_ms * (1 + batch_cost * (b - 1)) at rate 1.
  double batch_cost = 0.1;
  // Share of a request's time alone that is GPU work, (0, 1]; the rest is CPU work (pre- and
  // post-processing, serialisation) that runs before its GPU burst and that no other context
  // on a shared GPU can delay. The slice and block schedules use it (docs/services.md
  // "GPU-busy share"); the fluid rate stretches the whole request.
  double gpu_busy_share = 1.0;
  double timeout_ms = 0.0;  // a request still waiting this long gives up; 0: never
  // Its MPS client's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE as a share, (0, 1]: it holds at most this
  // share of the SMs at once. A client can only lower the server's limit, so under MPS it
  // takes the smaller of this and the model's active_thread_percentage. 0: the model's.
  double mps_thread_fraction = 0.0;
  int max_queue = 0;        // waiting requests beyond this are dropped on arrival; 0: no limit
  // An LLM endpoint (token-level engine, sim/llm/llm_replica.h); null for a plain service. Its
  // load replaces the arrival fields above, and service_ms and max_batch do not apply.
  std::shared_ptr<const LlmEndpointSpec> llm;
  // The endpoint's class (services.by_id / services.default `class`), which per-endpoint bounds
  // and objectives select by (`for class:NAME`); empty: none.
  std::string service_class;

  // A request's GPU burst alone (what another context on a time-sliced or MPS GPU sees of it).
  double request_gpu_burst_us() const { return batch_work_us(1) * gpu_busy_share; }
  // Work of a batch of `b` requests in exclusive-GPU microseconds.
  double batch_work_us(int b) const {
    return service_ms * 1000.0 * (1.0 + batch_cost * static_cast<double>(b - 1));
  }
};

}  // namespace gpumux
