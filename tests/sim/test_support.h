// Small builders shared by the sim tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/exclusive_model.h"
#include "sim/state/cluster.h"
#include "sim/core/job_source.h"

namespace gpumux::testing {

inline DeviceProfile test_device(std::int64_t memory_mib = 16384) {
  DeviceProfile d;
  d.name = "TestGPU";
  d.memory = MemoryMiB(memory_mib);
  d.sms = 80;
  d.mps_client_limit = 48;
  return d;
}

// `nodes` nodes of `gpus` GPUs each, `per_rack` nodes per rack.
inline Cluster make_cluster(int nodes, int gpus, int per_rack = 8, bool nvlink = true) {
  std::vector<NodeSpec> specs;
  for (int n = 0; n < nodes; ++n) {
    specs.push_back(NodeSpec{"n" + std::to_string(n), 0, gpus, n / per_rack, nvlink});
  }
  return Cluster({test_device()}, specs);
}

inline JobSpec job(std::string id, double submit_s, int gpus, double runtime_s) {
  JobSpec j;
  j.id = std::move(id);
  j.submit = Time::from_seconds(submit_s);
  j.gpus = gpus;
  j.runtime = Time::from_seconds(runtime_s);
  return j;
}

// A job holding `cpus` node CPU cores besides its GPUs (0 GPUs: a CPU-only job).
inline JobSpec with_cpus(std::string id, double submit_s, int gpus, double cpus,
                         double runtime_s) {
  JobSpec j = job(std::move(id), submit_s, gpus, runtime_s);
  j.cpus = cpus;
  return j;
}

// A job source over a fixed list (already sorted by submit).
class ListSource : public JobSource {
 public:
  explicit ListSource(std::vector<JobSpec> jobs) : jobs_(std::move(jobs)) {}
  bool next(JobSpec& j) override {
    if (i_ >= jobs_.size()) return false;
    j = jobs_[i_++];
    return true;
  }

 private:
  std::vector<JobSpec> jobs_;
  std::size_t i_ = 0;
};

}  // namespace gpumux::testing

namespace gpumux::testing {

// A sharing model for tests: up to two jobs per GPU if memory fits; each of n residents runs at
// rate 1/n (processor sharing).
class PairModel : public SharingModel {
 public:
  std::string_view name() const override { return "pair"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override {
    return gpu.residents.size() < 2 && gpu.memory_used + job.memory <= gpu.device.memory;
  }
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override {
    const double r = 1.0 / static_cast<double>(gpu.residents.size());
    double busy = 0.0;
    for (std::size_t i = 0; i < rates.size(); ++i) {
      rates[i] = r;
      busy += r * gpu.residents[i]->sm_util;
    }
    load.useful_busy = std::min(1.0, busy);
    load.overhead = 0.0;
  }
  std::vector<ModelParameter> parameters() const override { return {}; }
};

}  // namespace gpumux::testing

#include "models/oom_policy.h"

namespace gpumux::testing {

// Up to `per_gpu` jobs per GPU with no memory check (like Kubernetes time-slicing replicas);
// processor sharing; out of memory handled by an OomPolicy.
class NoMemoryCheckModel : public SharingModel {
 public:
  NoMemoryCheckModel(OomPolicy policy, Time recovery, std::size_t per_gpu = 2)
      : policy_(policy), recovery_(recovery), per_gpu_(per_gpu) {}
  std::string_view name() const override { return "no-memory-check"; }
  bool admits(const GpuView& gpu, const JobSpec&) const override {
    return gpu.residents.size() < per_gpu_;
  }
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override {
    for (auto& r : rates) r = 1.0 / static_cast<double>(rates.size());
    load.useful_busy = 1.0;
    load.overhead = 0.0;
    (void)gpu;
  }
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override {
    return apply_oom_policy(policy_, gpu, recovery_, killed, recovery);
  }
  std::vector<ModelParameter> parameters() const override { return {}; }

 private:
  OomPolicy policy_;
  Time recovery_;
  std::size_t per_gpu_;
};

}  // namespace gpumux::testing
