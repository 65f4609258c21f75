// `mps`: jobs share a GPU through NVIDIA's Multi-Process Service. Kernels of all clients run
// concurrently in one server context: no context switches; the SMs are shared (each client
// capped by CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, which reserves nothing) and co-runners slow each
// other through memory bandwidth and caches (`interference`). Rates come from the fast model in
// models/mps/mps_rates.h, validated against the concurrent-kernel reference (bench/validation/mps/RESULTS.md),
// except where the workload catalogue measured the pair on a GPU of two jobs
// (models/colocation_speed.h).
//
// Memory is not isolated (docs/gpu-facts.md "MPS"). Admission (`params.admission`):
// - `peak` (default, safe): the residents' summed peak memory (JobSpec::memory) must fit;
// - `average` (optimistic): admits while the summed average memory fits: the mean of a job's
//   memory profile x its peak when it has one, else memory_admission_fraction x its peak,
//   betting that jobs rarely sit at their peak together (within `memory_headroom`, default 1.0,
//   of the device memory). Actual use does reach the peak, so
//   this is the realistic source of out-of-memory cascades;
// - `replicas`: the Kubernetes device-plugin flavour: up to `replicas` clients per GPU, no
//   memory check; the plugin gives every replica an equal compute share, so the thread
//   percentage defaults to 100 / replicas.
// In every mode the device's MPS client limit (DeviceProfile::mps_client_limit; 48 when the
// profile leaves it 0) caps the residents, and with `one_user_per_server` all residents must
// have the same JobSpec::tenant (one server per user unless it runs as a multi-user server).
//
// Out of memory (`params.oom`, models/oom_policy.h): `allocator` (default, measured on an H200:
// an allocation that does not fit fails for the asking client only, the others run on),
// `offender` (per-client pinned memory limits: a client past its own limit dies alone) or `all`
// (an application that turns out of memory into a fatal fault: every client on the GPU exits and
// the server refuses new clients for `fault_recovery_s` once they have left).
//
// Fatal GPU faults (fatal_fault; their rate is the scenario's `faults`): MPS fault containment
// reports a fatal fault of one client to every client of the server, and all of them exit
// (measured on an H200: ~5 s until they had exited, a new server context ~0.1 s later). Every
// resident of the GPU dies and the GPU refuses new clients for `fault_teardown_s` (default 5)
// + `server_restart_s` (default 0.1) once they have left.
#pragma once

#include <string>
#include <vector>

#include "models/device_overlays.h"
#include "models/mps/mps_params.h"
#include "models/mps/mps_rates.h"
#include "models/oom_policy.h"
#include "models/rate_memo.h"
#include "sim/base/json_fields.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

struct CalibrationKeys;

// The parameters a calibration file's "mps" fit gives (models/calibration_file.h).
const CalibrationKeys& mps_calibration_keys();

enum class MpsAdmission : std::uint8_t { kPeak, kAverage, kReplicas };

class MpsModel : public SharingModel, public RoomBound, public ServiceContexts {
 public:
  // Reads `params` (keys above and in parameters()); throws InputError naming the key.
  explicit MpsModel(JsonObject& params);

  std::string_view name() const override { return "mps"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override;
  // Clients, tenants or replicas: kAdmission; else memory.
  QueueReason refusal(const GpuView& gpu, const JobSpec& job) const override;
  std::optional<QueueReason> room_refusal(double room, const JobSpec& job) const override;
  // Rates of the residents from mps_rates(); useful_busy is the share of time some kernel runs
  // (the duty cycle, comparable with the other models'), overhead is 0 (no context switches).
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override;
  bool uses_colocation_speeds() const override { return true; }
  // Under block allocation (the default): the block schedule a service meets beside the
  // other clients (docs/services.md "Requests under MPS").
  bool block_context(const GpuView& gpu, std::size_t resident, BlockContext& out) const override;
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override;
  // Every client of the GPU's server dies; recovery = fault_teardown_s + server_restart_s.
  void fatal_fault(const GpuView& gpu, std::size_t faulting, std::span<std::uint8_t> killed,
                   Time& recovery) const override;
  std::vector<ModelParameter> parameters() const override { return declared_; }
  const RoomBound* room_bound() const override { return this; }
  const ServiceContexts* service_contexts() const override { return this; }
  bool admits_fractional_jobs() const override { return true; }

  // Placement pruning: room = the device's memory less the residents' summed peak (MiB) while
  // below the client limit (and, replicas, the replica count), else -1; need = the job's peak.
  // Optimistic and replicas admission use 0 for both (only the client count prunes).
  double gpu_room(const GpuView& gpu) const override;
  double job_need(const JobSpec& job) const override;
  // Exact under peak and replicas admission without one_user_per_server (the room is then all
  // that admits checks); optimistic admission and tenants need the full question.
  bool room_decides_admission() const override {
    return admission_ != MpsAdmission::kAverage && !one_user_per_server_;
  }

  MpsAdmission admission() const { return admission_; }
  const MpsParams& rate_params() const { return params_.base(); }
  double active_thread_fraction() const { return active_thread_fraction_; }
  // A client's share of the SMs at once: its service's own mps_thread_fraction where given and
  // lower (a client can only lower the server's limit), else active_thread_fraction().
  double thread_fraction(const JobSpec& job) const;

 private:
  // The rates and load of the fast model (through the memo), before measured pair speeds.
  void model_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const;
  // Memory a job is expected to use on average (optimistic admission).
  double expected_memory_mib(const JobSpec& job) const;
  // The scenario's parameters, and per measured device those with its measurements
  // (models/device_measurements.h) where the scenario's are defaults.
  DeviceOverlays<MpsParams> params_;
  double active_thread_fraction_ = 1.0;
  MpsAdmission admission_ = MpsAdmission::kPeak;
  double memory_admission_fraction_ = 0.6;
  double memory_headroom_ = 1.0;
  mutable std::vector<MemoryMiB> limits_;  // scratch for the offender policy
  std::size_t replicas_ = 4;
  bool one_user_per_server_ = false;
  OomPolicy oom_ = OomPolicy::kAllocator;
  Time recovery_;        // after an out-of-memory `all`
  Time fault_recovery_;  // after a fatal fault: teardown + server restart
  std::vector<ModelParameter> declared_;
  // Scratch for compute_rates, sized up front so that it does not allocate.
  mutable std::vector<MpsJob> jobs_;
  mutable MpsWorkspace workspace_;
  // Rates already computed, by the residents' rate inputs (models/rate_memo.h).
  mutable RateMemo memo_;
};

// Residents allowed when a device profile does not give its MPS client limit (Volta and later).
inline constexpr int kDefaultMpsClientLimit = 48;
// No published figure for how long an MPS server takes to recover after a fault once its
// clients have exited: 30 s is an ASSUMPTION (process teardown and restart); override it.
inline constexpr double kDefaultMpsFaultRecoveryS = 30.0;
// After a fatal fault in one client, measured on an H200 (docs/gpu-facts.md "Measured here"): ~5 s
// until every client had exited, and a new server context ~0.1 s later.
inline constexpr double kDefaultMpsFaultTeardownS = 5.0;
inline constexpr double kDefaultMpsServerRestartS = 0.1;

}  // namespace gpumux
