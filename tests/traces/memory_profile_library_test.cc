#include "traces/fields/memory_profile_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;

MemoryProfileConfig parse_profile_config(const nlohmann::json& j, const std::string& base = "") {
  JsonObject o(j, "s.json", "/trace/memory_profiles");
  return parse_memory_profiles(o, base);
}

TEST(MemoryProfileLibrary, ParametricRampThenPeriodicSpikes) {
  const auto c = parse_profile_config({{"profiles",
                                        {{{"name", "p"},
                                          {"ramp_s", 40},
                                          {"steady_fraction", 0.5},
                                          {"spike_period_s", 100},
                                          {"spike_s", 10}}}}});
  ASSERT_EQ(c.profiles.size(), 1u);
  const MemoryProfile& p = *c.profiles[0];
  EXPECT_DOUBLE_EQ(p.fraction_at(0), 0.1);      // ramp: 1/5 of steady
  EXPECT_DOUBLE_EQ(p.fraction_at(35e6), 0.4);   // last ramp step
  EXPECT_DOUBLE_EQ(p.fraction_at(40e6), 0.5);   // steady
  EXPECT_DOUBLE_EQ(p.fraction_at(131e6), 1.0);  // spike: 40 + 90 .. 40 + 100
  EXPECT_DOUBLE_EQ(p.fraction_at(141e6), 0.5);  // next period
  EXPECT_DOUBLE_EQ(p.fraction_at(40e6 + 7 * 100e6 + 95e6), 1.0);
  EXPECT_DOUBLE_EQ(c.fraction_of_jobs, 1.0);
}

TEST(MemoryProfileLibrary, ExplicitStepsAndLibraryFile) {
  testing::TempFile lib("lib.json", R"({"source": "test", "method": "by hand", "profiles": [
      {"name": "a", "steps": [[0, 0.3], [60, 1.0]], "repeat_from_s": 0, "period_s": 120,
       "stats": {"samples": 3}}]})");
  const auto c = parse_profile_config({{"library", lib.path()},
                                       {"profiles", {{{"name", "b"}, {"steady_fraction", 0.8}}}},
                                       {"fraction_of_jobs", 0.5}});
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[0]->name(), "a");
  EXPECT_DOUBLE_EQ(c.profiles[0]->fraction_at(130e6), 0.3);
  EXPECT_DOUBLE_EQ(c.profiles[1]->fraction_at(1e9), 0.8);
  EXPECT_EQ(c.echo["library_source"], "test");
}

TEST(MemoryProfileLibrary, BadProfilesNameThePlace) {
  EXPECT_THAT(input_error_message([] { parse_profile_config(nlohmann::json::object()); }),
              HasSubstr("profiles"));
  EXPECT_THAT(input_error_message([] {
                parse_profile_config({{"profiles", {{{"name", "x"}, {"steps", {{1, 0.5}}}}}}});
              }),
              HasSubstr("s.json#/trace/memory_profiles/profiles/0"));
  EXPECT_THAT(input_error_message([] {
                parse_profile_config({{"profiles", {{{"name", "x"}, {"steady_fraction", 1.5}}}}});
              }),
              HasSubstr("field 'steady_fraction'"));
  EXPECT_THAT(input_error_message([] {
                parse_profile_config({{"profiles",
                                       {{{"name", "x"},
                                         {"steady_fraction", 0.5},
                                         {"spike_period_s", 10},
                                         {"spike_s", 20}}}}});
              }),
              HasSubstr("field 'spike_s'"));
  EXPECT_THAT(input_error_message([] {
                parse_profile_config({{"library", "/nonexistent/lib.json"}});
              }),
              HasSubstr("cannot open"));
}

// A library nested 100,000 deep once crashed the error-message printer (stack overflow).
TEST(MemoryProfileLibrary, DeeplyNestedLibraryIsAnError) {
  testing::TempFile lib(
      "lib.json", "{\"profiles\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  const std::string msg = input_error_message([&] {
    parse_profile_config({{"library", lib.path()}});
  });
  EXPECT_THAT(msg, HasSubstr(lib.path() + ":1:"));
  EXPECT_THAT(msg, HasSubstr("nested deeper than 128 levels"));
}

class Fixed : public JobSource {
 public:
  bool next(JobSpec& j) override {
    if (n_ == 4000) return false;
    j.id = std::to_string(n_++);
    return true;
  }

 private:
  int n_ = 0;
};

TEST(MemoryProfileLibrary, AssignsProfilesToTheRequestedShareOfJobs) {
  const auto c = parse_profile_config(
      {{"profiles",
        {{{"name", "a"}, {"steady_fraction", 0.5}}, {{"name", "b"}, {"steady_fraction", 0.7}}}},
       {"fraction_of_jobs", 0.25}});
  Fixed inner;
  ProfileAssigningSource source(inner, c, 7);
  std::map<std::string, int> count;
  JobSpec j;
  while (source.next(j)) ++count[j.memory_profile ? j.memory_profile->name() : "none"];
  EXPECT_NEAR(count["none"], 3000, 150);
  EXPECT_NEAR(count["a"], 500, 100);
  EXPECT_NEAR(count["b"], 500, 100);
}

}  // namespace
}  // namespace gpumux
