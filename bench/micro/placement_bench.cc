// One placement decision (PlacementPolicy::place) on clusters of 1,000, 10,000 and 50,000 GPUs
// (8 per node) that are partly filled, for a single-GPU job and an 8-GPU gang (exclusive,
// timeslice and mps also a 16-GPU gang, which no node holds: the path across nodes), under each
// sharing model. place() changes nothing, so the same decision is timed again and again. The target is a
// cost per decision that grows less than linearly with the cluster (issue "Targets").
//
// The cluster is filled directly, GPU by GPU (placing its jobs one by one would cost far more
// than the decisions timed): under exclusive 90% of the GPUs hold a job; under sharing models
// each GPU takes seeded single-GPU jobs, as long as the model admits them, up to a share of its
// memory drawn uniformly, so that rooms vary from GPU to GPU as in a running cluster.
#include <benchmark/benchmark.h>

#include <optional>
#include <random>
#include <span>
#include <vector>

#include "bench/micro/bench_support.h"
#include "sim/placement/registry.h"
#include "sim/state/job_table.h"

namespace gpumux {
namespace {

struct FilledCluster {
  Cluster cluster;
  JobTable jobs;

  // With `cpus_per_node` > 0 the nodes declare that many cores, and each placed job holds 1-8
  // of them on its node (so that free cores vary from node to node).
  FilledCluster(int gpus, const SharingModel& model, double cpus_per_node = 0.0)
      : cluster(bench::make_cluster(gpus, 8,
                                    cpus_per_node > 0.0 ? std::optional<double>(cpus_per_node)
                                                        : std::nullopt)) {
    GpuViewBuilder views(cluster, jobs);
    bench::JobMaker maker(3);
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
      const bool exclusive = model.requires_empty_gpu();
      if (exclusive && unit(rng) >= 0.9) continue;
      const double fill = unit(rng) * static_cast<double>(cluster.device_of(g).memory.mib());
      while (true) {
        JobSpec spec = maker.next(Time::zero());
        spec.gpus = 1;
        const GpuState& gpu = cluster.gpu(g);
        if (!exclusive && static_cast<double>((gpu.memory_used + spec.memory).mib()) > fill) break;
        if (!model.admits(views.view(g), spec)) break;
        const JobSlot slot = jobs.acquire();
        ActiveJob& job = jobs[slot];
        job.spec = std::move(spec);
        job.phase = JobPhase::kRunning;
        job.current_memory = job.spec.memory;
        job.gpus = {g};
        const int held = choose_slot(model, views.view(g), job.spec);
        cluster.add_resident(g, slot, job.current_memory, held);
        if (cluster.tracks_cpus()) {
          const std::int64_t cpu = static_cast<std::int64_t>(1 + rng() % 8) * 100;
          if (cluster.cpu_free(cluster.gpu(g).node) >= cpu) {
            cluster.take_cpus(std::span<const GpuIndex>(&g, 1), cpu);
          }
        }
        if (exclusive) break;
      }
    }
    for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
      if (const RoomBound* room = model.room_bound())
        cluster.set_room(g, room->gpu_room(views.view(g)));
    }
  }
};

// Times one decision for a gang of state.range(1) GPUs asking for 8 GiB and `cpus` node
// cores, on a cluster of state.range(0) GPUs filled as above (nodes of `cpus_per_node` cores,
// none when 0).
void time_placement(benchmark::State& state, const char* model_name, const char* params,
                    const char* policy, double cpus_per_node, double cpus) {
  const auto model = bench::make_model(model_name, params);
  auto placement = make_placement_policy(policy);
  const FilledCluster filled(static_cast<int>(state.range(0)), *model, cpus_per_node);
  JobSpec job = bench::JobMaker(9).next(Time::zero());
  job.gpus = static_cast<int>(state.range(1));
  job.memory = MemoryMiB(8192);
  job.cpus = cpus;
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

void BM_Place(benchmark::State& state, const char* model_name, const char* params,
              const char* policy) {
  time_placement(state, model_name, params, policy, 0.0, 0.0);
}

// A job asking for 16 node cores on nodes of 8 GPUs and 96 cores (first-fit and best-fit
// through the empty-GPU or room index, each node capped by its free cores).
void BM_PlaceWithCpus(benchmark::State& state, const char* model_name, const char* policy) {
  time_placement(state, model_name, "{}", policy, 96.0, 16.0);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"gpus", "gang"});
  for (int gpus : {1000, 10000, 50000}) {
    for (int gang : {1, 8}) b->Args({gpus, gang});
  }
}

// Gangs of 16 too, which no 8-GPU node holds: the path across nodes.
void sizes_across_nodes(benchmark::internal::Benchmark* b) {
  sizes(b);
  for (int gpus : {1000, 10000, 50000}) b->Args({gpus, 16});
}

BENCHMARK_CAPTURE(BM_Place, exclusive_first_fit, "exclusive", "{}", "first-fit")
    ->Apply(sizes_across_nodes);
BENCHMARK_CAPTURE(BM_Place, exclusive_best_fit, "exclusive", "{}", "best-fit")
    ->Apply(sizes_across_nodes);
BENCHMARK_CAPTURE(BM_Place, timeslice_first_fit, "timeslice", "{}", "first-fit")
    ->Apply(sizes_across_nodes);
BENCHMARK_CAPTURE(BM_Place, timeslice_best_fit, "timeslice", "{}", "best-fit")
    ->Apply(sizes_across_nodes);
BENCHMARK_CAPTURE(BM_Place, mps_best_fit, "mps", "{}", "best-fit")->Apply(sizes_across_nodes);
BENCHMARK_CAPTURE(BM_Place, mig_best_fit, "mig", bench::kMigParams, "best-fit")->Apply(sizes);
// Spread: the least-loaded node that holds the gang (Cluster::nodes_by_load).
BENCHMARK_CAPTURE(BM_Place, exclusive_spread, "exclusive", "{}", "spread")
    ->Apply(sizes_across_nodes);
BENCHMARK_CAPTURE(BM_Place, timeslice_spread, "timeslice", "{}", "spread")
    ->Apply(sizes_across_nodes);
BENCHMARK_CAPTURE(BM_Place, mig_spread, "mig", bench::kMigParams, "spread")->Apply(sizes);
// Jobs asking for node cores.
BENCHMARK_CAPTURE(BM_PlaceWithCpus, exclusive_first_fit, "exclusive", "first-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_PlaceWithCpus, exclusive_best_fit, "exclusive", "best-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_PlaceWithCpus, timeslice_first_fit, "timeslice", "first-fit")->Apply(sizes);
BENCHMARK_CAPTURE(BM_PlaceWithCpus, timeslice_best_fit, "timeslice", "best-fit")->Apply(sizes);

}  // namespace
}  // namespace gpumux
