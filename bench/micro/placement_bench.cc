// One placement decision (PlacementPolicy::place) on clusters of 1,000, 10,000 and 50,000 GPUs
// (8 per node) that are mostly full, for a single-GPU job and an 8-GPU gang, under each sharing
// model. place() changes nothing, so the same decision is timed again and again. The target is a
// cost per decision that grows less than linearly with the cluster (issue "Targets").
//
// The cluster is filled the way a run fills it: seeded jobs placed by the same policy until
// about 90% of the GPU capacity is taken (exclusive: 90% of GPUs; sharing models: an average of
// 1.8 residents per GPU), skipping jobs that fit nowhere (mig takes no gangs) and stopping when
// a thousand in a row fit nowhere.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/micro/bench_support.h"
#include "sim/job_table.h"
#include "sim/placement.h"

namespace gpumux {
namespace {

struct FilledCluster {
  Cluster cluster;
  JobTable jobs;

  FilledCluster(int gpus, const SharingModel& model, PlacementPolicy& placement)
      : cluster(bench::make_cluster(gpus)) {
    GpuViewBuilder views(cluster, jobs);
    auto update_room = [&](GpuIndex g) {
      if (model.has_room_bound()) cluster.set_room(g, model.gpu_room(views.view(g)));
    };
    for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) update_room(g);
    const double per_gpu = model.requires_empty_gpu() ? 0.9 : 1.8;
    const auto target = static_cast<std::size_t>(per_gpu * static_cast<double>(gpus));
    bench::JobMaker maker(3, 3600.0, /*max_gpus=*/8);
    std::vector<GpuIndex> chosen;
    std::size_t placed = 0;  // GPU slots taken
    int misses = 0;          // jobs in a row that fit nowhere (mig takes no gangs)
    while (placed < target && misses < 1000) {
      const JobSlot slot = jobs.acquire();
      jobs[slot].spec = maker.next(Time::zero());
      jobs[slot].phase = JobPhase::kRunning;
      jobs[slot].current_memory = jobs[slot].spec.memory;
      if (!placement.place(cluster, model, views, jobs[slot].spec, chosen)) {
        jobs.release(slot);
        ++misses;
        continue;
      }
      misses = 0;
      for (GpuIndex g : chosen) {
        const int held = model.choose_slot(views.view(g), jobs[slot].spec);
        cluster.add_resident(g, slot, jobs[slot].current_memory, held);
        update_room(g);
      }
      jobs[slot].gpus = chosen;
      placed += chosen.size();
    }
  }
};

void BM_Place(benchmark::State& state, const char* model_name, const char* params,
              const char* policy) {
  const auto model = bench::make_model(model_name, params);
  auto placement = make_placement_policy(policy);
  const FilledCluster filled(static_cast<int>(state.range(0)), *model, *placement);
  JobSpec job = bench::JobMaker(9).next(Time::zero());
  job.gpus = static_cast<int>(state.range(1));
  job.memory = MemoryMiB(8192);
  GpuViewBuilder views(filled.cluster, filled.jobs);
  std::vector<GpuIndex> chosen;
  bool fits = false;
  for (auto _ : state) {
    fits = placement->place(filled.cluster, *model, views, job, chosen);
    benchmark::DoNotOptimize(chosen.data());
  }
  state.counters["fits"] = fits ? 1 : 0;
  state.counters["empty_gpus"] = static_cast<double>(filled.cluster.empty_gpus_total());
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"gpus", "gang"});
  for (int gpus : {1000, 10000, 50000}) {
    for (int gang : {1, 8}) b->Args({gpus, gang});
  }
}

BENCHMARK_CAPTURE(BM_Place, exclusive_first_fit, "exclusive", "{}", "first-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Place, exclusive_best_fit, "exclusive", "{}", "best-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Place, timeslice_first_fit, "timeslice", "{}", "first-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Place, timeslice_best_fit, "timeslice", "{}", "best-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Place, mps_best_fit, "mps", "{}", "best-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_Place, mig_best_fit, "mig", bench::kMigParams, "best-fit")->Apply(sizes);

}  // namespace
}  // namespace gpumux
