// The GPU operations the probe needs, behind an interface so that everything around them
// (planning, process sets, MPS control, output files) runs and is tested without a GPU.
//
// Contract for every implementation: methods are called only inside a child process that
// the probe forked (CUDA is not fork-safe, so the parent never touches it); the first call
// initialises the GPU context in that process. Failures throw std::runtime_error whose
// message names the failing call and the driver's error text.
#pragma once

#include <cstdint>
#include <string>

namespace gpumux::calibration {

// What the probe records about the device. Fields that could not be read stay at their
// defaults (0, -1 or empty).
struct DeviceInfo {
  std::string cuda_name;   // cudaDeviceProp::name, e.g. "NVIDIA H200"
  std::string pci_bus_id;  // e.g. "0000:1B:00.0"
  uint64_t total_memory_bytes = 0;
  uint64_t free_memory_bytes = 0;  // at query time
  int sm_count = 0;
  int cc_major = 0;
  int cc_minor = 0;
  int compute_mode = -1;  // cudaComputeMode: 0 default, 1 exclusive thread,
                          // 2 prohibited, 3 exclusive process
  int max_threads_per_sm = 0;
  int shared_memory_per_sm = 0;           // bytes
  int shared_memory_per_block_optin = 0;  // bytes a block may opt in to
  int sm_clock_khz = 0;  // attribute (peak), 0 when the runtime no longer reports it
  int memory_clock_khz = 0;
  int driver_api_version = 0;  // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;     // cudaRuntimeGetVersion
  std::string driver_version;  // NVML (e.g. "580.95.05"), empty without NVML
  int nvml_sm_clock_mhz = -1;  // current SM clock, -1 without NVML
  int nvml_max_sm_clock_mhz = -1;
};

// One spin kernel alone: its measured length and the launch + synchronise overhead.
struct SoloMeasurement {
  double kernel_us_measured = 0;  // mean GPU time of one kernel (CUDA events)
  double period_us = 0;           // mean wall time of one launch + synchronise round
};

// The loop a measured process runs: launch a kernel of `kernel_us` on `blocks` blocks (one
// per SM), wait for it, busy-wait `gap_us` on the CPU, repeat.
struct LoopSpec {
  int blocks = 1;
  double kernel_us = 0;
  double gap_us = 0;
};

// Times are CLOCK_MONOTONIC seconds (shared by all processes of the machine).
struct LoopWindow {
  double start_s = 0;         // begin looping
  double window_begin_s = 0;  // count kernels that complete in [window_begin_s, window_end_s)
  double window_end_s = 0;
  double stop_s = 0;  // stop looping (>= window_end_s, so neighbours stay loaded)
};

struct LoopCount {
  int64_t kernels_in_window = 0;
  int64_t kernels_total = 0;
  std::string error;       // first CUDA error met while looping; the loop stops there
  double error_at_s = -1;  // CLOCK_MONOTONIC seconds of that error, -1 without one
};

// A replayed job's kernels (calibrate/probe/replay_runner.h): how many ran and when the last
// ended, or the first CUDA error met.
struct KernelRun {
  int64_t kernels = 0;
  double end_s = -1;       // CLOCK_MONOTONIC seconds when the last kernel ended (or the stop)
  std::string error;       // first CUDA error; the run stops there
  double error_at_s = -1;  // when it came, -1 without one
};

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;

  virtual DeviceInfo query_device(int device) = 0;
  // Creates the context on `device`, lets the spin kernel use one block per SM (dynamic
  // shared memory above half an SM's) and warms it up.
  virtual void prepare(int device) = 0;
  // Mean over `repeats` kernels of `kernel_us` on `blocks` blocks. Requires prepare().
  virtual SoloMeasurement measure_solo(int blocks, double kernel_us, int repeats) = 0;
  // Runs the loop; a CUDA error ends it and is reported, not thrown. Requires prepare().
  virtual LoopCount run_loop(const LoopSpec& spec, const LoopWindow& window) = 0;
  // Runs the loop until `kernels` kernels have completed, or monotonic_s() passes `stop_s`, or
  // a CUDA error (reported, not thrown). Requires prepare().
  virtual KernelRun run_kernels(const LoopSpec& spec, int64_t kernels, double stop_s) = 0;
  // Free device memory now, in bytes.
  virtual uint64_t free_memory_bytes() = 0;
  // Tries to allocate `bytes` and keeps them until the process ends; returns the error
  // text, empty on success.
  virtual std::string try_allocate(uint64_t bytes) = 0;
  // Launches a kernel that writes to an illegal address and waits for it; returns the error
  // text the runtime reported (a fatal fault leaves this process's context unusable).
  virtual std::string launch_faulting_kernel() = 0;
};

}  // namespace gpumux::calibration
