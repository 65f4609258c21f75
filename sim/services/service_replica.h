// The requests of one service replica (one job carrying a ServiceSpec), simulated lazily: the
// replica is told when its rate changes and catches up to that instant, so requests never
// enter the engine's event queue and a run without services pays nothing.
//
// The replicas of the two service engines (sim/services/registry.h) share this interface:
// - RequestLevelReplica: every request, a FIFO queue; a free server takes up to max_batch
//   waiting requests at once, whose batch work (ServiceSpec::batch_work_us) is progressed at
//   the replica's current rate, or, on a shared GPU with other contexts (set_context), is one
//   burst of the slice schedule (time-slicing, sim/services/slice_schedule.h: it waits for the
//   GPU and then runs at full speed between hand-overs) or of the block schedule (MPS,
//   sim/services/block_schedule.h: its thread blocks take the SMs free beside the others'). A request still waiting timeout_ms after it arrived gives up
//   (timed out); one arriving to max_queue waiting requests is dropped. Latency = finish -
//   arrival.
// - AnalyticReplica: per interval of constant rate and arrival rate, an M/D/1 queue in steady
//   state (docs/services.md "Analytic mode" has the formulas and what it leaves out).
// While the replica is down (killed, waiting to restart) arriving requests are dropped; when
// it is killed its waiting and in-service requests are dropped; when its lifetime ends (or the
// run ends) the requests it still holds are unfinished.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "sim/services/latency_histogram.h"
#include "sim/services/request_arrivals.h"
#include "sim/services/block_schedule.h"
#include "sim/services/slice_schedule.h"
#include "sim/core/service.h"

namespace gpumux {

struct LlmStats;   // sim/llm/llm_stats.h
struct LlmSeries;  // sim/llm/llm_stats.h

// Request outcomes; doubles because the analytic mode counts expected requests.
struct RequestCounts {
  double arrived = 0;
  double served = 0;
  double dropped = 0;
  double timed_out = 0;
  double unfinished = 0;
  double within_slo = 0;  // served within slo_ms (0 when the service has no SLO)

  void merge(const RequestCounts& o) {
    arrived += o.arrived;
    served += o.served;
    dropped += o.dropped;
    timed_out += o.timed_out;
    unfinished += o.unfinished;
    within_slo += o.within_slo;
  }
};

class ServiceReplica {
 public:
  virtual ~ServiceReplica() = default;
  // Serves until `t_us` (absolute, non-decreasing) at the current rate, then serves at `rate`
  // ((0, 1]) from there on. The first call after construction or restart() starts serving.
  virtual void set_rate(double t_us, double rate) = 0;
  // From t_us on, the replica's GPU is shared with other contexts as `context` says (empty:
  // requests progress at the rate set_rate gives). Called before set_rate at the same instant;
  // `context` is valid during the call only. The analytic mode keeps the fluid rate.
  virtual void set_context(double /*t_us*/, const ServiceGpuContext& /*context*/) {}
  // Killed at t_us: what it holds is dropped; arrivals are dropped until set_rate again.
  virtual void kill(double t_us) = 0;
  // The replica's lifetime (or the run) ended at t_us: what it holds is unfinished.
  virtual void end(double t_us) = 0;

  const RequestCounts& counts() const { return counts_; }
  const LatencyHistogram& latencies() const { return latencies_; }
  // Token-level measurements of an LLM endpoint (sim/llm/llm_replica.h); null for others.
  virtual const LlmStats* llm_stats() const { return nullptr; }
  // An LLM endpoint's engine per interval of the run's clock, when asked for before it starts
  // (record_series); null for others.
  virtual void record_series(double /*interval_us*/) {}
  virtual const LlmSeries* llm_series() const { return nullptr; }

 protected:
  RequestCounts counts_;
  LatencyHistogram latencies_;
};

class RequestLevelReplica : public ServiceReplica {
 public:
  // `spec` must outlive the replica; arrivals start at origin_us.
  RequestLevelReplica(const ServiceSpec& spec, double origin_us, std::uint64_t seed);
  void set_rate(double t_us, double rate) override;
  void set_context(double t_us, const ServiceGpuContext& context) override;
  void kill(double t_us) override;
  void end(double t_us) override;

 private:
  void advance_to(double t_us);
  void move_to(double t_us);  // progresses the batch in service up to t_us
  void on_arrival(double t_us);
  void expire_waiting(double t_us);
  void start_batch();
  void finish_batch();
  // Resets `schedule` (made on first use from `seed`) to `given` at now_, kept in `kept`.
  template <class Kind, class Context>
  Kind& restart(std::unique_ptr<Kind>& schedule, std::uint64_t seed, Context& kept,
                const Context& given);

  const ServiceSpec& spec_;
  RequestArrivals arrivals_;
  double next_arrival_;
  double now_;
  double rate_ = 0.0;  // 0 while down or ended
  bool ended_ = false;
  std::deque<double> waiting_;  // arrival times, FIFO
  std::vector<double> batch_;   // arrival times of the requests in service
  double work_left_us_ = 0.0;   // exclusive-GPU microseconds of the batch still to do (fluid)
  std::uint64_t seed_;
  // On a shared GPU with others: the schedule in use (one of the two below, null while fluid),
  // the context each was reset to, and the end of the batch in service.
  enum class Schedule : std::uint8_t { kFluid, kSlices, kBlocks };
  static constexpr std::uint64_t kSliceSalt = 0x5bd1e9955bd1e995ULL;
  static constexpr std::uint64_t kBlockSalt = 0xc2b2ae3d27d4eb4fULL;
  Schedule scheduled_ = Schedule::kFluid;
  BurstSchedule* schedule_ = nullptr;
  std::unique_ptr<SliceSchedule> slice_schedule_;
  std::unique_ptr<BlockSchedule> block_schedule_;
  SliceContext slice_context_;
  BlockContext block_context_;
  double batch_end_ = 0.0;
};

class AnalyticReplica : public ServiceReplica {
 public:
  AnalyticReplica(const ServiceSpec& spec, double origin_us, std::uint64_t seed);
  void set_rate(double t_us, double rate) override;
  void kill(double t_us) override;
  void end(double t_us) override;

 private:
  void advance_to(double t_us);
  // Turns the accumulated intervals into counts and latencies (once, at end()).
  void finalize();

  const ServiceSpec& spec_;
  RequestArrivals arrivals_;
  double now_;
  double rate_ = 0.0;
  bool ended_ = false;
  // (service time us, arrival rate per us) -> total time spent at that pair, us.
  std::map<std::pair<double, double>, double> intervals_;
};

// M/D/1 helpers for the analytic mode (exposed for tests). `rho` = arrival rate x service time.
struct MD1 {
  double service_us = 0;
  double rho = 0;
  double mean_wait_us = 0;   // Pollaczek-Khinchine: rho * S / (2 (1 - rho))
  double decay_per_us = 0;   // gamma: rho (e^{gamma S} - 1) = gamma S
  double tail_constant = 0;  // C = (1 - rho) / (rho e^{gamma S} - 1), at most 1
  // P(wait > t) ~ min(rho, C e^{-gamma t}) for t > 0. Precondition: 0 < rho < 1.
  double wait_tail(double t_us) const;
};
MD1 md1(double service_us, double rho);
// With deterministic patience `timeout_us` (a request waits at most that long), the stationary
// waits at or below it keep the shape of the queue without timeouts (level crossing), scaled by
// kappa = 1 / (1 - wait_tail(T) + A); A, returned here, is the unscaled mass of virtual waits
// above T, and kappa * A the share of requests that time out. `per_us`: arrival rate.
double md1_abandon_mass(const MD1& m, double per_us, double timeout_us);

}  // namespace gpumux
