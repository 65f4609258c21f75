// Slots and initial layouts in the engine: the slot a model chooses at placement stays with the
// job (removals of others do not shift it), every view shows it, and each GPU starts in the
// layout the model gives its index in the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::job;

// Three numbered seats per GPU; a job takes the lowest free seat and runs at rate 1. Every
// view must carry one distinct slot per resident, and each resident the seat chosen for it.
class SeatModel : public SharingModel, public SlotLayout {
 public:
  std::string_view name() const override { return "seats"; }
  bool admits(const GpuView& gpu, const JobSpec&) const override {
    check(gpu);
    return gpu.residents.size() < 3;
  }
  int choose_slot(const GpuView& gpu, const JobSpec& job) const override {
    check(gpu);
    for (int seat = 0;; ++seat) {
      if (std::find(gpu.resident_slot.begin(), gpu.resident_slot.end(), seat) ==
          gpu.resident_slot.end()) {
        chosen[job.id] = seat;
        return seat;
      }
    }
  }
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override {
    check(gpu);
    std::fill(rates.begin(), rates.end(), 1.0);
    load = GpuLoad{1.0, 0.0};
  }
  int layout_count(const DeviceProfile&) const override { return 2; }
  int initial_layout(const DeviceProfile&, int index_in_node) const override {
    return bad_layout ? 2 : index_in_node % 2;
  }
  std::vector<ModelParameter> parameters() const override { return {}; }
  const SlotLayout* slot_layout() const override { return this; }

  bool bad_layout = false;
  mutable std::map<std::string, int> chosen;  // job id -> seat given at placement
  mutable int bad_views = 0;

 private:
  void check(const GpuView& gpu) const {
    if (gpu.resident_slot.size() != gpu.residents.size()) {
      ++bad_views;
      return;
    }
    for (std::size_t i = 0; i < gpu.residents.size(); ++i) {
      const auto it = chosen.find(gpu.residents[i]->id);
      if (it == chosen.end() || it->second != gpu.resident_slot[i]) ++bad_views;
      for (std::size_t k = i + 1; k < gpu.resident_slot.size(); ++k) {
        if (gpu.resident_slot[i] == gpu.resident_slot[k]) ++bad_views;
      }
    }
  }
};

TEST(EngineSlots, AJobKeepsItsSlotWhileOthersComeAndGo) {
  Cluster cluster = testing::make_cluster(1, 1);
  SeatModel model;
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  // a, b, c take seats 0, 1, 2; d waits until a ends at 10 and takes seat 0 while b and c stay
  // in 1 and 2; e waits for b (ends at 100) and takes seat 1.
  testing::ListSource source({job("a", 0, 1, 10), job("b", 0, 1, 100), job("c", 5, 1, 100),
                              job("d", 6, 1, 100), job("e", 20, 1, 100)});
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  const EngineStats stats = engine.run();
  EXPECT_EQ(stats.finished, 5u);
  EXPECT_EQ(model.chosen,
            (std::map<std::string, int>{{"a", 0}, {"b", 1}, {"c", 2}, {"d", 0}, {"e", 1}}));
  EXPECT_EQ(model.bad_views, 0) << "every view shows each resident in the seat it was given";
}

TEST(EngineSlots, EachGpuStartsInTheLayoutOfItsIndexInTheNode) {
  Cluster cluster = testing::make_cluster(2, 3);
  SeatModel model;
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  testing::ListSource source({});
  testing::CheckedEngine engine(cluster, model, scheduler, source);
  for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
    EXPECT_EQ(cluster.gpu(g).index_in_node, static_cast<int>(g % 3));
    EXPECT_EQ(cluster.gpu(g).layout, static_cast<int>(g % 3) % 2);
  }
  model.bad_layout = true;
  Cluster other = testing::make_cluster(1, 1);
  EXPECT_THROW(Engine(other, model, scheduler, source), std::logic_error);
}

}  // namespace
}  // namespace gpumux
