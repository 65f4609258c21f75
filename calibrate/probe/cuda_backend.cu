// Spin kernels, their timing and the containment probes, on the CUDA runtime.
//
// The spin kernel is compute-bound and has a fixed length: every thread of a block spins
// until `%globaltimer` (a global nanosecond clock) has advanced by the requested time since
// the block began. Each block takes 1024 threads and more than half of an SM's shared
// memory, so exactly one block fits per SM and `blocks` = SMs used; blocks beyond the free
// SMs wait for a later wave, which is what the probe is meant to see.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/probe/cuda_backend.h"

namespace gpumux::calibration {
namespace {

constexpr int kThreadsPerBlock = 1024;

__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(uint64_t ns, unsigned* sink) {
  extern __shared__ unsigned scratch[];  // sized at launch only to claim the SM
  __shared__ uint64_t begin;
  if (threadIdx.x == 0) begin = global_ns();
  __syncthreads();
  unsigned x = threadIdx.x;
  while (global_ns() - begin < ns) x = x * 1664525u + 1013904223u;
  // A store the compiler cannot drop keeps the loop's arithmetic (compute-bound, not idle).
  if (x == 0xffffffffu) {
    scratch[threadIdx.x] = x;
    sink[0] = scratch[threadIdx.x];
  }
}

__global__ void fault_kernel(int* address) { *address = 1; }

double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + error_text(e));
}

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, a, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return v;
}

// NVML through dlopen: the driver version and clocks when the library is there, nothing
// (and no link dependency) when it is not.
void read_nvml(DeviceInfo& d) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return;
  using Init = int (*)();
  using DriverVersion = int (*)(char*, unsigned);
  using ByPci = int (*)(const char*, void**);
  using Clock = int (*)(void*, int, unsigned*);
  auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<Init>(dlsym(lib, "nvmlShutdown"));
  auto version = reinterpret_cast<DriverVersion>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto by_pci = reinterpret_cast<ByPci>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock = reinterpret_cast<Clock>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  auto max_clock = reinterpret_cast<Clock>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  if (init != nullptr && init() == 0) {
    char buf[96] = {};
    if (version != nullptr && version(buf, sizeof buf) == 0) d.driver_version = buf;
    void* dev = nullptr;
    constexpr int kNvmlClockSm = 1;
    if (by_pci != nullptr && by_pci(d.pci_bus_id.c_str(), &dev) == 0) {
      unsigned mhz = 0;
      if (clock != nullptr && clock(dev, kNvmlClockSm, &mhz) == 0) {
        d.nvml_sm_clock_mhz = static_cast<int>(mhz);
      }
      if (max_clock != nullptr && max_clock(dev, kNvmlClockSm, &mhz) == 0) {
        d.nvml_max_sm_clock_mhz = static_cast<int>(mhz);
      }
    }
    if (shutdown != nullptr) shutdown();
  }
  dlclose(lib);
}

class CudaBackend : public GpuBackend {
 public:
  DeviceInfo query_device(int device) override {
    DeviceInfo d;
    check(cudaSetDevice(device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
    d.cuda_name = prop.name;
    char pci[32] = {};
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, device) == cudaSuccess) d.pci_bus_id = pci;
    d.total_memory_bytes = prop.totalGlobalMem;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) d.free_memory_bytes = free_b;
    d.sm_count = attribute(cudaDevAttrMultiProcessorCount, device);
    d.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, device);
    d.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
    d.compute_mode = attribute(cudaDevAttrComputeMode, device);
    d.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
    d.shared_memory_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
    d.shared_memory_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    d.sm_clock_khz = attribute(cudaDevAttrClockRate, device);
    d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
    cudaDriverGetVersion(&d.driver_api_version);
    cudaRuntimeGetVersion(&d.runtime_version);
    read_nvml(d);
    return d;
  }

  void prepare(int device) override {
    // Spinning in synchronise keeps the launch + wait overhead small and steady (~9 us on an
    // H200), as in the reference measurements.
    // Flags must precede context creation; a runtime that refuses them keeps its default.
    if (cudaSetDeviceFlags(cudaDeviceScheduleSpin) != cudaSuccess) cudaGetLastError();
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaFree(nullptr), "creating the context");
    const int per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
    const int optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    smem_bytes_ = std::min(optin, per_sm / 2 + 1024);
    check(
        cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes_),
        "cudaFuncSetAttribute");
    int per_sm_blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_blocks, spin_kernel,
                                                        kThreadsPerBlock, smem_bytes_),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (per_sm_blocks != 1) {
      throw std::runtime_error("the spin kernel fits " + std::to_string(per_sm_blocks) +
                               " blocks per SM, not 1: SM footprints would be wrong");
    }
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaMalloc(&sink_, sizeof(unsigned)), "cudaMalloc(sink)");
    check(cudaEventCreate(&begin_), "cudaEventCreate");
    check(cudaEventCreate(&end_), "cudaEventCreate");
    for (int i = 0; i < 10; ++i) launch(1, 10);
    check(cudaStreamSynchronize(stream_), "warm-up");
  }

  SoloMeasurement measure_solo(int blocks, double kernel_us, int repeats) override {
    SoloMeasurement m;
    double gpu_ms = 0;
    for (int i = 0; i < repeats; ++i) {
      check(cudaEventRecord(begin_, stream_), "cudaEventRecord");
      launch(blocks, kernel_us);
      check(cudaEventRecord(end_, stream_), "cudaEventRecord");
      check(cudaEventSynchronize(end_), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
      gpu_ms += ms;
    }
    m.kernel_us_measured = gpu_ms * 1000.0 / repeats;
    const double t = now_s();
    for (int i = 0; i < repeats; ++i) {
      launch(blocks, kernel_us);
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    }
    m.period_us = (now_s() - t) * 1e6 / repeats;
    return m;
  }

  LoopCount run_loop(const LoopSpec& spec, const LoopWindow& w) override {
    LoopCount c;
    while (now_s() < w.start_s) {
    }
    const double gap_s = spec.gap_us * 1e-6;
    while (now_s() < w.stop_s) {
      cudaError_t e = launch_unchecked(spec.blocks, spec.kernel_us);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
      const double t = now_s();
      if (e != cudaSuccess) {
        c.error = error_text(e);
        c.error_at_s = t;
        break;
      }
      ++c.kernels_total;
      if (t >= w.window_begin_s && t < w.window_end_s) ++c.kernels_in_window;
      while (now_s() < t + gap_s) {
      }
    }
    return c;
  }

  KernelRun run_kernels(const LoopSpec& spec, int64_t kernels, double stop_s) override {
    KernelRun r;
    const double gap_s = spec.gap_us * 1e-6;
    while (r.kernels < kernels) {
      cudaError_t e = launch_unchecked(spec.blocks, spec.kernel_us);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
      const double t = now_s();
      if (e != cudaSuccess) {
        r.error = error_text(e);
        r.error_at_s = t;
        r.end_s = t;
        return r;
      }
      ++r.kernels;
      r.end_s = t;
      if (t >= stop_s) return r;
      // No gap after the last kernel: the job's work ends with it.
      if (r.kernels < kernels) {
        while (now_s() < t + gap_s) {
        }
      }
    }
    return r;
  }

  uint64_t free_memory_bytes() override {
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    return free_b;
  }

  std::string try_allocate(uint64_t bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky; clear it for later calls
      return error_text(e);
    }
    held_.push_back(p);  // kept until the process exits
    return "";
  }

  std::string launch_faulting_kernel() override {
    // The address comes in as an argument so the compiler cannot see (and trap) it.
    fault_kernel<<<1, 1, 0, stream_>>>(reinterpret_cast<int*>(uintptr_t{0x10}));
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    return e == cudaSuccess ? "" : error_text(e);
  }

 private:
  cudaError_t launch_unchecked(int blocks, double kernel_us) {
    spin_kernel<<<blocks, kThreadsPerBlock, smem_bytes_, stream_>>>(
        static_cast<uint64_t>(kernel_us * 1000.0), sink_);
    return cudaGetLastError();
  }
  void launch(int blocks, double kernel_us) {
    check(launch_unchecked(blocks, kernel_us), "launch");
  }

  int smem_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t begin_ = nullptr;
  cudaEvent_t end_ = nullptr;
  unsigned* sink_ = nullptr;
  std::vector<void*> held_;
};

}  // namespace

std::unique_ptr<GpuBackend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace gpumux::calibration
