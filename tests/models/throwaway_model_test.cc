// What adding a sharing model takes: a class implementing SharingModel (with the facets it
// provides) and one row of the sharing-model table. A throwaway row here declares a parameter,
// builds its model from `sharing.params` and runs an engine; nothing else in the product is
// told of it.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "models/registry.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/scheduler.h"
#include "tests/checked_engine.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

constexpr NumberSpec kSharedRate{
    "shared_rate", "", 0.5, 0.01, 1.0, "default (test)", "each job's rate beside another", false};

// Two jobs per GPU at most, each at `shared_rate` while both run and at 1 alone; its room
// (places left) decides admission, so placement never asks `admits`.
class HalvesModel : public SharingModel, public RoomBound {
 public:
  explicit HalvesModel(JsonObject& params) : rate_(read(params, kSharedRate)) { params.finish(); }
  std::string_view name() const override { return "halves"; }
  bool admits(const GpuView& gpu, const JobSpec& job) const override {
    return job_need(job) <= gpu_room(gpu);
  }
  void compute_rates(const GpuView&, std::span<double> rates, GpuLoad& load) const override {
    for (double& r : rates) r = rates.size() > 1 ? rate_.value : 1.0;
    load = GpuLoad{1.0, 0.0};
  }
  std::vector<ModelParameter> parameters() const override { return {declare(kSharedRate, rate_)}; }
  const RoomBound* room_bound() const override { return this; }
  double gpu_room(const GpuView& gpu) const override {
    return 2.0 - static_cast<double>(gpu.residents.size());
  }
  double job_need(const JobSpec&) const override { return 1.0; }
  bool room_decides_admission() const override { return true; }

 private:
  NumberSetting rate_;
};

const SharingModelInfo kHalves{"halves", "two jobs per GPU at a declared rate", "{}",
                               [](JsonObject& params) -> std::unique_ptr<SharingModel> {
                                 return std::make_unique<HalvesModel>(params);
                               }};

struct ThrowawayFinishes : EngineObserver {
  std::map<std::string, double> at_s;
  void on_job_finished(Time now, const ActiveJob& j) override {
    at_s[j.spec.id] = now.seconds();
  }
};

TEST(ThrowawayModel, ARowAndAClassRunThroughTheEngine) {
  const nlohmann::json given = {{"shared_rate", 0.4}};
  JsonObject params(given, "s.json", "/sharing/params");
  const auto model = kHalves.make(params);
  ASSERT_EQ(model->parameters().size(), 1u);
  EXPECT_EQ(model->parameters()[0].source, "scenario");
  Cluster cluster = testing::make_cluster(1, 1);
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 0);
  testing::ListSource source({testing::job("a", 0, 1, 100), testing::job("b", 0, 1, 100),
                              testing::job("c", 0, 1, 100)});
  testing::CheckedEngine engine(cluster, *model, scheduler, source);
  ThrowawayFinishes finishes;
  engine.add_observer(&finishes);
  engine.run();
  // a and b share at 0.4 (100 s of work in 250 s); c waits for a place, then runs alone.
  EXPECT_DOUBLE_EQ(finishes.at_s["a"], 250.0);
  EXPECT_DOUBLE_EQ(finishes.at_s["b"], 250.0);
  EXPECT_DOUBLE_EQ(finishes.at_s["c"], 350.0);
}

TEST(ThrowawayModel, ItsDeclaredParameterIsCheckedByTheSpec) {
  const nlohmann::json bad = {{"shared_rate", 2.0}};
  JsonObject params(bad, "s.json", "/sharing/params");
  try {
    kHalves.make(params);
    FAIL() << "no error for a rate above 1";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shared_rate"), std::string::npos) << e.what();
  }
  const nlohmann::json unknown = {{"shared_rat", 0.5}};
  JsonObject typo(unknown, "s.json", "/sharing/params");
  EXPECT_THROW(kHalves.make(typo), InputError);
}

}  // namespace
}  // namespace gpumux
