#include "traces/memory_profiles/derive.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/base/json_fields.h"
#include "sim/core/memory_profile.h"
#include "tests/traces/test_files.h"
#include "traces/fields/memory_profile_library.h"

namespace gpumux {
namespace {

using ::gpumux::testing::input_error_message;
using ::gpumux::testing::TempFile;
using ::testing::HasSubstr;

std::vector<PodSample> series(const std::vector<double>& values, double start = 0.0,
                              double step = 60.0) {
  std::vector<PodSample> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out.push_back({start + step * static_cast<double>(i), values[i]});
  }
  return out;
}

std::vector<std::pair<std::int64_t, double>> steps_of(const DerivedProfile& p) {
  std::vector<std::pair<std::int64_t, double>> out;
  for (const DerivedStep& s : p.steps) out.emplace_back(s.at_s, s.fraction);
  return out;
}

void expect_steps(const DerivedProfile& p,
                  const std::vector<std::pair<std::int64_t, double>>& expected) {
  const auto got = steps_of(p);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, expected[i].first) << "step " << i;
    EXPECT_NEAR(got[i].second, expected[i].second, 1e-12) << "step " << i;
  }
}

// Bytes with max 100: fractions are value / 100. One sample a minute, 12 samples = 720 s.
// f: 0 .4 .5 .52 .5 1 .5 .2 .5 .8 .82 .5
const std::vector<double> kPodA = {0, 40, 50, 52, 50, 100, 50, 20, 50, 80, 82, 50};

TEST(MemoryProfilesDerive, StatsByHand) {
  const DerivedProfile p = derive_pod_profile(series(kPodA), series({10, 20, 30}), true);
  const MemoryProfileStats& s = p.stats;
  EXPECT_EQ(s.samples, 12u);
  EXPECT_DOUBLE_EQ(s.interval_s, 60.0);
  EXPECT_DOUBLE_EQ(s.duration_s, 720.0);
  EXPECT_EQ(s.gaps_closed, 0u);
  EXPECT_DOUBLE_EQ(s.ramp_s, 300.0);  // first f >= 0.9: sample 5
  // sorted: 0 .2 .4 .5 .5 .5 .5 .5 .52 .8 .82 1 -> median of the 6th and 7th = .5
  EXPECT_DOUBLE_EQ(s.steady_fraction, 0.5);
  // above .6: {1.0} and {.8, .82}: two spikes in 0.2 h; heights .5 and .32
  EXPECT_EQ(s.spikes, 2u);
  EXPECT_NEAR(s.spikes_per_hour, 10.0, 1e-12);
  EXPECT_NEAR(s.spike_height, 0.41, 1e-12);
  EXPECT_NEAR(s.mean_duty_cycle, 0.2, 1e-12);  // (10 + 20 + 30) / 3 percent
  EXPECT_EQ(s.duty_samples, 3u);
  EXPECT_NEAR(s.max_gib, 100.0 / (1024.0 * 1024.0 * 1024.0), 1e-18);
}

TEST(MemoryProfilesDerive, CompressionMergesWithinToleranceAndPinsPeakAndRepeat) {
  MemoryDeriveOptions o;
  o.max_steps = 48;  // no second stage
  const DerivedProfile p = derive_pod_profile(series(kPodA), series({0}), true, o);
  // Stage 1 only: samples 2-4 (.5 .52 .5, range .02) merge to their mean .5067 -> .51; samples
  // 9-10 (.8 .82) -> .81; the peak (sample 5) is a step of its own.
  expect_steps(p, {{0, 0.0},
                   {60, 0.4},
                   {120, 0.51},
                   {300, 1.0},
                   {360, 0.5},
                   {420, 0.2},
                   {480, 0.5},
                   {540, 0.81},
                   {660, 0.5}});
  EXPECT_EQ(p.repeat_from_s, 300);  // start observed: repeat from the end of the ramp-up
  EXPECT_EQ(p.period_s, 420);       // 720 - 300
}

TEST(MemoryProfilesDerive, LeastSquaredErrorMergingDownToMaxSteps) {
  MemoryDeriveOptions o;
  o.max_steps = 6;
  const DerivedProfile p = derive_pod_profile(series(kPodA), series({0}), true, o);
  // Ward costs (60 s per sample): .4|.5067 = 45 * .1067^2 = .51 first; then .5|.2 and .2|.5 tie
  // at 30 * .09 = 2.7 (the earlier wins): .35 over 120 s; then .35|.5 = 40 * .0225 = .9.
  // Pairs across the pinned peak and repeat point are never merged.
  expect_steps(p, {{0, 0.0}, {60, 0.48}, {300, 1.0}, {360, 0.4}, {540, 0.81}, {660, 0.5}});
  o.max_steps = 4;
  const DerivedProfile q = derive_pod_profile(series(kPodA), series({0}), true, o);
  EXPECT_LE(q.steps.size(), 4u);
  EXPECT_EQ(q.steps[0].at_s, 0);
  EXPECT_THAT(steps_of(q), ::testing::Contains(std::make_pair(std::int64_t{300}, 1.0)));
}

TEST(MemoryProfilesDerive, AlreadyRunningPodRepeatsWhole) {
  const DerivedProfile p =
      derive_pod_profile(series({30, 30, 31, 60, 60, 30}), series({50}), false);
  // .5 .5 .5167 (range < .05) -> mean .5056 -> .51; the peak and its equal neighbour join.
  expect_steps(p, {{0, 0.51}, {180, 1.0}, {300, 0.5}});
  EXPECT_EQ(p.repeat_from_s, 0);
  EXPECT_EQ(p.period_s, 360);
  EXPECT_DOUBLE_EQ(p.stats.ramp_s, 180.0);
}

TEST(MemoryProfilesDerive, LongGapsAreClosedToOneInterval) {
  std::vector<PodSample> s = {{0, 10}, {60, 10}, {120, 20}, {1000, 20}, {1060, 10}};
  const DerivedProfile p = derive_pod_profile(s, {}, false);
  EXPECT_EQ(p.stats.gaps_closed, 1u);  // 880 s > 5 x 60 s
  EXPECT_DOUBLE_EQ(p.stats.duration_s, 300.0);
  EXPECT_DOUBLE_EQ(p.stats.ramp_s, 120.0);
  expect_steps(p, {{0, 0.5}, {120, 1.0}, {240, 0.5}});
  EXPECT_EQ(p.period_s, 300);
}

const char* kMemoryCsv =
    "timestamp_anon,value,container_ip\n"
    "1000.0,40.0,a\n"
    "1000.0,5.0,b\n"
    "940.0,20.0,a\n"
    "880.0,0.0,z\n"
    "1060.0,80.0,a\n"
    "1000.0,41.0,a\n"  // duplicate (a, 1000): the first row wins
    "940.0,0.0,z\n"
    "1000.0,0.0,z\n"
    "880.0,1.0,n\n"
    "940.0,2.0,n\n"
    "1000.0,3.0,n\n"
    "\n"
    "2000.0,10.0,late\n"
    "2060.0,10.0,late\n"
    "2120.0,10.0,late\n";

const char* kDutyCsv =
    "value,timestamp_anon,container_ip\n"
    "50.0,940.0,a\n"
    "10.0,1000.0,a\n"
    "0.0,940.0,d\n"
    "100.0,2000.0,late\n";

TEST(MemoryProfilesDerive, ReadGroupsSortsAndDropsDuplicateTimes) {
  TempFile mem("memory.csv", kMemoryCsv);
  std::size_t rows = 0, dups = 0, comments = 0;
  const auto pods =
      read_pod_series(mem.path(), std::numeric_limits<double>::max(), rows, dups, comments);
  EXPECT_EQ(rows, 14u);
  EXPECT_EQ(dups, 1u);
  EXPECT_EQ(comments, 1u);
  ASSERT_EQ(pods.size(), 5u);
  const auto& a = pods.at("a");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].t_s, 940.0);
  EXPECT_EQ(a[0].value, 20.0);
  EXPECT_EQ(a[1].t_s, 1000.0);
  EXPECT_EQ(a[1].value, 40.0);
  EXPECT_EQ(a[2].value, 80.0);
}

TEST(MemoryProfilesDerive, WholeFilesCountEveryPod) {
  TempFile mem("memory.csv", kMemoryCsv);
  TempFile duty("duty.csv", kDutyCsv);
  MemoryDeriveOptions o;
  o.min_samples = 3;
  const DeriveResult r = derive_memory_profiles(mem.path(), duty.path(), o);
  EXPECT_EQ(r.pods, 5u);
  ASSERT_EQ(r.profiles.size(), 2u);
  EXPECT_EQ(r.skipped_pods.at(kSkipTooFewSamples), 1u);   // b
  EXPECT_EQ(r.skipped_pods.at(kSkipNeverAllocates), 1u);  // z
  EXPECT_EQ(r.skipped_pods.at(kSkipNoDuty), 1u);          // n
  EXPECT_EQ(r.skipped_rows.at(kSkipDuplicateTimestamp), 1u);
  EXPECT_EQ(r.duty_only_pods, 1u);  // d
  EXPECT_EQ(r.memory_rows, 14u);
  EXPECT_EQ(r.duty_rows, 4u);

  const DerivedProfile& a = r.profiles[0];
  EXPECT_EQ(a.pod, "a");
  EXPECT_EQ(a.name, "genai-pod-001");
  EXPECT_FALSE(a.stats.start_observed);  // 940 is within 120 s of the first timestamp (880)
  expect_steps(a, {{0, 0.25}, {60, 0.5}, {120, 1.0}});
  EXPECT_EQ(a.repeat_from_s, 0);
  EXPECT_EQ(a.period_s, 180);
  EXPECT_NEAR(a.stats.mean_duty_cycle, 0.3, 1e-12);

  const DerivedProfile& late = r.profiles[1];
  EXPECT_EQ(late.name, "genai-pod-002");
  EXPECT_TRUE(late.stats.start_observed);
  expect_steps(late, {{0, 1.0}});
  EXPECT_EQ(late.repeat_from_s, 0);  // ramp-up ends at the first sample
  EXPECT_EQ(late.period_s, 180);
  EXPECT_DOUBLE_EQ(late.stats.mean_duty_cycle, 1.0);
}

TEST(MemoryProfilesDerive, LibraryJsonFormat) {
  TempFile mem("memory.csv", kMemoryCsv);
  TempFile duty("duty.csv", kDutyCsv);
  MemoryDeriveOptions o;
  o.min_samples = 3;
  const DeriveResult r = derive_memory_profiles(mem.path(), duty.path(), o);
  std::ostringstream out;
  write_profile_library(r, out);
  const std::string text = out.str();
  EXPECT_THAT(text,
              HasSubstr("  {\"name\": \"genai-pod-001\", \"steps\": [[0, 0.25], [60, 0.50], "
                        "[120, 1.00]], \"repeat_from_s\": 0, \"period_s\": 180,\n"
                        "   \"stats\": {\"samples\": 3, \"ramp_s\": 120, \"steady_fraction\": "
                        "0.50, \"spikes_per_hour\": 20.00, \"mean_duty_cycle\": 0.300, "
                        "\"max_gib\": 0.00}}"));
  const auto j = nlohmann::json::parse(text);
  EXPECT_THAT(j.at("source").get<std::string>(), HasSubstr("CC BY 4.0"));
  EXPECT_THAT(j.at("source").get<std::string>(), HasSubstr("cluster-trace-v2026-GenAI"));
  EXPECT_FALSE(j.at("method").get<std::string>().empty());
  ASSERT_EQ(j.at("profiles").size(), 2u);
  for (const auto& p : j.at("profiles")) {
    std::vector<MemoryProfile::Step> steps;
    for (const auto& s : p.at("steps")) {
      steps.push_back({s.at(0).get<double>() * 1e6, s.at(1).get<double>()});
    }
    const MemoryProfile check(p.at("name").get<std::string>(), steps,
                              p.at("repeat_from_s").get<double>() * 1e6,
                              p.at("period_s").get<double>() * 1e6);
    EXPECT_DOUBLE_EQ(check.max_fraction(), 1.0);
    for (const char* key : {"samples", "ramp_s", "steady_fraction", "spikes_per_hour",
                            "mean_duty_cycle", "max_gib"}) {
      EXPECT_TRUE(p.at("stats").contains(key)) << key;
    }
    EXPECT_EQ(p.at("stats").size(), 6u);
  }
  // Same input, same bytes.
  std::ostringstream again;
  write_profile_library(derive_memory_profiles(mem.path(), duty.path(), o), again);
  EXPECT_EQ(again.str(), text);
}

TEST(MemoryProfilesDerive, BadRowsNameFileLineAndField) {
  const auto message = [](const std::string& memory_text, const std::string& duty_text) {
    TempFile mem("memory.csv", memory_text);
    TempFile duty("duty.csv", duty_text);
    return input_error_message([&] { derive_memory_profiles(mem.path(), duty.path()); });
  };
  const std::string header = "timestamp_anon,value,container_ip\n";
  const std::string duty_ok = "value,timestamp_anon,container_ip\n1.0,0.0,a\n";
  EXPECT_THAT(message(header + "0.0,1.0,a\n60.0,abc,a\n", duty_ok),
              HasSubstr("memory.csv:3: field 'value': expected a number, got 'abc'"));
  EXPECT_THAT(message(header + "0.0,1.0\n", duty_ok),
              HasSubstr("memory.csv:2: expected 3 fields, got 2"));
  EXPECT_THAT(message(header + "x,1.0,a\n", duty_ok),
              HasSubstr("memory.csv:2: field 'timestamp_anon': expected a number, got 'x'"));
  EXPECT_THAT(message(header + "0.0,-5.0,a\n", duty_ok),
              HasSubstr("memory.csv:2: field 'value': value -5.0 is outside"));
  EXPECT_THAT(message(header + "0.0,1.0,\n", duty_ok),
              HasSubstr("memory.csv:2: field 'container_ip': expected a pod id"));
  EXPECT_THAT(message("timestamp_anon,value,pod\n0.0,1.0,a\n", duty_ok),
              HasSubstr("memory.csv:1: field 'container_ip': missing column"));
  EXPECT_THAT(message("", duty_ok), HasSubstr("memory.csv:1: empty file"));
  EXPECT_THAT(message(header + "0.0,1.0,a\n",
                      "value,timestamp_anon,container_ip\n1.0,0.0,a\n150.0,60.0,a\n"),
              HasSubstr("duty.csv:3: field 'value': value 150.0 is outside [0, 100]"));
}

TEST(MemoryProfilesDerive, EntryPointExitCodesAndNothingWrittenOnBadInput) {
  TempFile mem("memory.csv", kMemoryCsv);
  TempFile duty("duty.csv", kDutyCsv);
  TempFile bad("bad.csv", "timestamp_anon,value,container_ip\n0.0,nope,a\n");
  const std::string out_json = mem.dir() + "/library.json";
  std::ostringstream out, err;
  EXPECT_EQ(run_derive_memory_profiles(bad.path(), duty.path(), out_json, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("bad.csv:2: field 'value'"));
  EXPECT_FALSE(std::filesystem::exists(out_json));

  std::ostringstream out2, err2;
  EXPECT_EQ(run_derive_memory_profiles(mem.path(), duty.path(), out_json, out2, err2), 0)
      << err2.str();
  EXPECT_TRUE(std::filesystem::exists(out_json));
  // Default min_samples (30) leaves none of these tiny pods.
  EXPECT_THAT(out2.str(), HasSubstr("pods 5: used 0, skipped 5"));
  EXPECT_THAT(out2.str(), HasSubstr("fewer than min_samples memory samples: 5"));
  std::filesystem::remove(out_json);

  std::ostringstream out3, err3;
  EXPECT_EQ(run_derive_memory_profiles(mem.path() + ".missing", duty.path(), out_json, out3, err3),
            2);
  EXPECT_THAT(err3.str(), HasSubstr("cannot open file"));
}

// The shared GenAI 2026 files: every pod is accounted for, and the shipped library is exactly
// what the derivation writes (regenerate with GPUMUX_UPDATE_MEMORY_PROFILES=1).
TEST(MemoryProfilesDerive, RealGenAiFilesAndShippedLibrary) {
  std::string dir = ::gpumux::testing::source_path("../shared/data/alibaba-genai-v2026");
  if (!std::filesystem::exists(dir + "/pod_gpu_memory_used_bytes_anon.csv")) GTEST_SKIP() << "shared GenAI 2026 data not found";
  const std::string memory_csv = dir + "/pod_gpu_memory_used_bytes_anon.csv";
  const std::string duty_csv = dir + "/pod_gpu_duty_cycle_anon.csv";

  const DeriveResult r = derive_memory_profiles(memory_csv, duty_csv);
  std::size_t skipped = 0;
  for (const auto& [reason, count] : r.skipped_pods) skipped += count;
  EXPECT_EQ(r.pods, 144u);
  EXPECT_EQ(r.profiles.size() + skipped, r.pods);
  EXPECT_GT(r.profiles.size(), 100u);
  for (const DerivedProfile& p : r.profiles) {
    EXPECT_LE(p.steps.size(), 48u) << p.name;
    EXPECT_GE(p.stats.samples, 30u) << p.name;
    double top = 0.0;
    for (const DerivedStep& s : p.steps) top = std::max(top, s.fraction);
    EXPECT_DOUBLE_EQ(top, 1.0) << p.name;
  }

  std::ostringstream json;
  write_profile_library(r, json);
  const std::string shipped =
      ::gpumux::testing::source_path("traces/samples/genai_memory_profiles.json");
  const char* update = std::getenv("GPUMUX_UPDATE_MEMORY_PROFILES");
  if (update && std::string(update) == "1") {
    std::ostringstream out, err;
    ASSERT_EQ(run_derive_memory_profiles(memory_csv, duty_csv, shipped, out, err), 0) << err.str();
    std::cout << out.str();
  }
  std::ifstream in(shipped, std::ios::binary);
  ASSERT_TRUE(in) << shipped << " missing (GPUMUX_UPDATE_MEMORY_PROFILES=1 writes it)";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), json.str()) << "shipped library differs from the derivation";
  EXPECT_LT(text.str().size(), 200u * 1024u);
}

// The shipped library through the engine's loader (traces/fields/memory_profile_library.h).
TEST(MemoryProfilesDerive, ShippedLibraryLoadsInTheEngine) {
  const std::string shipped =
      ::gpumux::testing::source_path("traces/samples/genai_memory_profiles.json");
  const nlohmann::json scenario_part = {{"library", shipped}};
  JsonObject o(scenario_part, "scenario.json", "/trace/memory_profiles");
  const MemoryProfileConfig c = parse_memory_profiles(o, "");
  ASSERT_EQ(c.profiles.size(), 134u);
  EXPECT_EQ(c.profiles.front()->name(), "genai-pod-001");
  for (const auto& p : c.profiles) {
    EXPECT_DOUBLE_EQ(p->max_fraction(), 1.0) << p->name();
    EXPECT_GT(p->period_us(), 0.0) << p->name();
    EXPECT_GT(p->mean_fraction(), 0.0) << p->name();
  }
  EXPECT_THAT(c.echo["library_source"].get<std::string>(), HasSubstr("CC BY 4.0"));
}

}  // namespace
}  // namespace gpumux
