// One scheduling pass (Scheduler::schedule) with 10^5 queued jobs on a full 6,400-GPU cluster:
// the pass the engine makes after every instant with events. The cluster is filled with running
// jobs, the queue with 10^5 more; a first pass starts whatever still fits, and the timed passes
// then find nothing to start (the common case on a loaded cluster: each event frees little).
//
// - greedy: the earliest queued job that fits, again and again (docs/scenario-format.md
// "Scheduling");
// - fifo-backfill: EASY backfilling over the first 64 queued jobs (the default depth) and over
//   the whole queue (backfill_depth 10^6), which the issue measured at 34 s for 20,000 jobs.
// Under exclusive, greedy looks only at gang sizes that fit the empty GPUs; under timeslice a
// GPU with residents may still admit a job, so every queued job is tried.
#include <benchmark/benchmark.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "bench/micro/bench_support.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/scheduler.h"
#include "sim/state/job_table.h"

namespace gpumux {
namespace {

constexpr int kGpus = 6400;
constexpr int kQueued = 100000;

// Starts jobs the way the engine does: residents, rooms, the running list.
class ClusterLauncher : public Launcher {
 public:
  ClusterLauncher(Cluster& cluster, JobTable& jobs, const SharingModel& model,
                  std::vector<JobSlot>& running)
      : cluster_(cluster), jobs_(jobs), model_(model), running_(running), views_(cluster, jobs) {}
  void start(JobSlot slot, std::span<const GpuIndex> gpus) override {
    ActiveJob& job = jobs_[slot];
    job.current_memory = job.spec.memory;
    for (GpuIndex g : gpus) {
      const int held = choose_slot(model_, views_.view(g), job.spec);
      cluster_.add_resident(g, slot, job.current_memory, held);
      update_room(g);
    }
    job.gpus.assign(gpus.begin(), gpus.end());
    job.phase = JobPhase::kRunning;
    // Finishes within a day: the backfill reservation orders the running jobs' ends.
    job.expected_finish = Time::from_seconds(finish_(rng_));
    running_.push_back(slot);
    ++started;
  }
  // The benchmark's jobs all ask for GPUs.
  void start_on_node(JobSlot, NodeIndex) override {
    throw std::logic_error("scheduler_bench: no CPU-only jobs");
  }
  void update_room(GpuIndex g) {
    if (const RoomBound* room = model_.room_bound())
      cluster_.set_room(g, room->gpu_room(views_.view(g)));
  }
  std::size_t started = 0;

 private:
  Cluster& cluster_;
  JobTable& jobs_;
  const SharingModel& model_;
  std::vector<JobSlot>& running_;
  GpuViewBuilder views_;
  std::mt19937_64 rng_{5};
  std::uniform_real_distribution<double> finish_{1.0, 86400.0};
};

void BM_SchedulePass(benchmark::State& state, const char* model_name, std::string_view policy,
                     int depth) {
  const auto model = bench::make_model(model_name);
  Cluster cluster = bench::make_cluster(kGpus);
  JobTable jobs;
  std::vector<JobSlot> running;
  ClusterLauncher launcher(cluster, jobs, *model, running);
  for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) launcher.update_room(g);
  Scheduler scheduler(policy, make_placement_policy("best-fit"), depth);
  bench::JobMaker maker(11);
  // Fill: queue jobs and let passes start them until a pass starts nothing, then queue 10^5.
  std::int64_t submit = 0;
  auto enqueue = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const JobSlot slot = jobs.acquire();
      jobs[slot].spec = maker.next(Time::from_us(++submit));
      jobs[slot].phase = JobPhase::kQueued;
      scheduler.enqueue(slot, jobs);
    }
  };
  const Time now = Time::zero();
  do {
    launcher.started = 0;
    enqueue(1000);
    scheduler.schedule(now, cluster, *model, jobs, running, launcher);
  } while (launcher.started > 0);
  enqueue(kQueued - static_cast<int>(scheduler.queued()));
  scheduler.schedule(now, cluster, *model, jobs, running, launcher);  // starts what fits
  launcher.started = 0;
  for (auto _ : state) scheduler.schedule(now, cluster, *model, jobs, running, launcher);
  if (launcher.started > 0) state.SkipWithError("a timed pass started jobs: not a steady pass");
  state.counters["queued"] = static_cast<double>(scheduler.queued());
  state.counters["empty_gpus"] = static_cast<double>(cluster.empty_gpus_total());
}

BENCHMARK_CAPTURE(BM_SchedulePass, greedy_exclusive, "exclusive", "greedy", 64)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SchedulePass, greedy_timeslice, "timeslice", "greedy", 64)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SchedulePass, backfill64_exclusive, "exclusive", "fifo-backfill", 64)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SchedulePass, backfill_all_exclusive, "exclusive", "fifo-backfill", 1000000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SchedulePass, backfill_all_timeslice, "timeslice", "fifo-backfill", 1000000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpumux
