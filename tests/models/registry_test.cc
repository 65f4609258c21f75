#include "models/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "models/device_registry.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using ::testing::StartsWith;
using json = nlohmann::json;

TEST(SharingModels, ListHasUniqueNamesWithSummariesAndIncludesExclusive) {
  std::set<std::string> names;
  for (const auto& m : sharing_models()) {
    EXPECT_TRUE(names.insert(m.name).second) << "duplicate " << m.name;
    EXPECT_FALSE(m.summary.empty()) << m.name;
  }
  EXPECT_TRUE(names.count("exclusive"));
}

TEST(MakeSharingModel, EveryListedModelCanBeBuiltWithItsExampleParameters) {
  for (const auto& m : sharing_models()) {
    const json params = json::parse(m.example_params);
    JsonObject p(params, "s.json", "/sharing/params");
    const auto model = make_sharing_model(m.name, p, "s.json#/sharing/model");
    ASSERT_NE(model, nullptr) << m.name;
    EXPECT_EQ(model->name(), m.name);
    for (const auto& param : model->parameters()) {
      EXPECT_FALSE(param.name.empty()) << m.name;
      EXPECT_FALSE(param.source.empty()) << m.name << " " << param.name;
    }
  }
}

TEST(MakeSharingModel, ExclusiveBuildsAnExclusiveModel) {
  const json params = json::object();
  JsonObject p(params, "s.json", "/sharing/params");
  const auto model = make_sharing_model("exclusive", p, "s.json#/sharing/model");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->name(), "exclusive");
  EXPECT_TRUE(model->requires_empty_gpu());
}

TEST(MakeSharingModel, UnknownNameListsValidNames) {
  const json params = json::object();
  JsonObject p(params, "s.json", "/sharing/params");
  const std::string msg =
      input_error_message([&] { make_sharing_model("teleport", p, "s.json#/sharing/model"); });
  EXPECT_THAT(msg, StartsWith("s.json#/sharing/model: field 'model'"));
  EXPECT_THAT(msg, HasSubstr("'teleport'"));
  for (const auto& m : sharing_models()) EXPECT_THAT(msg, HasSubstr(m.name));
}

TEST(MakeSharingModel, NamesAreCaseSensitive) {
  const json params = json::object();
  JsonObject p(params, "s.json", "/sharing/params");
  EXPECT_THROW(make_sharing_model("Exclusive", p, "w"), InputError);
}

TEST(MakeSharingModel, ExclusiveRejectsParameters) {
  const json params = {{"slice_us", 1024}};
  JsonObject p(params, "s.json", "/sharing/params");
  const std::string msg =
      input_error_message([&] { make_sharing_model("exclusive", p, "s.json#/sharing/model"); });
  EXPECT_THAT(msg, StartsWith("s.json#/sharing/params/slice_us: field 'slice_us'"));
  EXPECT_THAT(msg, HasSubstr("unknown key"));
}

// Calibration finds its models by capability: the models fitted on sharing measurements are
// those with a contention form, in table order, and the measured words name them.
TEST(SharingCapabilities, CalibrationFindsItsModelsByContentionForm) {
  EXPECT_EQ(contention_model_names(), (std::vector<std::string>{"mps", "timeslice"}));
  EXPECT_EQ(first_model_of(ContentionForm::kTimeSlicing)->name, "timeslice");
  EXPECT_EQ(first_model_of(ContentionForm::kConcurrent)->name, "mps");
  EXPECT_EQ(first_model_of(ContentionForm::kNone)->name, "exclusive");
  EXPECT_EQ(contention_model("mps", "w", "mode").capabilities.thread_cap_parameter,
            "active_thread_percentage");
  EXPECT_TRUE(contention_model("timeslice", "w", "mode").capabilities.thread_cap_parameter.empty());
  EXPECT_EQ(mig_speeds_model(), "mig");
  // Every declared thread cap is a parameter the model reads.
  for (const SharingModelInfo& m : sharing_models()) {
    const std::string_view cap = m.capabilities.thread_cap_parameter;
    if (cap.empty()) continue;
    nlohmann::json params = nlohmann::json::parse(m.example_params);
    params[std::string(cap)] = 50;
    JsonObject o(params, "s.json", "/sharing/params");
    EXPECT_NO_THROW(m.make(o)) << m.name;
  }
}

TEST(SharingCapabilities, AModelWithoutAContentionFormIsRefusedNamingTheValidOnes) {
  try {
    contention_model("mig", "m.csv:3", "mode");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.csv:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'mig' is not fitted on sharing measurements; valid: "
                                         "mps, timeslice"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(contention_model("timeslise", "w", "mode"), InputError);
}

// The facets each built-in model provides: exclusive and fractional bound rooms or nothing,
// time-slicing and MPS give services a schedule, MIG splits GPUs into slots and changes layouts
// only where it repartitions or re-splits; a hybrid bounds rooms where its inner model does.
TEST(SharingFacets, EachModelProvidesWhatItDoes) {
  auto build = [](const std::string& name, nlohmann::json params) {
    JsonObject o(params, "s.json", "/sharing/params");
    return make_sharing_model(name, o, "s.json#/sharing/model");
  };
  const nlohmann::json layout = {{"layout", {"3g.20gb", "3g.20gb"}}};
  const auto exclusive = build("exclusive", nlohmann::json::object());
  EXPECT_EQ(exclusive->room_bound(), nullptr);
  EXPECT_EQ(exclusive->slot_layout(), nullptr);
  EXPECT_EQ(exclusive->layout_changes(), nullptr);
  EXPECT_EQ(exclusive->service_contexts(), nullptr);
  const auto fractional = build("fractional", nlohmann::json::object());
  EXPECT_NE(fractional->room_bound(), nullptr);
  EXPECT_EQ(fractional->service_contexts(), nullptr);
  for (const char* name : {"timeslice", "mps"}) {
    const auto m = build(name, nlohmann::json::object());
    EXPECT_NE(m->room_bound(), nullptr) << name;
    EXPECT_NE(m->service_contexts(), nullptr) << name;
    EXPECT_EQ(m->slot_layout(), nullptr) << name;
    EXPECT_EQ(m->layout_changes(), nullptr) << name;
  }
  const auto fixed = build("mig", layout);
  EXPECT_NE(fixed->room_bound(), nullptr);
  EXPECT_NE(fixed->slot_layout(), nullptr);
  EXPECT_EQ(fixed->layout_changes(), nullptr) << "a fixed layout never changes";
  nlohmann::json regrow = layout;
  regrow["regrow"] = nlohmann::json::object();
  const auto resplit = build("mig", regrow);
  ASSERT_NE(resplit->layout_changes(), nullptr);
  EXPECT_TRUE(resplit->layout_changes()->resplits());
  EXPECT_FALSE(resplit->layout_changes()->reconfigures());
  const auto repartition = build("mig", {{"layouts", {{"7g.40gb"}, {"3g.20gb", "3g.20gb"}}}});
  ASSERT_NE(repartition->layout_changes(), nullptr);
  EXPECT_TRUE(repartition->layout_changes()->reconfigures());
  nlohmann::json inner_peak = layout;
  inner_peak["inner"] = {{"admission", "peak"}};
  EXPECT_NE(build("mig+mps", inner_peak)->room_bound(), nullptr);
  EXPECT_NE(build("mig+mps", inner_peak)->slot_layout(), nullptr);
  EXPECT_EQ(build("mig+mps", inner_peak)->service_contexts(), nullptr);
}

// The helpers a caller uses where a model may lack a facet answer as its absence says.
TEST(SharingFacets, WithoutAFacetOneLayoutNoSlotsAndAnyRoom) {
  nlohmann::json none = nlohmann::json::object();
  JsonObject o(none, "s.json", "/sharing/params");
  const auto exclusive = make_sharing_model("exclusive", o, "w");
  const DeviceRegistry registry = DeviceRegistry::with_builtins();
  const DeviceProfile& d = registry.get("A100-40GB", "t");
  EXPECT_EQ(layout_count(*exclusive, d), 1);
  EXPECT_EQ(initial_layout(*exclusive, d, 3), 0);
  EXPECT_EQ(slot_count(*exclusive, d, 0), 0);
  JobSpec job;
  job.memory = MemoryMiB(1000);
  EXPECT_EQ(job_need(*exclusive, job), -kUnboundedRoom);
  const GpuView empty{d, {}, MemoryMiB(0)};
  EXPECT_EQ(choose_slot(*exclusive, empty, job), 0);
}

}  // namespace
}  // namespace gpumux
