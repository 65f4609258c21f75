#include "models/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

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

}  // namespace
}  // namespace gpumux
