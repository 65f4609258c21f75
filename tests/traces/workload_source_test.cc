// Workloads on jobs (traces/transforms/workload_source.h): names resolved against the catalogue,
// trace.workload_mix drawn on a stream of its own, and the precedence trace > catalogue >
// default for the fields the catalogue fills.
#include "traces/transforms/workload_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using testing::TempFile;

std::vector<DeviceProfile> hand_made_devices() {
  DeviceProfile a100;
  a100.name = "A100-40GB";
  a100.memory = MemoryMiB(40960);
  a100.sms = 108;
  a100.mig_memory_slices = 8;
  a100.mig_compute_slices = 7;
  MigProfile small;
  small.name = "1g.5gb";
  a100.mig_profiles = {small};
  DeviceProfile v100;
  v100.name = "V100M16";
  v100.memory = MemoryMiB(16384);
  return {a100, v100};
}

// resnet: facts and a MIG speed on A100; bert: a duty cycle only, on both devices (different).
const char* kCatalogue = R"({"workloads": {
  "resnet": {"devices": {"A100-40GB": {"sm_util": 0.4, "mem_bw_util": 0.05, "memory_mib": 4000,
                                       "mig_speeds": {"1g.5gb": 0.6}}}},
  "bert": {"devices": {"V100M16": {"sm_util": 0.7}, "A100-40GB": {"sm_util": 0.9}}}
}})";

WorkloadConfig config(const std::vector<WorkloadWeight>& mix = {}) {
  const std::vector<DeviceProfile> d = hand_made_devices();
  WorkloadConfig c;
  c.catalogue = std::make_shared<WorkloadCatalogue>(
      parse_workload_catalogue(nlohmann::json::parse(kCatalogue), "cat.json", d));
  c.catalogue_file = "cat.json";
  c.mix = mix;
  return c;
}

struct WorkloadRead {
  std::vector<JobSpec> jobs;
  WorkloadCounts counts;
};

WorkloadRead read(const std::string& trace_text, const WorkloadConfig& c,
                  const std::vector<DeviceProfile>& cluster, std::uint64_t seed = 7,
                  const TraceDefaults& defaults = {}) {
  TempFile trace("t.csv", trace_text);
  auto inner = open_trace(trace.path(), "csv", defaults, 1);
  WorkloadSource source(*inner, c, cluster, seed, trace.path());
  WorkloadRead r;
  JobSpec job;
  while (source.next(job)) r.jobs.push_back(job);
  r.counts = source.counts();
  return r;
}

TEST(WorkloadSource, TraceValuesBeatTheCatalogueWhichBeatsDefaults) {
  // a: the row gives sm_util and memory; b: the row gives nothing; c: bert lacks memory and
  // bandwidth in the catalogue; d: no workload.
  const WorkloadRead r = read(
      "id,submit_s,gpus,runtime_s,sm_util,memory_mib,workload\n"
      "a,0,1,10,0.25,1000,resnet\n"
      "b,1,1,10,,,resnet\n"
      "c,2,1,10,,,bert\n"
      "d,3,1,10,,,\n",
      config(), hand_made_devices());
  ASSERT_EQ(r.jobs.size(), 4u);
  const JobSpec &a = r.jobs[0], &b = r.jobs[1], &c = r.jobs[2], &d = r.jobs[3];
  EXPECT_DOUBLE_EQ(a.sm_util, 0.25);      // trace
  EXPECT_EQ(a.memory.mib(), 1000);        // trace
  EXPECT_DOUBLE_EQ(a.mem_bw_util, 0.05);  // catalogue: the trace has no mem_bw_util column
  EXPECT_DOUBLE_EQ(b.sm_util, 0.4);       // catalogue
  EXPECT_EQ(b.memory.mib(), 4000);        // catalogue
  EXPECT_DOUBLE_EQ(c.sm_util, 0.9);       // catalogue, on the cluster's first device with facts
  EXPECT_EQ(c.memory.mib(), 0);           // built-in default: the catalogue has no memory for bert
  EXPECT_DOUBLE_EQ(c.mem_bw_util, 0.0);
  EXPECT_DOUBLE_EQ(d.sm_util, 1.0);  // built-in default
  EXPECT_EQ(d.workload_facts, nullptr);
  // Filled fields are no longer marked as defaults; the others still are.
  const auto bit = [](JobField f) { return 1u << static_cast<int>(f); };
  EXPECT_EQ(b.defaulted_fields & bit(JobField::kSmUtil), 0u);
  EXPECT_EQ(b.defaulted_fields & bit(JobField::kMemory), 0u);
  EXPECT_NE(c.defaulted_fields & bit(JobField::kMemory), 0u);
  EXPECT_NE(d.defaulted_fields & bit(JobField::kSmUtil), 0u);
  const auto field = [](JobField f) { return static_cast<int>(f); };
  EXPECT_EQ(r.counts.filled[field(JobField::kSmUtil)], 2u);     // b, c
  EXPECT_EQ(r.counts.filled[field(JobField::kMemory)], 1u);     // b
  EXPECT_EQ(r.counts.filled[field(JobField::kMemBwUtil)], 2u);  // a, b
  EXPECT_EQ(r.counts.named, 3u);
  EXPECT_EQ(r.counts.without, 1u);
  EXPECT_EQ(r.counts.drawn, 0u);
  // resnet has measured MIG speeds on the cluster's A100; bert and the job without none.
  EXPECT_EQ(r.counts.mig_measured, 2u);
  EXPECT_EQ(r.counts.mig_model, 2u);
  ASSERT_NE(b.workload_facts, nullptr);
  EXPECT_EQ(b.workload_facts->name, "resnet");
}

TEST(WorkloadSource, FactsComeFromTheClusterDevicesInClusterOrder) {
  const std::vector<DeviceProfile> d = hand_made_devices();
  const std::vector<DeviceProfile> v100_first = {d[1], d[0]};
  const WorkloadRead r =
      read("id,submit_s,gpus,runtime_s,workload\nc,0,1,10,bert\n", config(), v100_first);
  EXPECT_DOUBLE_EQ(r.jobs[0].sm_util, 0.7);
  // A cluster of V100s only: resnet's A100 facts are not used, and no MIG speed is measured.
  const WorkloadRead v =
      read("id,submit_s,gpus,runtime_s,workload\nb,0,1,10,resnet\n", config(), {d[1]});
  EXPECT_DOUBLE_EQ(v.jobs[0].sm_util, 1.0);
  EXPECT_EQ(v.counts.mig_measured, 0u);
  EXPECT_EQ(v.counts.mig_model, 1u);
}

TEST(WorkloadSource, AnUnknownWorkloadNamesTheJobAndTheClosestName) {
  const std::string m = input_error_message([] {
    read("id,submit_s,gpus,runtime_s,workload\nok,0,1,10,resnet\nbad,1,1,10,resnett\n", config(),
         hand_made_devices());
  });
  EXPECT_THAT(m, HasSubstr("t.csv: field 'workload': job 'bad' names workload 'resnett'"));
  EXPECT_THAT(m, HasSubstr("cat.json does not hold (did you mean 'resnet'?)"));
}

TEST(WorkloadSource, TheJsonLinesWorkloadKeyIsAString) {
  TempFile trace("t.jsonl",
                 "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 5, \"workload\": "
                 "\"bert\"}\n{\"id\": \"b\", \"submit_s\": 1, \"gpus\": 1, \"runtime_s\": 5}\n");
  auto inner = open_trace(trace.path(), "jsonl", TraceDefaults{}, 1);
  const WorkloadConfig c = config();
  const std::vector<DeviceProfile> d = hand_made_devices();
  WorkloadSource source(*inner, c, d, 1, trace.path());
  JobSpec job;
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.workload, "bert");
  ASSERT_TRUE(source.next(job));
  EXPECT_EQ(job.workload, "");  // not the previous job's
  EXPECT_EQ(job.workload_facts, nullptr);
  TempFile bad("b.jsonl",
               "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 5, "
               "\"workload\": 3}\n");
  EXPECT_THAT(input_error_message([&] {
                auto r = open_trace(bad.path(), "jsonl", TraceDefaults{}, 1);
                r->next(job);
              }),
              HasSubstr("b.jsonl:1#/workload: field 'workload': expected a string"));
}

// 200 jobs, some naming a workload, the rest drawn; defaults drawn from a distribution.
std::string mixed_trace() {
  std::string t = "id,submit_s,gpus,runtime_s,workload\n";
  for (int i = 0; i < 200; ++i) {
    t += "j" + std::to_string(i) + "," + std::to_string(i) + ",1,10," +
         (i % 10 == 0 ? "bert" : "") + "\n";
  }
  return t;
}

TraceDefaults drawn_defaults() {
  const nlohmann::json d = {{"sm_share", {{"uniform", {0.2, 0.9}}}}};
  JsonObject o(d, "s.json", "/trace/defaults");
  TraceDefaults defaults;
  defaults.override_from(o);
  return defaults;
}

TEST(WorkloadSource, TheMixDrawsDeterministicallyAndMovesNoOtherDraw) {
  const std::vector<WorkloadWeight> mix = {{"resnet", 3.0}, {"bert", 1.0}};
  const std::string trace = mixed_trace();
  const WorkloadRead once = read(trace, config(mix), hand_made_devices(), 7, drawn_defaults());
  const WorkloadRead again = read(trace, config(mix), hand_made_devices(), 7, drawn_defaults());
  const WorkloadRead other_seed =
      read(trace, config(mix), hand_made_devices(), 8, drawn_defaults());
  const WorkloadRead no_mix = read(trace, config(), hand_made_devices(), 7, drawn_defaults());
  ASSERT_EQ(once.jobs.size(), 200u);
  std::map<std::string, int> by_name;
  int differ = 0;
  for (std::size_t i = 0; i < once.jobs.size(); ++i) {
    EXPECT_EQ(once.jobs[i].workload, again.jobs[i].workload);
    differ += once.jobs[i].workload != other_seed.jobs[i].workload;
    // Named jobs keep their name; the defaults' draws (sm_share) are the same with or without
    // the mix, and under another mix seed.
    if (i % 10 == 0) {
      EXPECT_EQ(once.jobs[i].workload, "bert");
    }
    EXPECT_DOUBLE_EQ(once.jobs[i].sm_share, no_mix.jobs[i].sm_share);
    EXPECT_DOUBLE_EQ(once.jobs[i].sm_share, other_seed.jobs[i].sm_share);
    if (i % 10 != 0) ++by_name[once.jobs[i].workload];
  }
  EXPECT_GT(differ, 0);
  EXPECT_EQ(once.counts.named, 20u);
  EXPECT_EQ(once.counts.drawn, 180u);
  EXPECT_EQ(no_mix.counts.drawn, 0u);
  EXPECT_EQ(no_mix.counts.without, 180u);
  // 3:1 over 180 draws: 135 expected; a binomial's sd is 5.8, so 3 sd either side.
  EXPECT_NEAR(by_name["resnet"], 135, 18);
  EXPECT_EQ(by_name["resnet"] + by_name["bert"], 180);
}

}  // namespace
}  // namespace gpumux
