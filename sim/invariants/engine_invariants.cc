#include "sim/invariants/engine_invariants.h"

#include <algorithm>
#include <string>

#include "sim/invariants/invariant_violation.h"

namespace gpumux {

namespace {

std::string at_time(Time now) { return invariant_time_text(now); }

std::string gpu_where(GpuIndex g, const Cluster& cluster, Time now) {
  return "GPU " + std::to_string(g) + " (" + cluster.device_of(g).name + ", node '" +
         cluster.node(cluster.gpu(g).node).name + "') at " + at_time(now);
}

std::string job_names(const GpuState& gpu, const JobTable& jobs) {
  std::string out;
  for (JobSlot s : gpu.residents) out += (out.empty() ? "'" : ", '") + jobs[s].spec.id + "'";
  return out;
}

}  // namespace

void check_completion_work(const ActiveJob& job, double left_us, double progress_rate, Time now) {
  const double runtime = static_cast<double>(job.spec.runtime.us());
  // Doubles carry the work; a relative 1e-9 covers their rounding on any runtime.
  const double tolerance = 1e-9 * std::max(1.0, runtime) + 1e-6;
  if (left_us > tolerance) {
    throw InvariantViolation("job '" + job.spec.id + "' completed at " + at_time(now) + " with " +
                             std::to_string(left_us) + " us of its " + std::to_string(runtime) +
                             " us of work left (finished early: done + lost != required)");
  }
  // The completion event is rounded up to a whole microsecond: at most one microsecond of
  // progress past the end.
  if (left_us < -progress_rate - tolerance) {
    throw InvariantViolation("job '" + job.spec.id + "' completed at " + at_time(now) + ", " +
                             std::to_string(-left_us / progress_rate) +
                             " us after its work was done (a rate change did not move its "
                             "completion)");
  }
}

void check_gpu_invariants(GpuIndex g, const Cluster& cluster, const JobTable& jobs,
                          const SharingModel& model, Time now) {
  const GpuState& gpu = cluster.gpu(g);
  const DeviceProfile& device = cluster.device_of(g);
  const std::size_t n = gpu.residents.size();
  auto fail = [&](const std::string& what) {
    throw InvariantViolation(gpu_where(g, cluster, now) + ": " + what);
  };
  if (gpu.rates.size() != n || gpu.slots.size() != n || gpu.asked.size() != n) {
    fail("per-resident lists out of step with its " + std::to_string(n) + " residents");
  }
  MemoryMiB sum(0);
  for (std::size_t k = 0; k < n; ++k) {
    const ActiveJob& job = jobs[gpu.residents[k]];
    if (job.phase != JobPhase::kRunning) fail("job '" + job.spec.id + "' is resident, not running");
    if (std::find(job.gpus.begin(), job.gpus.end(), g) == job.gpus.end()) {
      fail("job '" + job.spec.id + "' is resident but does not list the GPU among its own");
    }
    for (std::size_t j = 0; j < k; ++j) {
      if (gpu.residents[j] == gpu.residents[k]) fail("job '" + job.spec.id + "' is resident twice");
    }
    if (job.current_memory < MemoryMiB(0)) {
      fail("job '" + job.spec.id + "' uses negative memory (" +
           std::to_string(job.current_memory.mib()) + " MiB)");
    }
    sum += job.current_memory;
  }
  if (gpu.memory_used != sum) {
    fail("memory in use is " + std::to_string(gpu.memory_used.mib()) +
         " MiB but its residents use " + std::to_string(sum.mib()) + " MiB");
  }
  if (gpu.memory_used > device.memory) {
    fail("jobs " + job_names(gpu, jobs) + " use " + std::to_string(gpu.memory_used.mib()) +
         " MiB of its " + std::to_string(device.memory.mib()) +
         " MiB once out of memory was handled (memory above capacity)");
  }
  if (model.requires_empty_gpu() && n > 1) {
    fail(std::to_string(n) + " jobs (" + job_names(gpu, jobs) +
         ") share it under empty-GPU admission (over-allocation)");
  }
  const int slots = slot_count(model, device, gpu.layout);
  if (slots == 0) return;
  for (std::size_t k = 0; k < n; ++k) {
    const ActiveJob& job = jobs[gpu.residents[k]];
    const int slot = gpu.slots[k];
    if (slot < 0 || slot >= slots) {
      fail("job '" + job.spec.id + "' holds slot " + std::to_string(slot) + " of a layout of " +
           std::to_string(slots) + " slots");
    }
    bool first = true;
    MemoryMiB in_slot(0);
    for (std::size_t j = 0; j < n; ++j) {
      if (gpu.slots[j] != slot) continue;
      if (j < k) first = false;
      in_slot += jobs[gpu.residents[j]].current_memory;
    }
    const SlotInfo info = model.slot_layout()->slot_info(device, gpu.layout, slot);
    if (first && in_slot > info.memory) {
      fail("the jobs of slot " + std::to_string(slot) + " (" + std::string(info.name) +
           ") use " + std::to_string(in_slot.mib()) + " MiB of its " +
           std::to_string(info.memory.mib()) + " MiB (memory above the instance's capacity)");
    }
  }
}

}  // namespace gpumux
