// Reconfiguration in the engine: a blocked head makes the model propose a new layout for a
// GPU; the GPU takes no new job while it drains, pays the delay once empty, then serves the
// new layout.
#include <gtest/gtest.h>

#include <map>

#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;

// Two layouts: 0 hosts one training job, 1 hosts one inference job. When the head fits
// nowhere, it asks to switch the first GPU that has the wrong layout and is not busy changing.
class KindLayoutModel : public SharingModel, public SlotLayout, public LayoutChanges {
 public:
  std::string_view name() const override { return "kind-layout"; }
  bool admits(const GpuView& gpu, const JobSpec& j) const override {
    return gpu.residents.empty() && gpu.layout == layout_for(j);
  }
  void compute_rates(const GpuView&, std::span<double> rates, GpuLoad& load) const override {
    for (auto& r : rates) r = 1.0;
    load = GpuLoad{1.0, 0.0};
  }
  int layout_count(const DeviceProfile&) const override { return 2; }
  bool reconfigures() const override { return true; }
  bool plan_reconfiguration(Time, const Cluster& cluster, GpuViewBuilder&, const JobSpec& blocked,
                            std::span<const JobSpec* const>, Reconfiguration& out) const override {
    for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
      const GpuState& gpu = cluster.gpu(g);
      if (gpu.layout != layout_for(blocked) && !gpu.draining && gpu.available) {
        out = Reconfiguration{g, layout_for(blocked), Time::from_seconds(5), MigrationPlan{}};
        return true;
      }
    }
    return false;
  }
  std::vector<ModelParameter> parameters() const override { return {}; }
  const SlotLayout* slot_layout() const override { return this; }
  const LayoutChanges* layout_changes() const override { return this; }

 private:
  static int layout_for(const JobSpec& j) { return j.kind == JobKind::kInference ? 1 : 0; }
};

struct ReconfigurationRecorder : EngineObserver {
  std::map<std::string, double> start, finish;
  std::vector<std::pair<double, double>> reconfigured;  // (time, drain seconds)
  void on_job_started(Time now, const ActiveJob& j) override { start[j.spec.id] = now.seconds(); }
  void on_job_finished(Time now, const ActiveJob& j) override { finish[j.spec.id] = now.seconds(); }
  void on_gpu_reconfigured(Time now, GpuIndex, Time drain, Time delay) override {
    EXPECT_EQ(delay, Time::from_seconds(5));
    reconfigured.emplace_back(now.seconds(), drain.seconds());
  }
};

JobSpec inference(JobSpec j) {
  j.kind = JobKind::kInference;
  return j;
}

TEST(Reconfiguration, DrainsThenPaysTheDelayThenServesTheNewLayout) {
  KindLayoutModel model;
  Cluster cluster = testing::make_cluster(1, 1);
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  // a (training) runs 0-10 on layout 0; b (inference) arrives at 1 and needs layout 1; c
  // (training) arrives at 2 and would fit layout 0 but must not start on the draining GPU.
  testing::ListSource source(
      {job("a", 0, 1, 10), inference(job("b", 1, 1, 10)), job("c", 2, 1, 10)});
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  ReconfigurationRecorder r;
  engine.add_observer(&r);
  const EngineStats stats = engine.run();
  EXPECT_DOUBLE_EQ(r.start["b"], 15);  // drain until 10, then 5 s of reconfiguration
  EXPECT_DOUBLE_EQ(r.start["c"], 30);  // after b (15-25) and a switch back (25-30)
  ASSERT_EQ(r.reconfigured.size(), 2u);
  EXPECT_DOUBLE_EQ(r.reconfigured[0].first, 15);
  EXPECT_DOUBLE_EQ(r.reconfigured[0].second, 9);   // planned at 1, empty at 10
  EXPECT_DOUBLE_EQ(r.reconfigured[1].second, 10);  // planned at 15 for c, b runs until 25
  EXPECT_EQ(stats.reconfigurations, 2u);
  EXPECT_EQ(stats.finished, 3u);
}

TEST(Reconfiguration, AJobNeedingAnotherLayoutIsNotRejected) {
  KindLayoutModel model;
  Cluster cluster = testing::make_cluster(1, 1);
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  testing::ListSource source({inference(job("b", 0, 1, 10))});
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  ReconfigurationRecorder r;
  engine.add_observer(&r);
  const EngineStats stats = engine.run();
  EXPECT_EQ(stats.rejected, 0u);
  EXPECT_DOUBLE_EQ(r.finish["b"], 15);
}

}  // namespace
}  // namespace gpumux
