// Placement pruning by room bounds changes nothing but speed: every model that bounds rooms
// gives the same run with the bound as without it, and asks `admits` less often.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "models/device_registry.h"
#include "models/registry.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

// Forwards everything to `inner`, counting admits calls; optionally hides the room bound.
class CountingModel : public gpumux::SharingModel, public gpumux::RoomBound, public SlotLayout {
 public:
  CountingModel(const SharingModel& inner, bool bound)
      : inner_(inner),
        inner_room_(inner.room_bound()),
        inner_slots_(inner.slot_layout()),
        bound_(bound) {}
  std::string_view name() const override { return inner_.name(); }
  bool admits(const GpuView& gpu, const JobSpec& job) const override {
    ++admits_calls;
    return inner_.admits(gpu, job);
  }
  bool requires_empty_gpu() const override { return inner_.requires_empty_gpu(); }
  void compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const override {
    inner_.compute_rates(gpu, rates, load);
  }
  bool memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                    Time& recovery) const override {
    return inner_.memory_fault(gpu, killed, recovery);
  }
  const SlotLayout* slot_layout() const override { return inner_slots_ ? this : nullptr; }
  int choose_slot(const GpuView& gpu, const JobSpec& job) const override {
    return inner_slots_->choose_slot(gpu, job);
  }
  int initial_layout(const DeviceProfile& d, int i) const override {
    return inner_slots_->initial_layout(d, i);
  }
  int layout_count(const DeviceProfile& d) const override { return inner_slots_->layout_count(d); }
  void check_device(const DeviceProfile& d) const override { inner_.check_device(d); }
  const gpumux::RoomBound* room_bound() const override {
    return bound_ && inner_room_ ? this : nullptr;
  }
  double gpu_room(const GpuView& gpu) const override { return inner_room_->gpu_room(gpu); }
  double job_need(const JobSpec& job) const override { return inner_room_->job_need(job); }
  // With the bound, placement also takes the room index where the model's room decides.
  bool room_decides_admission() const override { return inner_room_->room_decides_admission(); }
  bool room_decides_admission_for(const JobSpec& job) const override {
    return inner_room_->room_decides_admission_for(job);
  }
  std::vector<ModelParameter> parameters() const override { return inner_.parameters(); }
  mutable std::uint64_t admits_calls = 0;

 private:
  const SharingModel& inner_;
  const gpumux::RoomBound* inner_room_;
  const SlotLayout* inner_slots_;
  bool bound_;
};

struct Starts : EngineObserver {
  std::map<std::string, std::pair<std::int64_t, std::vector<GpuIndex>>> started;
  std::map<std::string, std::int64_t> finished;
  void on_job_started(Time now, const ActiveJob& j) override {
    started[j.spec.id + "#" + std::to_string(j.kills)] = {now.us(), j.gpus};
  }
  void on_job_finished(Time now, const ActiveJob& j) override { finished[j.spec.id] = now.us(); }
};

std::vector<JobSpec> random_jobs(int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::int64_t memories[] = {2000, 4000, 9000, 15000, 30000};
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += -std::log(1.0 - u(rng)) * 20.0;
    JobSpec j = testing::job("j" + std::to_string(i), t, u(rng) < 0.1 ? 2 : 1,
                             60.0 + 3000.0 * u(rng) * u(rng));
    j.memory = MemoryMiB(memories[static_cast<int>(u(rng) * 5) % 5]);
    j.sm_util = 0.1 + 0.9 * u(rng);
    j.sm_share = 0.05 + 0.9 * u(rng);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

struct PruningCase {
  std::string model;
  nlohmann::json params;
  bool prunes = true;  // false: the bound is loose here (optimistic MPS: only the client cap)
};

void PrintTo(const PruningCase& c, std::ostream* os) { *os << c.model << " " << c.params.dump(); }

class RoomBoundPruning : public ::testing::TestWithParam<PruningCase> {};

TEST_P(RoomBoundPruning, SameRunWithAndWithoutTheBoundAndFewerAdmissionQuestions) {
  const DeviceRegistry registry = DeviceRegistry::with_builtins();
  nlohmann::json params = GetParam().params;
  JsonObject o(params, "s.json", "/sharing/params");
  const auto inner = make_sharing_model(GetParam().model, o, "s.json#/sharing/model");
  ASSERT_NE(inner->room_bound(), nullptr);
  // Best-fit, and spread (which visits every node with room and orders GPUs by load).
  for (const char* placement : {"best-fit", "spread"}) {
    SCOPED_TRACE(placement);
    std::map<bool, Starts> runs;
    std::map<bool, std::uint64_t> calls;
    for (bool bound : {false, true}) {
      Cluster cluster({registry.get("A100-40GB", "t"), registry.get("V100M32", "t")},
                      {NodeSpec{"a0", 0, 4, 0, true}, NodeSpec{"a1", 0, 4, 0, true},
                       NodeSpec{"v0", 1, 4, 0, true}});
      Scheduler scheduler("fifo-backfill", make_placement_policy(placement), 16);
      testing::ListSource source(random_jobs(600, 7));
      CountingModel model(*inner, bound);
      testing::CheckedEngine engine(cluster, model, scheduler, source);
      engine.add_observer(&runs[bound]);
      engine.run();
      calls[bound] = model.admits_calls;
    }
    EXPECT_EQ(runs[true].started, runs[false].started);
    EXPECT_EQ(runs[true].finished, runs[false].finished);
    EXPECT_GT(runs[true].started.size(), 300u);
    if (GetParam().prunes) {
      EXPECT_LT(calls[true], calls[false]) << "the bound should spare some admission questions";
    } else {
      EXPECT_LE(calls[true], calls[false]);
    }
  }
}

// A model that says its room decides admission must answer admits exactly as "need <= room",
// on random GPUs (0-9 residents of random memory) and random jobs; placement relies on it.
TEST_P(RoomBoundPruning, RoomDecidesAdmissionOnlyWhereItIsExact) {
  const DeviceRegistry registry = DeviceRegistry::with_builtins();
  nlohmann::json params = GetParam().params;
  JsonObject o(params, "s.json", "/sharing/params");
  const auto model = make_sharing_model(GetParam().model, o, "s.json#/sharing/model");
  const gpumux::RoomBound& room = *model->room_bound();
  if (!room.room_decides_admission()) GTEST_SKIP() << "the room only bounds admission here";
  const DeviceProfile& device = registry.get("A100-40GB", "test");
  std::mt19937_64 rng(3);
  std::vector<JobSpec> specs(10);
  int admitted = 0, refused = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    const std::size_t n = rng() % 10;
    std::vector<const JobSpec*> residents;
    MemoryMiB used;
    for (std::size_t i = 0; i < n; ++i) {
      specs[i].memory = MemoryMiB(static_cast<std::int64_t>(rng() % 12000));
      residents.push_back(&specs[i]);
      used += specs[i].memory;
    }
    JobSpec job;
    job.memory = MemoryMiB(static_cast<std::int64_t>(rng() % 30000));
    const GpuView view{device, residents, used};
    const bool admits = model->admits(view, job);
    EXPECT_EQ(admits, room.job_need(job) <= room.gpu_room(view)) << "trial " << trial;
    (admits ? admitted : refused)++;
  }
  EXPECT_GT(admitted, 100);
  EXPECT_GT(refused, 100);
}

INSTANTIATE_TEST_SUITE_P(
    Models, RoomBoundPruning,
    ::testing::Values(
        PruningCase{"timeslice", nlohmann::json::object()},
        PruningCase{"timeslice", {{"admission", "replicas"}, {"replicas", 2}}},
        PruningCase{"mps", nlohmann::json::object()},
        PruningCase{"mps", {{"admission", "average"}}, false},
        PruningCase{"mig", {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}}},
        PruningCase{"mig",
                    {{"layout", {"1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb"}}, {"strategy", "single"}}},
        PruningCase{"mig+mps", {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}}},
        PruningCase{
            "mig+timeslice",
            {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}, {"instance_choice", "pack"}}}),
    [](const ::testing::TestParamInfo<PruningCase>& param_info) {
      std::string name = param_info.param.model + "_" + std::to_string(param_info.index);
      std::replace(name.begin(), name.end(), '+', '_');  // test names allow [A-Za-z0-9_] only
      return name;
    });

}  // namespace
}  // namespace gpumux
