// A stand-in for the GPU in the probe's tests (probe runs and trace replays), and the helpers
// those tests share: a fresh folder and a fake nvidia-cuda-mps-control.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "calibrate/probe/child_processes.h"
#include "calibrate/probe/gpu_backend.h"

namespace gpumux::calibration::testing_fake {

namespace fs = std::filesystem;

constexpr int kSms = 132;
constexpr double kOverheadUs = 10;  // launch + synchronise per kernel

// A GPU without a GPU: loop counts follow from the kernel's period alone (no neighbour
// slows it down, so every speed is 1), with an MPS thread cap stretching kernels that
// need more SMs than the cap leaves into several waves.
class FakeBackend : public GpuBackend {
 public:
  int compute_mode = 0;
  bool fail_query = false;
  double prepare_s = 0;               // pretend context creation takes this long
  std::string expected_device = "0";  // CUDA_VISIBLE_DEVICES a time-slicing child must see
  std::string fault_flag;             // non-empty: MPS faults tear down the other clients

  DeviceInfo query_device(int device) override {
    if (fail_query) throw std::runtime_error("cudaSetDevice failed: cudaErrorNoDevice");
    DeviceInfo d;
    d.cuda_name = "NVIDIA H200";
    d.total_memory_bytes = uint64_t{140} << 30;
    d.sm_count = kSms;
    d.compute_mode = compute_mode;
    d.driver_version = "580.00";
    d.pci_bus_id = "0000:00:0" + std::to_string(device) + ".0";
    return d;
  }
  // Fails unless the child's environment is what the mode needs: an MPS client reaches a
  // running daemon and inherits no CUDA_VISIBLE_DEVICES; any other child sees the chosen GPU
  // and an empty pipe folder (no daemon to join).
  void prepare(int) override {
    const char* pipe = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
    const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
    if (pipe == nullptr) throw std::runtime_error("no private CUDA_MPS_PIPE_DIRECTORY");
    if (fs::exists(std::string(pipe) + "/control")) {
      if (cvd != nullptr) throw std::runtime_error("MPS client with CUDA_VISIBLE_DEVICES");
    } else {
      if (!fs::is_empty(pipe)) throw std::runtime_error("non-MPS pipe folder not empty");
      if (cvd == nullptr || cvd != expected_device) {
        throw std::runtime_error("wrong CUDA_VISIBLE_DEVICES");
      }
    }
    if (prepare_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(prepare_s));
  }
  SoloMeasurement measure_solo(int blocks, double kernel_us, int) override {
    const double k = kernel_us * waves(blocks);
    return {k, k + kOverheadUs};
  }
  LoopCount run_loop(const LoopSpec& spec, const LoopWindow& w) override {
    const double period_s =
        (spec.kernel_us * waves(spec.blocks) + kOverheadUs + spec.gap_us) * 1e-6;
    LoopCount c;
    c.kernels_in_window =
        static_cast<int64_t>(std::floor((w.window_end_s - w.window_begin_s) / period_s));
    c.kernels_total = static_cast<int64_t>(std::floor((w.stop_s - w.start_s) / period_s));
    const double left = w.stop_s - monotonic_s();
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    return c;
  }
  uint64_t free_memory_bytes() override { return uint64_t{40} << 30; }
  std::string try_allocate(uint64_t bytes) override {
    return bytes > free_memory_bytes() ? "cudaErrorMemoryAllocation: out of memory" : "";
  }
  std::string launch_faulting_kernel() override {
    // Under MPS a fault reaches every client of the server: the fake tells its neighbours
    // (other processes) through a file they poll while they loop.
    if (!fault_flag.empty() && std::getenv("CUDA_VISIBLE_DEVICES") == nullptr) {
      std::ofstream(fault_flag) << "fault\n";
    }
    return "cudaErrorIllegalAddress: an illegal memory access was encountered";
  }
  // Sleeps through the kernels' periods in real time (replays measure wall-clock JCTs),
  // polling the fault flag every few milliseconds.
  KernelRun run_kernels(const LoopSpec& spec, int64_t kernels, double stop_s) override {
    const double period_s =
        (spec.kernel_us * waves(spec.blocks) + kOverheadUs + spec.gap_us) * 1e-6;
    const double begin = monotonic_s();
    KernelRun r;
    while (true) {
      const double now = monotonic_s();
      r.kernels = std::min<int64_t>(kernels, static_cast<int64_t>((now - begin) / period_s));
      if (!fault_flag.empty() && std::filesystem::exists(fault_flag)) {
        r.error = "cudaErrorMpsServerNotReady: MPS server is not ready";
        r.error_at_s = now;
        r.end_s = now;
        return r;
      }
      if (r.kernels >= kernels || now >= stop_s) {
        r.end_s = now;
        return r;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

 private:
  static int waves(int blocks) {
    const char* cap = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    const int sms = cap ? kSms * std::atoi(cap) / 100 : kSms;
    return (blocks + sms - 1) / sms;
  }
};

inline std::string fresh_dir(const std::string& tag) {
  const fs::path p =
      fs::temp_directory_path() / ("gpumux-probe-test-" + std::to_string(::getpid()) + "-" + tag);
  fs::remove_all(p);
  return p.string();
}

// Same stand-in for nvidia-cuda-mps-control as in mps_daemon_test.cc.
inline std::string fake_control(const std::string& dir) {
  fs::create_directories(dir);
  const std::string path = dir + "/fake-mps-control";
  std::ofstream(path)
      << "#!/bin/sh\n"
         "if [ \"$1\" = \"-d\" ]; then touch \"$CUDA_MPS_PIPE_DIRECTORY/control\"; "
         "exit 0; fi\n"
         "read cmd; [ \"$cmd\" = quit ] && rm -f \"$CUDA_MPS_PIPE_DIRECTORY/control\"\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

}  // namespace gpumux::calibration::testing_fake
