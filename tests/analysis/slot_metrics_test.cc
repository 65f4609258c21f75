// Slot metrics: exact time-weighted values on synthetic signal sequences (a fake model with
// slots, no MIG), and a MIG run end to end.
#include "analysis/metrics/slot_metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "analysis/metrics/metrics_collector.h"
#include "analysis/run/run.h"
#include "analysis/run/summary_table.h"
#include "scenarios/scenario.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "traces/formats/generator.h"

namespace gpumux {
namespace {

constexpr std::int64_t kBigMiB = 20000, kSmallMiB = 10000, kDeviceMiB = 40000;

// Layout 0 splits a GPU into "big" (4 compute slices, 20000 MiB) and two "small" (2 slices,
// 10000 MiB each); layout 1 leaves it whole. A job fits a slot when it is not a gang, its memory
// fits and it requests no other slot name; a whole GPU takes one job whose memory fits it.
class FakeSlotModel : public SharingModel, public SlotLayout {
 public:
  std::string_view name() const override { return "fake-slots"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override {
    return gpu.residents.empty() && job.memory.mib() <= kDeviceMiB;  // used for layout 1 only
  }
  void compute_rates(const GpuView&, std::span<double> rates, GpuLoad& load) const override {
    for (double& r : rates) r = 1.0;
    load = GpuLoad{};
  }
  int layout_count(const DeviceProfile&) const override { return 2; }
  int slot_count(const DeviceProfile&, int layout) const override { return layout == 0 ? 3 : 0; }
  SlotInfo slot_info(const DeviceProfile&, int, int slot) const override {
    return slot == 0 ? SlotInfo{"big", 4, MemoryMiB(kBigMiB)}
                     : SlotInfo{"small", 2, MemoryMiB(kSmallMiB)};
  }
  bool slot_fits(const DeviceProfile& device, int layout, int slot,
                 const JobSpec& job) const override {
    const SlotInfo info = slot_info(device, layout, slot);
    return job.gpus == 1 && job.memory <= info.memory &&
           (job.mig_profile.empty() || job.mig_profile == info.name);
  }
  std::vector<ModelParameter> parameters() const override { return {}; }
  const SlotLayout* slot_layout() const override { return this; }
};

class NoSlotModel : public FakeSlotModel {
 public:
  int slot_count(const DeviceProfile&, int) const override { return 0; }
};

// Splits only in its second layout: has_slots must look at every layout.
class LateSlotModel : public FakeSlotModel {
 public:
  int slot_count(const DeviceProfile&, int layout) const override { return layout == 1 ? 3 : 0; }
};

Cluster two_gpus() {
  DeviceProfile d;
  d.name = "Split";
  d.memory = MemoryMiB(kDeviceMiB);
  d.sms = 80;
  return Cluster({d}, {NodeSpec{"n0", 0, 2, 0, true}});
}

Time at(double s) { return Time::from_seconds(s); }

// Jobs and the cluster together, as the engine would keep them.
struct Harness {
  Cluster cluster = two_gpus();
  FakeSlotModel model;
  SlotMetrics metrics{cluster, model};
  std::vector<std::unique_ptr<ActiveJob>> jobs;

  ActiveJob& arrive(double t, std::int64_t memory_mib) {
    auto j = std::make_unique<ActiveJob>();
    j->spec.id = "j" + std::to_string(jobs.size());
    j->spec.submit = at(t);
    j->spec.memory = MemoryMiB(memory_mib);
    j->ordinal = jobs.size();
    j->phase = JobPhase::kQueued;
    jobs.push_back(std::move(j));
    metrics.on_job_arrived(at(t), *jobs.back());
    return *jobs.back();
  }
  void start(double t, ActiveJob& j, GpuIndex g, int slot) {
    j.phase = JobPhase::kRunning;
    j.gpus = {g};
    cluster.add_resident(g, static_cast<JobSlot>(j.ordinal), j.spec.memory, slot);
    metrics.on_job_started(at(t), j);
    metrics.on_gpu_changed(at(t), g, cluster.gpu(g));
  }
  void leave(ActiveJob& j) {
    for (GpuIndex g : j.gpus) {
      cluster.remove_resident(g, static_cast<JobSlot>(j.ordinal), j.spec.memory);
    }
  }
  void finish(double t, ActiveJob& j) {
    leave(j);
    j.phase = JobPhase::kFree;
    metrics.on_job_finished(at(t), j);
    for (GpuIndex g : j.gpus) metrics.on_gpu_changed(at(t), g, cluster.gpu(g));
  }
  void kill(double t, ActiveJob& j, bool fails) {
    leave(j);
    metrics.on_job_killed(at(t), j, 0.0);
    if (fails) metrics.on_job_failed(at(t), j);
    for (GpuIndex g : j.gpus) metrics.on_gpu_changed(at(t), g, cluster.gpu(g));
    j.gpus.clear();
  }
};

double get(const nlohmann::json& j, const char* key) { return j[key].get<double>(); }

// Plays the sequence described below (two split GPUs, jobs A-D, a drain and a repartition).
void play_two_gpu_sequence(Harness& h) {
  ActiveJob& a = h.arrive(0, 15000);
  h.start(0, a, 0, 0);
  ActiveJob& c = h.arrive(0, 15000);
  h.start(0, c, 1, 0);
  ActiveJob& b = h.arrive(10, 15000);
  ActiveJob& d = h.arrive(20, 5000);
  h.finish(30, a);
  h.start(30, b, 0, 0);
  h.start(30, d, 0, 1);
  h.cluster.set_available(1, false);
  h.metrics.on_gpu_drain_started(at(40), 1);
  h.finish(50, c);
  h.cluster.gpu(1).layout = 1;
  h.cluster.set_available(1, true);
  h.metrics.on_gpu_reconfigured(at(60), 1, at(10), at(10));
  h.metrics.on_gpu_changed(at(60), 1, h.cluster.gpu(1));
  h.metrics.on_run_end(at(80), {});
}

// Two split GPUs. A (big) runs on GPU 0 and C (big) on GPU 1 from 0; B (big) queues at 10 and
// finds only small slots free; D (small) queues at 20; at 30 A leaves and B, D start on GPU 0;
// GPU 1 drains from 40, C leaves at 50, and GPU 1 comes back whole at 60; the run ends at 80.
//
// Slices of split GPUs, by interval (total / busy / free / unavailable / fragmented):
//   [0,10) 16/8/8/0/0 (queue empty)   [10,20) 16/8/8/0/8 (B fits no free slot)
//   [20,30) 16/8/8/0/0 (D fits them)  [30,40) 16/10/6/0/0   [40,50) 16/10/2/4/0
//   [50,60) 16/6/2/8/0                [60,80) 8/6/2/0/0 (GPU 1 whole)
// Integrals: total 1120, busy 620, free 380, unavailable 120, fragmented 80.
TEST(SlotMetrics, TimeWeightedSharesFragmentationAndFitBlockedFromHandCalculation) {
  Harness h;
  play_two_gpu_sequence(h);

  const nlohmann::json m = h.metrics.metrics();
  EXPECT_DOUBLE_EQ(get(m, "slice_utilization"), 620.0 / 1120);
  EXPECT_DOUBLE_EQ(get(m, "free_slice_share"), 380.0 / 1120);
  EXPECT_DOUBLE_EQ(get(m, "unavailable_slice_share"), 120.0 / 1120);
  EXPECT_DOUBLE_EQ(get(m, "fragmentation"), 80.0 / 1120);
  // Memory of busy slots: 40000 x 30 + 50000 x 20 + 30000 x 30, of 80000 x 60 + 40000 x 20.
  EXPECT_DOUBLE_EQ(get(m, "memory_allocation_share"), 3.1e6 / 5.6e6);
  EXPECT_DOUBLE_EQ(get(m, "mean_split_gpus"), (2.0 * 60 + 20) / 80);
  EXPECT_DOUBLE_EQ(get(m, "slice_hours"), 1120.0 / 3600);
  const auto& big = m["profiles"]["big"];
  EXPECT_DOUBLE_EQ(get(big, "mean_instances"), 140.0 / 80);
  EXPECT_DOUBLE_EQ(get(big, "mean_busy"), 130.0 / 80);  // 2 until 50, then 1
  EXPECT_DOUBLE_EQ(get(big, "occupancy"), 130.0 / 140);
  const auto& small = m["profiles"]["small"];
  EXPECT_DOUBLE_EQ(get(small, "mean_instances"), 280.0 / 80);
  EXPECT_DOUBLE_EQ(get(small, "mean_busy"), 50.0 / 80);  // D from 30
  EXPECT_DOUBLE_EQ(get(small, "occupancy"), 50.0 / 280);
  // B waited 10-30 with only small slots free; D always had a fitting slot.
  EXPECT_EQ(m["fit_blocked"]["jobs"].get<int>(), 1);
  EXPECT_DOUBLE_EQ(get(m["fit_blocked"], "wait_job_hours"), 20.0 / 3600);
  EXPECT_TRUE(m["rejected_by_reason"].empty());
}

// The same sequence sampled every 10 s into slot_timeseries.csv: each row is the state after
// every event at its time (the intervals of the hand calculation above), the last at the end.
TEST(SlotMetrics, TimeseriesRowsFollowTheHandCalculation) {
  Harness h;
  std::ostringstream series;
  h.metrics.write_timeseries(&series, at(10));
  play_two_gpu_sequence(h);
  EXPECT_EQ(series.str(),
            "time_s,split_gpus,slices,busy_slices,free_slices,unavailable_slices,"
            "fragmented_slices,slice_utilization,fit_blocked_jobs\n"
            "0,2,16,8,8,0,0,0.5,0\n"
            "10,2,16,8,8,0,8,0.5,1\n"   // B fits no free slot
            "20,2,16,8,8,0,0,0.5,1\n"   // D fits the small ones; B still waits
            "30,2,16,10,6,0,0,0.625,0\n"
            "40,2,16,10,2,4,0,0.625,0\n"  // GPU 1 drains
            "50,2,16,6,2,8,0,0.375,0\n"
            "60,1,8,6,2,0,0,0.75,0\n"  // GPU 1 whole again
            "70,1,8,6,2,0,0,0.75,0\n"
            "80,1,8,6,2,0,0,0.75,0\n");
}

TEST(SlotMetrics, TimeseriesLeavesUtilizationEmptyWhileNoGpuIsSplitAndStopsAtTheRowCap) {
  Harness h;
  h.cluster.gpu(0).layout = 1;
  h.cluster.gpu(1).layout = 1;
  std::ostringstream series;
  h.metrics.write_timeseries(&series, at(5));
  h.arrive(0, 30000);
  h.metrics.on_run_end(at(5), {});
  EXPECT_NE(series.str().find("\n0,0,0,0,0,0,0,,0\n5,0,0,0,0,0,0,,0\n"), std::string::npos)
      << series.str();

  Harness big;
  std::ostringstream rows;
  big.metrics.write_timeseries(&rows, Time::from_seconds(1e-3));
  big.arrive(0, 1000);
  EXPECT_THROW(big.metrics.on_run_end(at(10000), {}), TimeseriesTooLong);
  // Nothing past the header was written: the check comes before the rows.
  const std::string written = rows.str();
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 1);
}

// GPU 0 split, GPU 1 whole. X (30000 MiB: no slot holds it) runs whole 0-10, is killed and
// waits until the end; Y (30000 MiB) waits 0-15 and then runs whole; Z (small) runs 5-8 and
// fails; R is rejected. Y is fit-blocked 0-10 (slots free, the whole GPU busy), not 10-15 (the
// whole GPU is empty); X 15-30. Every free slice is fragmented while the queue holds only
// 30000-MiB jobs: slices 8 x 30 = 240, Z holds 2 of them 5-8.
TEST(SlotMetrics, WholeGpusKillsFailuresRejectionsAndJobsLeftQueued) {
  Harness h;
  h.cluster.gpu(1).layout = 1;
  ActiveJob& r = h.arrive(0, 1);
  h.metrics.on_job_rejected(at(0), r, "too big");
  ActiveJob& x = h.arrive(0, 30000);
  h.start(0, x, 1, 0);
  ActiveJob& y = h.arrive(0, 30000);
  ActiveJob& z = h.arrive(5, 5000);
  h.start(5, z, 0, 2);
  h.kill(8, z, /*fails=*/true);
  h.kill(10, x, /*fails=*/false);
  h.start(15, y, 1, 0);
  const ActiveJob* left[] = {&x, &y};
  h.metrics.on_run_end(at(30), left);

  const nlohmann::json m = h.metrics.metrics();
  EXPECT_EQ(m["rejected_by_reason"], (nlohmann::json{{"too big", 1}}));
  EXPECT_EQ(m["fit_blocked"]["jobs"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(get(m["fit_blocked"], "wait_job_hours"), (10.0 + 15.0) / 3600);
  EXPECT_DOUBLE_EQ(get(m, "slice_utilization"), 6.0 / 240);
  EXPECT_DOUBLE_EQ(get(m, "fragmentation"), 234.0 / 240);
  EXPECT_DOUBLE_EQ(get(m, "free_slice_share"), 234.0 / 240);
  EXPECT_DOUBLE_EQ(get(m, "mean_split_gpus"), 1.0);
}

// A job counts once however often it waits fit-blocked; waiting with a fitting slot free (behind
// the queue's head) is not fit-blocked. Big jobs B and E and small S queue at 0 with both big
// slots taken: B and E are fit-blocked 0-10, S never is. B starts at 10 (E blocked 10-20), is
// killed at 20 when E takes its slot, and waits blocked again until 25.
TEST(SlotMetrics, CountsDistinctJobsAndOnlyWaitsWithoutAFittingFreeSlot) {
  Harness h;
  ActiveJob& a = h.arrive(0, 15000);
  h.start(0, a, 0, 0);
  ActiveJob& c = h.arrive(0, 15000);
  h.start(0, c, 1, 0);
  ActiveJob& b = h.arrive(0, 15000);
  ActiveJob& e = h.arrive(0, 15000);
  ActiveJob& s = h.arrive(0, 5000);
  h.finish(10, a);
  h.start(10, b, 0, 0);
  h.kill(20, b, /*fails=*/false);
  h.start(20, e, 0, 0);
  h.finish(25, c);
  h.start(25, b, 1, 0);
  h.start(30, s, 1, 1);
  h.metrics.on_run_end(at(40), {});
  const nlohmann::json m = h.metrics.metrics();
  EXPECT_EQ(m["fit_blocked"]["jobs"].get<int>(), 2);  // B once, E
  EXPECT_DOUBLE_EQ(get(m["fit_blocked"], "wait_job_hours"), (2 * 10.0 + 10 + 5) / 3600);
}

TEST(SlotMetrics, HasSlotsLooksAtEveryLayout) {
  const Cluster cluster = two_gpus();
  EXPECT_TRUE(has_slots(cluster, FakeSlotModel{}));
  EXPECT_TRUE(has_slots(cluster, LateSlotModel{}));
  EXPECT_FALSE(has_slots(cluster, NoSlotModel{}));
}

std::filesystem::path source_dir() {
  const char* d = std::getenv("GPUMUX_SOURCE_DIR");
  return d ? std::filesystem::path(d) : std::filesystem::current_path();
}

Scenario example(const std::string& file, std::vector<std::string> sets = {}) {
  ScenarioOverrides o;
  o.sets = std::move(sets);
  return load_scenario((source_dir() / "scenarios/examples" / file).string(), o);
}

void expect_consistent_slots(const nlohmann::json& slots) {
  for (const char* key : {"slice_utilization", "memory_allocation_share", "free_slice_share",
                          "unavailable_slice_share", "fragmentation"}) {
    EXPECT_GE(get(slots, key), 0.0) << key;
    EXPECT_LE(get(slots, key), 1.0) << key;
  }
  EXPECT_NEAR(get(slots, "slice_utilization") + get(slots, "free_slice_share") +
                  get(slots, "unavailable_slice_share"),
              1.0, 1e-9);
  EXPECT_LE(get(slots, "fragmentation"), get(slots, "free_slice_share") + 1e-12);
  EXPECT_LE(get(slots, "fragmentation"), 1.0 - get(slots, "slice_utilization") + 1e-12);
  for (const auto& [name, p] : slots["profiles"].items()) {
    // A profile never instantiated has no occupancy (n/a), not 0.
    EXPECT_EQ(p["occupancy"].is_null(), get(p, "mean_instances") == 0.0) << name;
    if (p["occupancy"].is_null()) continue;
    EXPECT_GE(get(p, "occupancy"), 0.0) << name;
    EXPECT_LE(get(p, "occupancy"), 1.0) << name;
    EXPECT_LE(get(p, "mean_busy"), get(p, "mean_instances") + 1e-9) << name;
  }
}

TEST(SlotMetrics, MixedMigFleetEndToEnd) {
  RunOptions options;
  options.write_outputs = false;
  const Scenario s = example("mig_mixed.json", {"trace.generator.jobs=500"});
  const RunReport r = run_scenario(s, options);
  const auto& slots = r.summary["metrics"]["slots"];
  expect_consistent_slots(slots);
  EXPECT_GT(get(slots, "slice_utilization"), 0.0);
  EXPECT_DOUBLE_EQ(get(slots, "mean_split_gpus"), 16.0);  // static layout on the A100-40GB
  EXPECT_DOUBLE_EQ(get(slots, "unavailable_slice_share"), 0.0);
  EXPECT_DOUBLE_EQ(get(slots["profiles"]["1g.5gb"], "mean_instances"), 32.0);
  EXPECT_DOUBLE_EQ(get(slots["profiles"]["3g.20gb"], "mean_instances"), 16.0);
  // 30-GiB and gang jobs wait for the whole A100-80GB GPUs: fit-blocked while slots sit free.
  EXPECT_GT(slots["fit_blocked"]["jobs"].get<int>(), 0);
  std::ostringstream table;
  print_summary_table(s, r, table);
  EXPECT_NE(table.str().find("slice fragmentation"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("slot occupancy"), std::string::npos) << table.str();
}

TEST(SlotMetrics, RepartitioningEndToEndCountsDrainingSlicesAsUnavailable) {
  RunOptions options;
  options.write_outputs = false;
  const Scenario s = example("mig_miso_compare.json", {"trace.generator.jobs=800"});
  const RunReport r = run_scenario(s, options);
  const auto& m = r.summary["metrics"];
  expect_consistent_slots(m["slots"]);
  ASSERT_GT(m["reconfigurations"]["count"].get<int>(), 0);
  EXPECT_GT(get(m["slots"], "unavailable_slice_share"), 0.0);
  std::ostringstream table;
  print_summary_table(s, r, table);
  EXPECT_NE(table.str().find("reconfigurations"), std::string::npos) << table.str();
}

TEST(SlotMetrics, NoSlotsSectionWithoutSlots) {
  RunOptions options;
  options.write_outputs = false;
  const RunReport r = run_scenario(example("quickstart.json"), options);
  EXPECT_FALSE(r.summary["metrics"].contains("slots"));
}

// Overhead of the observer: the same runs with and without it, in one process. Not part of the
// suite (timing); run with
//   analysis_test --gtest_also_run_disabled_tests --gtest_filter='*Overhead*'
// GPUMUX_SLOT_BENCH_SCALE (default 10) multiplies the scaled run's nodes, jobs and arrival rate;
// GPUMUX_SLOT_BENCH_REPS (default 3) sets the repetitions (alternated; the best of each is kept).
double engine_seconds(const Scenario& s, bool with_slots, std::uint64_t& events) {
  GeneratedJobs source(s.trace.generator, s.seed);
  Cluster cluster(s.devices, s.nodes);
  Scheduler scheduler(s.queue->name, make_placement_policy(s.placement->name), s.backfill_depth);
  testing::CheckedEngine engine(cluster, *s.model, scheduler, source,
                EngineOptions{s.horizon, s.retry_limit, s.retry_delay});
  MetricsCollector metrics(cluster.gpu_count(), s.outputs.timeseries_interval, nullptr, nullptr);
  engine.add_observer(&metrics);
  SlotMetrics slots(cluster, *s.model);
  if (with_slots) engine.add_observer(&slots);
  // Processor time, not wall time: less sensitive to other work on the machine.
  const std::clock_t t0 = std::clock();
  events = engine.run().events;
  return static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
}

TEST(SlotMetricsOverhead, DISABLED_MisoCompareWithAndWithout) {
  const char* env = std::getenv("GPUMUX_SLOT_BENCH_SCALE");
  const int k = env ? std::atoi(env) : 10;
  const char* reps_env = std::getenv("GPUMUX_SLOT_BENCH_REPS");
  const int reps = reps_env ? std::atoi(reps_env) : 3;
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"mig_miso_compare", {}},
      {"mig_miso_compare x" + std::to_string(k),
       {"cluster.node_groups.0.nodes=" + std::to_string(2 * k),
        "trace.generator.jobs=" + std::to_string(3000 * k),
        "trace.generator.arrival.rate_per_hour=" + std::to_string(45 * k)}},
  };
  for (const auto& [label, sets] : runs) {
    const Scenario s = example("mig_miso_compare.json", sets);
    double best_with = 1e30, best_without = 1e30;
    std::uint64_t events = 0;
    for (int rep = 0; rep < reps; ++rep) {  // alternated, best of each
      best_without = std::min(best_without, engine_seconds(s, false, events));
      best_with = std::min(best_with, engine_seconds(s, true, events));
    }
    std::cout << label << ": " << events << " events, without " << best_without << " s, with "
              << best_with << " s, ratio " << best_with / best_without << "\n";
  }
}

}  // namespace
}  // namespace gpumux
