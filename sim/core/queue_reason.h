// Why the head of the queue could not start: one reason per scheduling pass, recorded by the
// engine (sim/engine/engine.h, EngineObserver::on_queue_changed) so that analysis can attribute
// queued job-seconds to it (analysis/metrics/queue_reason_metrics.h).
//
// The reasons are ordered as the checks a placement makes, from the cluster down to the gang:
// a GPU that fails several checks counts under the first of them in this order, and the head's
// reason is the first check after which fewer GPUs pass than it needs (the placement policy's
// blocked_reason, sim/placement/placement.h). The order is part of the outputs' definition
// (docs/outputs.md "queued_by_reason"): change it and every run's attribution changes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpumux {

enum class QueueReason : std::uint8_t {
  kUnavailable,  // GPUs out of service: recovering from a fault, draining or repartitioning
  kGpus,         // GPUs taken: not empty under exclusive GPUs, no compute share left
  kAdmission,    // the sharing model refuses to co-locate: residents, replicas, clients, tenants
  kMemory,       // GPU memory
  kMigFit,       // no free MIG instance of a profile that fits the job
  kCpuCores,     // the nodes lack the job's CPU cores (or the pool's CPUs)
  kGang,         // enough GPUs pass every check, but not on nodes the placement can group
  kPolicy,       // the head fits, and the queue policy's rule holds it back
};

inline constexpr std::size_t kQueueReasonCount = 8;

// The names outputs use, indexed by the reason's value.
inline constexpr std::array<std::string_view, kQueueReasonCount> kQueueReasonNames = {
    "unavailable", "gpus", "admission", "memory", "mig_fit", "cpu_cores", "gang", "policy"};

inline constexpr std::string_view queue_reason_name(QueueReason r) {
  return kQueueReasonNames[static_cast<std::size_t>(r)];
}

}  // namespace gpumux
