// Placement under MIG asks `admits` once per class of GPU (device, layout, instances held;
// SlotLayout::admission_by_slots) instead of once per GPU: the same GPUs must be chosen as when
// every GPU is asked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <tuple>

#include "models/mig/mig_model.h"
#include "sim/placement/registry.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"
#include "tests/mig/mig_test_util.h"

namespace gpumux {
namespace {

// Delegates to a MIG model, counting `admits` calls; `by_slots` false makes placement ask every
// GPU, as for a model that does not promise admission by slots; `by_room` passes on the model's
// room_decides_admission_for (placement from the cluster's room index).
class AskEveryGpu : public SharingModel, public RoomBound, public SlotLayout {
 public:
  AskEveryGpu(const MigModel& inner, bool by_slots, bool by_room = false)
      : inner_(inner), by_slots_(by_slots), by_room_(by_room) {}
  bool room_decides_admission_for(const JobSpec& job) const override {
    return by_room_ && inner_.room_decides_admission_for(job);
  }
  std::string_view name() const override { return inner_.name(); }
  bool admits(const GpuView& gpu, const JobSpec& job) const override {
    ++asked;
    return inner_.admits(gpu, job);
  }
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override {
    inner_.compute_rates(gpu, rates, load);
  }
  std::vector<ModelParameter> parameters() const override { return inner_.parameters(); }
  const RoomBound* room_bound() const override { return this; }
  const SlotLayout* slot_layout() const override { return this; }
  int layout_count(const DeviceProfile& d) const override { return inner_.layout_count(d); }
  double gpu_room(const GpuView& gpu) const override { return inner_.gpu_room(gpu); }
  double job_need(const JobSpec& job) const override { return inner_.job_need(job); }
  bool admission_by_slots() const override { return by_slots_; }
  mutable long asked = 0;

 private:
  const MigModel& inner_;
  bool by_slots_;
  bool by_room_;
};

MigModel mig_model(nlohmann::json params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return MigModel(o);
}

// Sets every GPU's room as the engine does after a change.
void refresh_rooms(Cluster& cluster, const SharingModel& model, GpuViewBuilder& views) {
  for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
    cluster.set_room(g, model.room_bound()->gpu_room(views.view(g)));
  }
}

TEST(MigPlacement, AskingOncePerGpuClassChoosesTheSameGpus) {
  // A100-80GB nodes with a four-instance layout beside T4 nodes (no MIG: a whole GPU each).
  const MigModel mig = mig_model({{"layout", {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}}});
  const std::vector<DeviceProfile> devices = {mig_test::device("A100-80GB"),
                                              mig_test::device("T4")};
  const std::vector<std::int64_t> memories = {2000, 9000, 15000, 30000, 70000};
  std::mt19937_64 rng(11);
  long placements = 0, asked_by_class = 0, asked_per_gpu = 0, by_room_placements = 0;
  std::set<std::tuple<int, bool>> outcomes;  // (first GPU's device, placed)
  for (int round = 0; round < 120; ++round) {
    const int nodes = std::uniform_int_distribution<int>(1, 30)(rng);
    std::vector<NodeSpec> specs;
    for (int n = 0; n < nodes; ++n) {
      const int gpus = std::uniform_int_distribution<int>(1, 8)(rng);
      const int device = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? 1 : 0;
      specs.push_back(NodeSpec{"n" + std::to_string(n), device, gpus, n / 4, true});
    }
    Cluster cluster(devices, specs);
    JobTable jobs;
    GpuViewBuilder views(cluster, jobs);
    // Fill: each GPU takes 0-4 jobs of random sizes, each in the instance the model picks.
    const double busy = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
      for (int k = 0; k < 4; ++k) {
        if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) >= busy) continue;
        JobSpec spec = mig_test::job(
            memories[std::uniform_int_distribution<std::size_t>(0, memories.size() - 1)(rng)]);
        if (!mig.admits(views.view(g), spec)) continue;
        const int slot = mig.choose_slot(views.view(g), spec);
        const JobSlot s = jobs.acquire();
        jobs[s].spec = spec;
        jobs[s].current_memory = spec.memory;
        cluster.add_resident(g, s, spec.memory, slot);
      }
      // Some GPUs are out of service (fault recovery): never chosen.
      if (std::uniform_int_distribution<int>(0, 19)(rng) == 0) cluster.set_available(g, false);
    }
    refresh_rooms(cluster, mig, views);
    for (const char* policy : {"first-fit", "best-fit", "spread"}) {
      // A requested profile makes the held instances matter beyond the largest free one (the
      // room): a 1g job does not fit a GPU whose 1g instances are held although its 3g is free.
      for (const char* profile : {"", "1g.10gb", "2g.20gb", "3g.40gb"}) {
        for (std::int64_t memory : memories) {
          if (*profile != '\0' && memory > 9000) continue;
          for (int gang : {1, 2}) {
            const JobSpec job = mig_test::job(memory, 1.0, 1.0, profile, gang);
            AskEveryGpu per_gpu(mig, false), by_class(mig, true), by_room(mig, true, true);
            std::vector<GpuIndex> expected, actual, from_rooms;
            const bool placed_expected =
                make_placement_policy(policy)->place(cluster, per_gpu, views, job, expected);
            const bool placed =
                make_placement_policy(policy)->place(cluster, by_class, views, job, actual);
            ASSERT_EQ(placed, placed_expected) << policy << " " << memory << " round " << round;
            ASSERT_EQ(actual, expected) << policy << " " << memory << " round " << round;
            const bool placed_from_rooms =
                make_placement_policy(policy)->place(cluster, by_room, views, job, from_rooms);
            ASSERT_EQ(placed_from_rooms, placed_expected) << policy << " round " << round;
            ASSERT_EQ(from_rooms, expected) << policy << " " << memory << " round " << round;
            by_room_placements += mig.room_decides_admission_for(job) && placed;
            ++placements;
            asked_per_gpu += per_gpu.asked;
            asked_by_class += by_class.asked;
            outcomes.insert({placed ? cluster.gpu(actual.front()).device : -1, placed});
          }
        }
      }
    }
  }
  // Both outcomes and both device types were reached, and the classes saved most questions.
  EXPECT_EQ(outcomes.size(), 3u);
  EXPECT_GT(placements, 1000);
  EXPECT_LT(asked_by_class * 4, asked_per_gpu);
  EXPECT_GT(by_room_placements, 300);  // placements the room index chose
}

// MigModel::room_decides_admission_for is a promise placement relies on: for the jobs it names,
// admits == (need <= room) on every GPU whose residents hold known instances, MIG on or off.
TEST(MigPlacement, TheRoomDecidesExactlyForTheJobsTheModelNames) {
  const MigModel mig = mig_model({{"layouts", {{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"},
                                               {"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb",
                                                "1g.10gb", "1g.10gb", "1g.10gb"},
                                               {"7g.80gb"}}}});
  const std::vector<DeviceProfile> devices = {mig_test::device("A100-80GB"),
                                              mig_test::device("T4")};
  std::mt19937_64 rng(5);
  Cluster cluster(devices, {NodeSpec{"a", 0, 8, 0, true}, NodeSpec{"t", 1, 4, 0, true}});
  JobTable jobs;
  GpuViewBuilder views(cluster, jobs);
  const std::vector<std::int64_t> memories = {0, 2000, 9000, 10240, 15000, 30000, 70000, 90000};
  int decided = 0, not_decided = 0, admitted = 0, refused = 0;
  for (GpuIndex g = 0; g < cluster.gpu_count(); ++g) {
    for (int layout = 0; layout < mig.layout_count(cluster.device_of(g)); ++layout) {
      for (int trial = 0; trial < 40; ++trial) {
        // Empty the GPU, set the layout, put 0-6 random jobs where the model puts them.
        while (!cluster.gpu(g).residents.empty()) {
          const JobSlot s = cluster.gpu(g).residents.back();
          cluster.remove_resident(g, s, jobs[s].spec.memory);
          jobs.release(s);
        }
        cluster.gpu(g).layout = layout;
        const int fill = static_cast<int>(rng() % 7);
        for (int k = 0; k < fill; ++k) {
          const JobSpec spec = mig_test::job(memories[rng() % 5]);
          if (!mig.admits(views.view(g), spec)) continue;
          const int slot = mig.choose_slot(views.view(g), spec);
          const JobSlot s = jobs.acquire();
          jobs[s].spec = spec;
          cluster.add_resident(g, s, spec.memory, slot);
        }
        const double room = mig.gpu_room(views.view(g));
        for (std::int64_t memory : memories) {
          for (const char* profile : {"", "1g.10gb"}) {
            for (int gang : {1, 2}) {
              const JobSpec job = mig_test::job(memory, 1.0, 1.0, profile, gang);
              if (!mig.room_decides_admission_for(job)) {
                ++not_decided;
                continue;
              }
              ++decided;
              const bool admits = mig.admits(views.view(g), job);
              ASSERT_EQ(admits, mig.job_need(job) <= room)
                  << "GPU " << g << " layout " << layout << " memory " << memory;
              (admits ? admitted : refused)++;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(admitted, 500);
  EXPECT_GT(refused, 500);
  EXPECT_GT(not_decided, decided);  // profiles and gangs are left to admits
  // Under a Kubernetes strategy, compute-aware sizing or a slowdown bound: never.
  for (const nlohmann::json& params :
       {nlohmann::json{{"layout", {"7g.80gb"}}, {"strategy", "single"}},
        nlohmann::json{{"layout", {"7g.80gb"}}, {"compute_aware", true}}}) {
    EXPECT_FALSE(mig_model(params).room_decides_admission_for(mig_test::job(2000)));
  }
}

}  // namespace
}  // namespace gpumux
