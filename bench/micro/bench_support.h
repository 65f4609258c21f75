// Builders shared by the micro-benchmarks: clusters of a given size, sharing models by name,
// seeded synthetic jobs and a job source that generates them on the fly (so that a run of
// millions of jobs holds none of them in memory, as the trace readers do).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "models/device_registry.h"
#include "models/registry.h"
#include "sim/base/json_fields.h"
#include "sim/core/job_source.h"
#include "sim/state/cluster.h"

namespace gpumux::bench {

// The device every benchmark cluster uses: a built-in profile with a MIG table, so that the same
// cluster serves exclusive, timeslice, mps and mig.
inline const DeviceProfile& bench_device() {
  static const DeviceProfile device =
      DeviceRegistry::with_builtins().get("A100-80GB", "bench_device");
  return device;
}

// `gpus` GPUs (rounded up to whole nodes) on nodes of `gpus_per_node`, 8 nodes per rack.
inline Cluster make_cluster(int gpus, int gpus_per_node = 8,
                            std::optional<double> cpus_per_node = std::nullopt) {
  std::vector<NodeSpec> nodes;
  const int count = (gpus + gpus_per_node - 1) / gpus_per_node;
  for (int n = 0; n < count; ++n) {
    nodes.push_back(
        NodeSpec{"n" + std::to_string(n), 0, gpus_per_node, n / 8, true, cpus_per_node});
  }
  return Cluster({bench_device()}, std::move(nodes));
}

// A sharing model by name with its parameters (JSON text), as a scenario would build it.
inline std::unique_ptr<SharingModel> make_model(const std::string& name,
                                                const std::string& params = "{}") {
  const nlohmann::json value = nlohmann::json::parse(params);
  JsonObject object(value, "bench", "/sharing/params");
  return make_sharing_model(name, object, "bench#/sharing/model");
}

// The balanced MIG layout of an A100-80GB used by the mig benchmarks.
inline constexpr const char* kMigParams =
    R"({"layout": ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]})";

// Jobs shaped like the generator's defaults (docs/scenario-format.md "Synthetic generator"): gang sizes 1/2/4/8
// with weights 0.7/0.1/0.1/0.1, duty cycles and SM shares uniform, memory 2-24 GiB, kernels of
// a few hundred microseconds; runtimes exponential with the given mean. Seeded: every run of a
// benchmark sees the same jobs.
class JobMaker {
 public:
  explicit JobMaker(std::uint64_t seed, double mean_runtime_s = 3600.0, int max_gpus = 8)
      : rng_(seed), runtime_(1.0 / mean_runtime_s), max_gpus_(max_gpus) {}

  JobSpec next(Time submit) {
    JobSpec j;
    j.id = std::to_string(count_++);
    j.submit = submit;
    static constexpr int kSizes[] = {1, 1, 1, 1, 1, 1, 1, 2, 4, 8};
    j.gpus = std::min(max_gpus_, kSizes[pick_(rng_) % 10]);
    j.runtime = Time::from_seconds(std::max(1.0, runtime_(rng_)));
    j.sm_util = 0.1 + 0.9 * unit_(rng_);
    j.sm_share = 0.2 + 0.8 * unit_(rng_);
    static constexpr std::int64_t kMemory[] = {2048, 4096, 8192, 8192, 16384, 24576};
    j.memory = MemoryMiB(kMemory[pick_(rng_) % 6]);
    j.kernel_length = Time::from_us(100 + static_cast<std::int64_t>(900 * unit_(rng_)));
    return j;
  }

 private:
  std::mt19937_64 rng_;
  std::exponential_distribution<double> runtime_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  std::uniform_int_distribution<int> pick_{0, 1 << 20};
  int max_gpus_;
  std::uint64_t count_ = 0;
};

// `count` jobs arriving as a Poisson process of `per_hour` jobs per hour, made on demand.
class GeneratedSource : public JobSource {
 public:
  GeneratedSource(std::uint64_t count, double per_hour, JobMaker maker)
      : left_(count), gap_(per_hour / 3.6e9), rng_(7), maker_(std::move(maker)) {}
  bool next(JobSpec& job) override {
    if (left_ == 0) return false;
    --left_;
    now_us_ += gap_(rng_);
    job = maker_.next(Time::from_us(static_cast<std::int64_t>(now_us_)));
    return true;
  }

 private:
  std::uint64_t left_;
  std::exponential_distribution<double> gap_;  // per microsecond
  std::mt19937_64 rng_;
  JobMaker maker_;
  double now_us_ = 0.0;
};

}  // namespace gpumux::bench
