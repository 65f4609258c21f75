#include "sim/base/parameter_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "models/device_measurements.h"
#include "models/measured_parameter.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using json = nlohmann::json;

constexpr NumberSpec kGap{
    "gap_us", "us", 5.0, 0.0, 100.0, "default (assumed)", "gap between kernels"};
constexpr NumberSpec kSlots{"slots", "jobs", 4.0, 1.0, 16.0, "default", "slots per GPU", true};
constexpr std::array<std::string_view, 3> kModes{"low", "mid", "high"};
constexpr ChoiceSpec kMode{"mode", kModes, 1, "default (mid)", "how hard to try"};
constexpr SwitchSpec kFast{"fast", false, "default (off)", "skip the slow path"};

TEST(ParameterSpec, AbsentKeysTakeTheDeclaredDefaultAndItsSource) {
  const json params = json::object();
  JsonObject p(params, "s.json", "/sharing/params");
  const auto gap = read(p, kGap);
  const auto mode = read(p, kMode);
  const auto fast = read(p, kFast);
  p.finish();  // reading marked nothing unknown
  EXPECT_EQ(gap.value, 5.0);
  EXPECT_TRUE(gap.is_default);
  EXPECT_EQ(gap.source, "default (assumed)");
  EXPECT_EQ(mode.index, 1);
  EXPECT_EQ(mode.name, "mid");
  EXPECT_EQ(mode.source, "default (mid)");
  EXPECT_FALSE(fast.on);
  EXPECT_EQ(fast.source, "default (off)");
}

TEST(ParameterSpec, GivenKeysAreReadAndSourcedToTheScenario) {
  const json params = {{"gap_us", 7.5}, {"slots", 3}, {"mode", "high"}, {"fast", true}};
  JsonObject p(params, "s.json", "/sharing/params");
  const auto gap = read(p, kGap);
  EXPECT_EQ(gap.value, 7.5);
  EXPECT_FALSE(gap.is_default);
  EXPECT_EQ(gap.source, "scenario");
  EXPECT_EQ(read(p, kSlots).value, 3.0);
  EXPECT_EQ(read(p, kMode).name, "high");
  EXPECT_TRUE(read(p, kFast).on);
  p.finish();
}

TEST(ParameterSpec, ACalibratedValueReplacesTheDefaultButNotTheScenario) {
  const json none = json::object();
  JsonObject a(none, "s.json", "/sharing/params");
  const auto calibrated = read(a, kGap, 9.0, "calibration fit.json");
  EXPECT_EQ(calibrated.value, 9.0);
  EXPECT_EQ(calibrated.source, "calibration fit.json");
  EXPECT_FALSE(calibrated.is_default);
  const json given = {{"gap_us", 2.0}};
  JsonObject b(given, "s.json", "/sharing/params");
  EXPECT_EQ(read(b, kGap, 9.0, "calibration fit.json").value, 2.0);
}

TEST(ParameterSpec, OutOfRangeWrongTypeAndUnknownNamesNameTheKey) {
  const json big = {{"gap_us", 101.0}};
  JsonObject a(big, "s.json", "/sharing/params");
  EXPECT_THAT(input_error_message([&] { read(a, kGap); }),
              HasSubstr("s.json#/sharing/params/gap_us"));
  const json fractional = {{"slots", 2.5}};
  JsonObject b(fractional, "s.json", "/sharing/params");
  EXPECT_THAT(input_error_message([&] { read(b, kSlots); }), HasSubstr("slots"));
  const json mode = {{"mode", "extreme"}};
  JsonObject c(mode, "s.json", "/sharing/params");
  EXPECT_THAT(input_error_message([&] { read(c, kMode); }),
              HasSubstr("expected 'low', 'mid' or 'high', got 'extreme'"));
}

TEST(ParameterSpec, TheEchoCarriesUnitSourceDescriptionAndWhatIsAccepted) {
  const auto gap = declare(kGap, NumberSetting{6.0, "scenario", false});
  EXPECT_EQ(gap.name, "gap_us");
  EXPECT_EQ(gap.value, 6.0);
  EXPECT_EQ(gap.unit, "us");
  EXPECT_EQ(gap.source, "scenario");
  EXPECT_EQ(gap.description, "gap between kernels");
  EXPECT_EQ(gap.accepts, "[0, 100] us");
  EXPECT_EQ(declare(kSlots, NumberSetting{4.0, "default", true}).accepts,
            "[1, 16] jobs, whole numbers");
  EXPECT_EQ(declare(kGap, NumberSetting{6.0, "scenario", false}, "other words").description,
            "other words");
  const auto mode = declare(kMode, ChoiceSetting{2, "high", "scenario"});
  EXPECT_EQ(mode.kind, ModelParameter::Kind::kChoice);
  EXPECT_EQ(mode.choice, "high");
  EXPECT_EQ(mode.accepts, "one of 'low', 'mid' or 'high'");
  const auto fast = declare(kFast, SwitchSetting{true, "scenario"});
  EXPECT_EQ(fast.kind, ModelParameter::Kind::kSwitch);
  EXPECT_EQ(fast.value, 1.0);
}

TEST(ParameterSpec, ADefaultWithoutAnObjectAndAnEchoNamedInsideOne) {
  const NumberSetting gap = default_setting(kGap);
  EXPECT_EQ(gap.value, 5.0);
  EXPECT_EQ(gap.source, "default (assumed)");
  EXPECT_TRUE(gap.is_default);
  const ModelParameter nested = within("repartition", declare(kGap, gap));
  EXPECT_EQ(nested.name, "repartition.gap_us");
  EXPECT_EQ(nested.accepts, "[0, 100] us");
  EXPECT_EQ(nested.source, "default (assumed)");
}

TEST(DeviceMeasurements, EachNamesAKnownModelAndParameterWithASourceAndAFiniteValue) {
  ASSERT_FALSE(device_measurements().empty());
  std::size_t listed = 0;
  for (const std::string_view model : {"timeslice", "mps"}) {
    for (const auto& m : device_measurements_of(model)) {
      EXPECT_EQ(m.model, model);
      EXPECT_FALSE(m.device.empty());
      EXPECT_FALSE(m.parameter.empty());
      EXPECT_FALSE(m.source.empty()) << m.parameter;
      EXPECT_GE(m.value, 0.0) << m.parameter;
      ++listed;
    }
  }
  // Every measurement belongs to one of the two models that read them.
  EXPECT_EQ(listed, device_measurements().size());
  const auto measured = declare_measured(kGap, device_measurements().front());
  EXPECT_EQ(measured.name, "gap_us@" + std::string(device_measurements().front().device));
  EXPECT_EQ(measured.source, device_measurements().front().source);
}

// A path parameter is resolved against the scenario's folder, must exist, and is left alone
// when absent or not a string (an inline object the entry reads itself).
TEST(PathSpec, ResolvesRelativePathsAndChecksThatTheyExist) {
  constexpr PathSpec kFile{"calibration", "a file"};
  constexpr PathSpec kConfig{"mig_parted", "a config"};
  const std::array<PathSpec, 2> specs = {kFile, kConfig};
  const testing::TempFile file("cal.json", "{}");
  const std::filesystem::path path(file.path());
  nlohmann::json params = {{"calibration", path.filename().string()},
                           {"mig_parted", {{"version", "v1"}}}};
  const auto resolved =
      resolve_path_parameters(params, specs, path.parent_path().string(), "s.json#/sharing/params");
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].key, "calibration");
  EXPECT_EQ(resolved[0].given, path.filename().string());
  EXPECT_EQ(resolved[0].resolved, path.lexically_normal().string());
  EXPECT_EQ(params["calibration"], path.lexically_normal().string());
  EXPECT_TRUE(params["mig_parted"].is_object());
  nlohmann::json missing = {{"calibration", "no-such-file.json"}};
  const std::string msg = input_error_message([&] {
    resolve_path_parameters(missing, specs, path.parent_path().string(), "s.json#/sharing/params");
  });
  EXPECT_THAT(msg, HasSubstr("s.json#/sharing/params/calibration"));
  EXPECT_THAT(msg, HasSubstr("file not found"));
  nlohmann::json none = nlohmann::json::object();
  EXPECT_TRUE(resolve_path_parameters(none, specs, "/", "w").empty());
}

}  // namespace
}  // namespace gpumux
