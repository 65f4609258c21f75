// A service engine: what simulates the requests of every service replica in a run. The run's
// engine is chosen by the scenario's `services.mode` from the table of service engines
// (sim/services/registry.h), which builds it from its declared parameters; the metrics observer
// (analysis/metrics/service_metrics.h) asks it for one replica per service job and hands each
// replica what its shared GPU looks like as the engine sees it.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "sim/core/service.h"
#include "sim/core/service_gpu_context.h"
#include "sim/services/service_replica.h"

namespace gpumux {

class ServiceEngine {
 public:
  virtual ~ServiceEngine() = default;

  // Its name in the table (echoed as `metrics.requests.mode`).
  virtual std::string_view name() const = 0;
  // A replica of `spec` (which must outlive it) whose arrivals start at origin_us, drawing from
  // its own stream `seed`.
  virtual std::unique_ptr<ServiceReplica> make_replica(const ServiceSpec& spec, double origin_us,
                                                       std::uint64_t seed) const = 0;
  // What a replica is told of its shared GPU (ServiceReplica::set_context): the engine drops
  // the schedules it does not follow, so its replicas progress at the fluid rate there.
  virtual ServiceGpuContext seen(const ServiceGpuContext& context) const { return context; }
  // Whether every request is simulated (its cost grows with the requests): a service then may
  // not expect more requests than scenarios/service_config.cc allows.
  virtual bool simulates_each_request() const = 0;
};

}  // namespace gpumux
