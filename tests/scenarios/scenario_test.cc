#include "scenarios/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/traces/test_files.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using testing::source_path;
using ::testing::StartsWith;
using testing::TempFile;
using json = nlohmann::json;

std::string quickstart() { return source_path("scenarios/examples/quickstart.json"); }

// A minimal valid scenario document (generated trace, one node group).
json minimal() {
  return {{"cluster",
           {{"node_groups", {{{"nodes", 2}, {"gpus_per_node", 4}, {"device", "A100-80GB"}}}}}},
          {"trace", {{"generator", {{"jobs", 10}}}}}};
}

// A scenario document as if read from `file` (by default a file in the test's temporary folder).
Scenario parse(const json& doc,
               const std::string& file =
                   (std::filesystem::path(::testing::TempDir()) / "s" / "mini.json").string()) {
  return parse_scenario(doc, file, std::filesystem::path(file).parent_path().string());
}

// --- the quickstart -------------------------------------------------------------------------

TEST(Quickstart, Parses) {
  Scenario s = load_scenario(quickstart());
  EXPECT_EQ(s.name, "quickstart");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.gpu_count(), 16u);
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[0].gpus, 8);
  EXPECT_EQ(s.nodes[0].name, "v100-0");
  EXPECT_EQ(s.nodes[1].name, "v100-1");
  EXPECT_TRUE(s.nodes[0].nvlink);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].name, "V100M32");
  EXPECT_EQ(s.nodes[0].device, 0);
  ASSERT_NE(s.model, nullptr);
  EXPECT_EQ(s.model->name(), "exclusive");
  EXPECT_EQ(s.queue->name, "fifo");
  EXPECT_EQ(s.placement->name, "best-fit");
  EXPECT_FALSE(s.trace.generated);
  EXPECT_EQ(s.trace.format, "tiresias");
  EXPECT_TRUE(std::filesystem::is_regular_file(s.trace.path)) << s.trace.path;
  EXPECT_EQ(std::filesystem::path(s.trace.path).filename(), "tiresias_60_job.csv");
  EXPECT_EQ(s.outputs.dir, "out/quickstart");
  EXPECT_EQ(s.outputs.timeseries_interval, Time::from_seconds(60));
  EXPECT_TRUE(s.horizon.is_infinite());
}

TEST(Quickstart, TraceReadsWithScenarioDefaults) {
  Scenario s = load_scenario(quickstart());
  EXPECT_EQ(s.trace.defaults.source(JobField::kSmUtil), "scenario trace.defaults");
  EXPECT_EQ(s.trace.defaults.source(JobField::kMemory), "scenario trace.defaults");
  EXPECT_EQ(s.trace.defaults.source(JobField::kSmShare), "built-in default");
  auto source = open_trace(s.trace.path, s.trace.format, s.trace.defaults, s.seed);
  JobSpec job;
  int n = 0;
  while (source->next(job)) {
    ++n;
    EXPECT_GE(job.sm_util, 0.3);
    EXPECT_LE(job.sm_util, 0.95);
    const auto m = job.memory.mib();
    EXPECT_TRUE(m == 4096 || m == 8192 || m == 16384 || m == 24576) << m;
  }
  EXPECT_EQ(n, 60);
}

TEST(Quickstart, ResolvedEchoContainsEveryDefault) {
  Scenario s = load_scenario(quickstart());
  json r = s.resolved;  // a copy: a missing key reads as null, not UB
  EXPECT_EQ(r["name"], "quickstart");
  EXPECT_EQ(r["seed"], 42);
  EXPECT_EQ(r["cluster"]["total_gpus"], 16);
  json& g = r["cluster"]["node_groups"][0];
  EXPECT_EQ(g["nodes"], 2);
  EXPECT_EQ(g["gpus_per_node"], 8);
  EXPECT_EQ(g["device"], "V100M32");
  EXPECT_EQ(g["nvlink"], true);
  EXPECT_EQ(g["nodes_per_rack"], 8);  // not in the file: the default
  ASSERT_EQ(r["cluster"]["devices"].size(), 1u);
  EXPECT_EQ(r["cluster"]["devices"][0]["name"], "V100M32");
  EXPECT_EQ(r["cluster"]["devices"][0]["mps_client_limit"], 48);
  EXPECT_EQ(r["sharing"]["model"], "exclusive");
  EXPECT_TRUE(r["sharing"]["params"].is_object());
  EXPECT_TRUE(r["sharing"]["parameters"].is_array());
  EXPECT_EQ(r["scheduler"]["queue"], "fifo");
  EXPECT_EQ(r["scheduler"]["placement"], "best-fit");
  EXPECT_EQ(r["scheduler"]["backfill_depth"], 64);
  EXPECT_EQ(r["trace"]["file"], "../../traces/samples/tiresias_60_job.csv");
  EXPECT_EQ(r["trace"]["format"], "tiresias");
  // Every optional trace field appears with its value and where it came from.
  json& d = r["trace"]["defaults"];
  for (const auto& f : job_fields()) {
    const std::string name(f.name);
    if (f.required) {
      EXPECT_FALSE(d.contains(name)) << name;
      continue;
    }
    ASSERT_TRUE(d.contains(name)) << name;
    EXPECT_TRUE(d[name].contains("value")) << name;
    EXPECT_TRUE(d[name].contains("source")) << name;
  }
  EXPECT_EQ(d["sm_util"]["source"], "scenario trace.defaults");
  EXPECT_EQ(d["sm_util"]["value"], json({{"uniform", {0.3, 0.95}}}));
  EXPECT_EQ(d["sm_share"]["source"], "built-in default");
  EXPECT_EQ(d["sm_share"]["value"], 1.0);
  EXPECT_EQ(d["kind"]["value"], "training");
  EXPECT_EQ(d["kernel_us"]["value"], 1000.0);
  // The output folder is deliberately not echoed: the same run written to two folders must give
  // byte-identical summaries.
  EXPECT_FALSE(r["outputs"].contains("dir"));
  EXPECT_EQ(r["outputs"]["timeseries_interval_s"], 60.0);
  EXPECT_EQ(r["outputs"]["jobs_csv"], true);
  EXPECT_EQ(r["outputs"]["timeseries_csv"], true);
  EXPECT_TRUE(r["limits"]["max_time_s"].is_null());
}

// --- defaults of a minimal scenario -----------------------------------------------------------

TEST(ParseScenario, MinimalTakesDocumentedDefaults) {
  Scenario s = parse(minimal());
  EXPECT_EQ(s.name, "mini");  // the file's stem
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.gpu_count(), 8u);
  EXPECT_EQ(s.model->name(), "exclusive");
  EXPECT_EQ(s.queue->name, "fifo");
  EXPECT_EQ(s.placement->name, "first-fit");
  EXPECT_EQ(s.backfill_depth, 64);
  EXPECT_EQ(s.outputs.dir, "out/mini");
  EXPECT_TRUE(s.horizon.is_infinite());
  EXPECT_EQ(s.nodes[0].name, "group0-0");
  EXPECT_TRUE(s.nodes[0].nvlink);
  EXPECT_EQ(s.resolved["sharing"]["model"], "exclusive");
  EXPECT_EQ(s.resolved["scheduler"]["placement"], "first-fit");
}

TEST(ParseScenario, RacksFollowNodesPerRack) {
  json doc = minimal();
  doc["cluster"]["node_groups"] = {
      {{"nodes", 5}, {"gpus_per_node", 8}, {"device", "H100-80GB"}, {"nodes_per_rack", 2}},
      {{"name", "small"}, {"nodes", 1}, {"gpus_per_node", 1}, {"device", "T4"}, {"nvlink", false}}};
  Scenario s = parse(doc);
  ASSERT_EQ(s.nodes.size(), 6u);
  EXPECT_EQ(s.nodes[0].rack, 0);
  EXPECT_EQ(s.nodes[1].rack, 0);
  EXPECT_EQ(s.nodes[2].rack, 1);
  EXPECT_EQ(s.nodes[4].rack, 2);
  EXPECT_EQ(s.nodes[5].rack, 3);  // the next group starts a new rack
  EXPECT_EQ(s.nodes[5].name, "small-0");
  EXPECT_FALSE(s.nodes[5].nvlink);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[s.nodes[0].device].name, "H100-80GB");
  EXPECT_EQ(s.devices[s.nodes[5].device].name, "T4");
  EXPECT_EQ(s.gpu_count(), 41u);
}

TEST(ParseScenario, SameDeviceInTwoGroupsIsListedOnce) {
  json doc = minimal();
  doc["cluster"]["node_groups"].push_back(
      {{"nodes", 1}, {"gpus_per_node", 2}, {"device", "A100-80GB"}});
  Scenario s = parse(doc);
  EXPECT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.nodes.back().device, 0);
}

TEST(ParseScenario, DeviceOverrideAppliesToTheCluster) {
  json doc = minimal();
  doc["cluster"]["devices"] = {{{"name", "A100-80GB"}, {"memory_mib", 70000}},
                               {{"name", "Custom"}, {"memory_mib", 1000}, {"sms", 10}}};
  doc["cluster"]["node_groups"].push_back(
      {{"nodes", 1}, {"gpus_per_node", 1}, {"device", "Custom"}});
  Scenario s = parse(doc);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].memory, MemoryMiB(70000));
  EXPECT_EQ(s.devices[0].sms, 108);  // kept from the built-in
  EXPECT_EQ(s.devices[1].name, "Custom");
  EXPECT_EQ(s.resolved["cluster"]["devices"][0]["memory_mib"], 70000);
}

TEST(ParseScenario, LimitsAndOutputs) {
  json doc = minimal();
  doc["name"] = "named";
  doc["limits"] = {{"max_time_s", 3600.5}};
  doc["outputs"] = {{"timeseries_interval_s", 0.5}, {"jobs_csv", false}};
  doc["scheduler"] = {{"queue", "fifo-backfill"}, {"backfill_depth", 3}};
  Scenario s = parse(doc);
  EXPECT_EQ(s.horizon, Time::from_us(3'600'500'000));
  EXPECT_EQ(s.resolved["limits"]["max_time_s"], 3600.5);
  EXPECT_EQ(s.outputs.dir, "out/named");
  EXPECT_EQ(s.outputs.timeseries_interval, Time::from_us(500'000));
  EXPECT_FALSE(s.outputs.jobs_csv);
  EXPECT_TRUE(s.outputs.timeseries_csv);
  EXPECT_EQ(s.queue->name, "fifo-backfill");
  EXPECT_EQ(s.backfill_depth, 3);
  EXPECT_EQ(s.resolved["scheduler"]["queue"], "fifo-backfill");
}

// scheduler.params is read by the chosen queue and placement policies as models read
// sharing.params: a key neither declares is an error, and the object is echoed only when given.
TEST(Scenario, SchedulerParamsAreReadByTheChosenPolicies) {
  json doc = minimal();
  doc["scheduler"] = {{"queue", "fifo"}, {"placement", "spread"}};
  Scenario plain = parse(doc);
  EXPECT_EQ(plain.placement->name, "spread");
  EXPECT_TRUE(plain.queue_params.empty());
  EXPECT_TRUE(plain.placement_params.empty());
  EXPECT_FALSE(plain.resolved["scheduler"].contains("params"));
  doc["scheduler"]["params"] = json::object();
  Scenario given = parse(doc);
  EXPECT_EQ(given.resolved["scheduler"]["params"], json::object());
  EXPECT_EQ(given.resolved["scheduler"]["parameters"], json::array());
  doc["scheduler"]["params"] = {{"lookahead", 3}};
  const std::string msg = input_error_message([&] { parse(doc); });
  EXPECT_THAT(msg, HasSubstr("#/scheduler/params/lookahead"));
  EXPECT_THAT(msg, HasSubstr("unknown key"));
  doc["scheduler"]["params"] = 3;
  EXPECT_THROW(parse(doc), InputError);
}

// The placement entry is resolved once, under the scenario's model: `best-fit` is the FGD
// study's under a model that limits compute shares.
TEST(Scenario, PlacementIsResolvedUnderTheModel) {
  json doc = minimal();
  doc["scheduler"] = {{"placement", "best-fit"}};
  EXPECT_FALSE(parse(doc).placement->share_aware);
  doc["sharing"] = {{"model", "fractional"}};
  EXPECT_TRUE(parse(doc).placement->share_aware);
  EXPECT_EQ(parse(doc).resolved["scheduler"]["placement"], "best-fit");
}

TEST(Scenario, GreedyQueueWithShortestOrderIsEchoed) {
  json doc = minimal();
  doc["scheduler"] = {{"queue", "greedy"}, {"order", "shortest"}};
  Scenario s = parse(doc);
  EXPECT_EQ(s.queue->name, "greedy");
  EXPECT_EQ(s.order, QueueOrder::kShortest);
  EXPECT_EQ(s.resolved["scheduler"]["queue"], "greedy");
  EXPECT_EQ(s.resolved["scheduler"]["order"], "shortest");
  doc["scheduler"] = {{"queue", "greedy"}};
  EXPECT_EQ(parse(doc).resolved["scheduler"]["order"], "arrival");
  // Other queues have no choice of order: their echo stays as it was.
  doc["scheduler"] = {{"queue", "fifo"}, {"order", "arrival"}};
  EXPECT_FALSE(parse(doc).resolved["scheduler"].contains("order"));
}

TEST(Scenario, ArrivalBatchesDefaultToOneMinuteAndAreEchoed) {
  json doc = minimal();
  Scenario plain = parse(doc);
  EXPECT_EQ(plain.trace.batch_jobs, 0u);
  EXPECT_FALSE(plain.resolved["trace"].contains("arrival_batches"));
  doc["trace"]["arrival_batches"] = {{"jobs", 1000}};
  Scenario s = parse(doc);
  EXPECT_EQ(s.trace.batch_jobs, 1000u);
  EXPECT_EQ(s.trace.batch_every, Time::from_seconds(60));
  EXPECT_EQ(s.resolved["trace"]["arrival_batches"]["every_s"], 60.0);
  doc["trace"]["arrival_batches"] = {{"jobs", 5}, {"every_s", 0.5}};
  EXPECT_EQ(parse(doc).trace.batch_every, Time::from_us(500'000));
}

// --- generator scenarios --------------------------------------------------------------------

TEST(GeneratorScenario, ParsesAndEchoesResolvedGenerator) {
  json doc = minimal();
  doc["trace"]["generator"] = {
      {"jobs", 30}, {"arrival", {{"process", "bursty"}, {"rate_per_hour", 10}}}, {"gpus", 1}};
  Scenario s = parse(doc);
  EXPECT_TRUE(s.trace.generated);
  EXPECT_TRUE(s.trace.path.empty());
  EXPECT_EQ(s.trace.generator.jobs, 30u);
  EXPECT_EQ(s.trace.generator.process, "bursty");
  json& g = s.resolved["trace"]["generator"];
  EXPECT_EQ(g["jobs"], 30);
  EXPECT_EQ(g["arrival"]["process"], "bursty");
  EXPECT_EQ(g["arrival"]["burst_factor"], 8.0);  // default filled in
  EXPECT_EQ(g["gpus"], 1);
  EXPECT_TRUE(g["runtime_s"].contains("lognormal"));
  EXPECT_FALSE(s.resolved["trace"].contains("file"));

  GeneratedJobs jobs(s.trace.generator, s.seed);
  JobSpec job;
  int n = 0;
  while (jobs.next(job)) {
    ++n;
    EXPECT_EQ(job.gpus, 1);
  }
  EXPECT_EQ(n, 30);
}

// --- trace files relative to the scenario -----------------------------------------------------

TEST(TraceFile, RelativeToTheScenarioFolder) {
  TempFile trace("jobs.jsonl", "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 5}\n");
  json doc = minimal();
  doc["trace"] = {{"file", "jobs.jsonl"}, {"format", "jsonl"}};
  TempFile scenario("s.json", doc.dump());
  Scenario s = load_scenario(scenario.path());
  EXPECT_EQ(s.trace.path, trace.path());
  EXPECT_EQ(s.trace.format, "jsonl");
  EXPECT_EQ(s.resolved["trace"]["file"], "jobs.jsonl");
}

// --- nodes CSV --------------------------------------------------------------------------------

TEST(NodesCsv, NativeFormat) {
  TempFile nodes("nodes.csv",
                 "name,gpus,device,rack,nvlink\n"
                 "a,8,A100-80GB,r1,true\n"
                 "# comment\n"
                 "b,4,T4,r2,0\n"
                 "c,2,A100-80GB,r1,1\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "nodes.csv"}};
  TempFile scenario("s.json", doc.dump());
  Scenario s = load_scenario(scenario.path());
  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.gpu_count(), 14u);
  EXPECT_EQ(s.nodes[0].name, "a");
  EXPECT_EQ(s.nodes[0].rack, 0);
  EXPECT_EQ(s.nodes[1].rack, 1);
  EXPECT_EQ(s.nodes[2].rack, 0);  // same rack label, same rack
  EXPECT_TRUE(s.nodes[0].nvlink);
  EXPECT_FALSE(s.nodes[1].nvlink);
  EXPECT_TRUE(s.nodes[2].nvlink);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[s.nodes[1].device].name, "T4");
  EXPECT_EQ(s.skipped_node_rows, 0u);
  EXPECT_EQ(s.resolved["cluster"]["nodes_csv"], "nodes.csv");
  EXPECT_EQ(s.resolved["cluster"]["nodes"], 3);
  EXPECT_EQ(s.resolved["cluster"]["total_gpus"], 14);
}

TEST(NodesCsv, GzipFileReadsLikeThePlainFile) {
  if (!testing::can_test_gzip()) GTEST_SKIP() << "no zlib in this build, or no gzip command";
  TempFile nodes("nodes.csv.gz", "");
  testing::write_gzip(nodes.path(), "name,gpus,device\na,8,A100-80GB\nb,4,T4\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "nodes.csv.gz"}};
  TempFile scenario("s.json", doc.dump());
  Scenario s = load_scenario(scenario.path());
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.gpu_count(), 12u);
  EXPECT_EQ(s.devices[s.nodes[1].device].name, "T4");
}

TEST(NodesCsv, NativeWithoutOptionalColumns) {
  TempFile nodes("nodes.csv", "device,gpus,name\nA30-24GB,1,x\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "nodes.csv"}};
  TempFile scenario("s.json", doc.dump());
  Scenario s = load_scenario(scenario.path());
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_TRUE(s.nodes[0].nvlink);
  EXPECT_EQ(s.devices[0].name, "A30-24GB");
}

TEST(NodesCsv, OpenbNodesWithoutGpusAreCountedAndLeftOut) {
  TempFile nodes("openb.csv",
                 "sn,cpu_milli,memory_mib,gpu,model\n"
                 "openb-node-0000,32000,262144,0,\n"
                 "openb-node-0001,64000,262144,2,P100\n"
                 "openb-node-0002,32000,262144,0,\n"
                 "openb-node-0003,96000,786432,8,G2\n"
                 "openb-node-0004,96000,786432,0,\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "openb.csv"}};
  TempFile scenario("s.json", doc.dump());
  Scenario s = load_scenario(scenario.path());
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.skipped_node_rows, 3u);
  EXPECT_EQ(s.gpu_count(), 10u);
  EXPECT_EQ(s.nodes[0].name, "openb-node-0001");
  EXPECT_EQ(s.nodes[1].gpus, 8);
  EXPECT_FALSE(s.nodes[0].nvlink);  // the openb list says nothing about NVLink
  EXPECT_EQ(s.devices[s.nodes[1].device].name, "G2");
  EXPECT_EQ(s.resolved["cluster"]["skipped_node_rows_without_gpus"], 3);
  EXPECT_EQ(s.resolved["cluster"]["nodes"], 2);
}

// The openb node list's cpu_milli is the node's CPU capacity (thousandths of a core -> cores).
TEST(NodesCsv, OpenbCpuMilliBecomesNodeCpus) {
  TempFile nodes("openb_cpus.csv",
                 "sn,cpu_milli,memory_mib,gpu,model\n"
                 "openb-node-0000,32000,262144,0,\n"
                 "openb-node-0001,64000,262144,2,P100\n"
                 "openb-node-0003,96500,786432,8,G2\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "openb_cpus.csv"}};
  TempFile scenario("s.json", doc.dump());
  Scenario s = load_scenario(scenario.path());
  ASSERT_EQ(s.nodes.size(), 2u);
  ASSERT_TRUE(s.nodes[0].cpus.has_value());
  EXPECT_DOUBLE_EQ(*s.nodes[0].cpus, 64.0);
  EXPECT_DOUBLE_EQ(*s.nodes[1].cpus, 96.5);
}

TEST(NodesCsv, NativeCpusColumnIsOptional) {
  TempFile nodes("native_cpus.csv", "name,gpus,device,cpus\na,4,A30-24GB,32\nb,4,A30-24GB,16.5\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "native_cpus.csv"}};
  TempFile scenario("s.json", doc.dump());
  Scenario s = load_scenario(scenario.path());
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(*s.nodes[0].cpus, 32.0);
  EXPECT_DOUBLE_EQ(*s.nodes[1].cpus, 16.5);
}

TEST(ParseScenario, NodeGroupCpusAreOptionalAndEchoed) {
  json doc = minimal();
  doc["cluster"]["node_groups"].push_back(
      {{"nodes", 1}, {"gpus_per_node", 8}, {"device", "A100-80GB"}, {"cpus", 96}});
  const Scenario s = parse(doc);
  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_FALSE(s.nodes[0].cpus.has_value());  // not declared: not tracked
  ASSERT_TRUE(s.nodes[2].cpus.has_value());
  EXPECT_DOUBLE_EQ(*s.nodes[2].cpus, 96.0);
  EXPECT_FALSE(s.resolved["cluster"]["node_groups"][0].contains("cpus"));
  EXPECT_EQ(s.resolved["cluster"]["node_groups"][1]["cpus"], 96);
}

// A node group without GPUs is a CPU pool: it needs cores, names no device of the cluster, and
// adds nodes but no GPU.
TEST(ParseScenario, CpuPoolGroupAddsNodesWithCoresAndNoGpu) {
  json doc = minimal();
  doc["cluster"]["node_groups"].push_back(
      {{"name", "cpu"}, {"nodes", 3}, {"gpus_per_node", 0}, {"cpus", 64}});
  const Scenario s = parse(doc);
  ASSERT_EQ(s.nodes.size(), 5u);
  EXPECT_EQ(s.gpu_count(), 8u);
  EXPECT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.nodes[4].gpus, 0);
  EXPECT_EQ(s.nodes[4].device, kNoDeviceIndex);
  EXPECT_DOUBLE_EQ(*s.nodes[4].cpus, 64.0);
  const auto& echo = s.resolved["cluster"]["node_groups"][1];
  EXPECT_EQ(echo["gpus_per_node"], 0);
  EXPECT_EQ(echo["device"], "none");
  EXPECT_EQ(echo["cpus"], 64);
  // A device, when given, must be known, and still adds none to the cluster.
  doc["cluster"]["node_groups"][1]["device"] = "T4";
  EXPECT_EQ(parse(doc).devices.size(), 1u);
  doc["cluster"]["node_groups"][1]["device"] = "Z9";
  EXPECT_THAT(input_error_message([&] { parse(doc); }),
              HasSubstr("#/cluster/node_groups/1/device"));
  // CPU pools alone: a cluster of no GPU (GPU jobs are then rejected at arrival).
  doc["cluster"]["node_groups"].erase(0);
  doc["cluster"]["node_groups"][0].erase("device");
  EXPECT_EQ(parse(doc).gpu_count(), 0u);
}

TEST(ParseScenario, GroupWithoutGpusNeedsCores) {
  json doc = minimal();
  doc["cluster"]["node_groups"].push_back({{"nodes", 1}, {"gpus_per_node", 0}});
  EXPECT_THAT(input_error_message([&] { parse(doc); }),
              HasSubstr("#/cluster/node_groups/1/gpus_per_node: field 'gpus_per_node': a node "
                        "group without GPUs is a CPU pool for CPU-only jobs and needs 'cpus' > 0"));
  doc["cluster"]["node_groups"][1]["cpus"] = 0;
  EXPECT_THAT(input_error_message([&] { parse(doc); }),
              HasSubstr("#/cluster/node_groups/1/gpus_per_node: field 'gpus_per_node'"));
  doc["cluster"]["node_groups"][1]["gpus_per_node"] = -1;
  EXPECT_THAT(input_error_message([&] { parse(doc); }),
              HasSubstr("#/cluster/node_groups/1/gpus_per_node: field 'gpus_per_node'"));
}

TEST(NodesCsv, RealOpenbNodeListIfPresent) {
  const std::string path = (std::filesystem::path(testing::source_dir()) /
                            "../shared/data/alibaba-gpu-v2023/openb_node_list_all_node.csv")
                               .lexically_normal()
                               .string();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << path;
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", path}};
  Scenario s = parse(doc);
  EXPECT_EQ(s.nodes.size() + s.skipped_node_rows, 1523u);
  EXPECT_EQ(s.skipped_node_rows, 310u);
  EXPECT_EQ(s.gpu_count(), 6212u);  // the FGD paper's cluster
}

TEST(NodesCsv, OnlyGpulessNodesIsAnError) {
  TempFile nodes("openb.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,0,\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "openb.csv"}};
  TempFile scenario("s.json", doc.dump());
  const std::string msg = input_error_message([&] { load_scenario(scenario.path()); });
  EXPECT_THAT(msg, StartsWith(nodes.path()));
  EXPECT_THAT(msg, HasSubstr("no node with GPUs"));
}

TEST(NodesCsv, MissingFileNamesIt) {
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "absent.csv"}};
  TempFile scenario("s.json", doc.dump());
  const std::string msg = input_error_message([&] { load_scenario(scenario.path()); });
  EXPECT_THAT(msg, HasSubstr("absent.csv"));
  EXPECT_THAT(msg, HasSubstr("cannot open"));
}

TEST(NodesCsv, WrongFieldCount) {
  TempFile nodes("nodes.csv", "name,gpus,device\na,8\n");
  json doc = minimal();
  doc["cluster"] = {{"nodes_csv", "nodes.csv"}};
  TempFile scenario("s.json", doc.dump());
  const std::string msg = input_error_message([&] { load_scenario(scenario.path()); });
  EXPECT_THAT(msg, StartsWith(nodes.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("expected 3 fields"));
}

// --- overrides --------------------------------------------------------------------------------

TEST(ApplyOverride, DottedPathCreatesNestedKeys) {
  json doc = json::object();
  apply_override(doc, "a.b.c=5");
  EXPECT_EQ(doc, json({{"a", {{"b", {{"c", 5}}}}}}));
}

TEST(ApplyOverride, JsonPointerPath) {
  json doc = minimal();
  apply_override(doc, "/cluster/node_groups/0/nodes=7");
  EXPECT_EQ(doc["cluster"]["node_groups"][0]["nodes"], 7);
  apply_override(doc, "/a~1b=1");  // "~1" escapes '/'
  EXPECT_EQ(doc["a/b"], 1);
}

TEST(ApplyOverride, DottedPathIndexesArrays) {
  json doc = minimal();
  apply_override(doc, "cluster.node_groups.0.gpus_per_node=2");
  EXPECT_EQ(doc["cluster"]["node_groups"][0]["gpus_per_node"], 2);
}

TEST(ApplyOverride, ValueIsJsonElseBareString) {
  json doc = json::object();
  apply_override(doc, "n=42");
  apply_override(doc, "x=1.5");
  apply_override(doc, "b=true");
  apply_override(doc, "arr=[1,2]");
  apply_override(doc, "obj={\"k\":\"v\"}");
  apply_override(doc, "s=fifo-backfill");
  apply_override(doc, "q=\"42\"");
  apply_override(doc, "empty=");
  apply_override(doc, "eq=a=b");  // only the first '=' separates
  EXPECT_EQ(doc["n"], 42);
  EXPECT_TRUE(doc["n"].is_number_integer());
  EXPECT_EQ(doc["x"], 1.5);
  EXPECT_EQ(doc["b"], true);
  EXPECT_EQ(doc["arr"], json({1, 2}));
  EXPECT_EQ(doc["obj"], json({{"k", "v"}}));
  EXPECT_EQ(doc["s"], "fifo-backfill");
  EXPECT_EQ(doc["q"], "42");
  EXPECT_TRUE(doc["q"].is_string());
  EXPECT_EQ(doc["empty"], "");
  EXPECT_EQ(doc["eq"], "a=b");
}

TEST(ApplyOverride, ReplacesExistingValues) {
  json doc = minimal();
  apply_override(doc, "trace.generator.jobs=99");
  EXPECT_EQ(doc["trace"]["generator"]["jobs"], 99);
  EXPECT_EQ(doc["cluster"]["node_groups"][0]["nodes"], 2);  // untouched
}

TEST(ApplyOverride, MalformedAssignmentIsInputError) {
  json doc = minimal();
  for (const char* bad : {"sharing.model", "=exclusive", ""}) {
    const std::string msg = input_error_message([&] { apply_override(doc, bad); });
    EXPECT_THAT(msg, StartsWith(std::string("--set ") + bad)) << bad;
    EXPECT_THAT(msg, HasSubstr("expected path=value")) << bad;
  }
}

TEST(ApplyOverride, PathThroughANonObjectIsInputError) {
  json doc = minimal();
  doc["seed"] = 3;
  const std::string msg = input_error_message([&] { apply_override(doc, "seed.x=1"); });
  EXPECT_THAT(msg, StartsWith("--set seed.x=1"));
  EXPECT_THAT(msg, HasSubstr("field '/seed/x'"));
  EXPECT_THAT(msg, HasSubstr("cannot set"));
}

TEST(ApplyOverride, InvalidPointerIsInputError) {
  json doc = json::object();
  const std::string msg = input_error_message([&] { apply_override(doc, "/a~2=1"); });
  EXPECT_THAT(msg, StartsWith("--set /a~2=1"));
  EXPECT_THAT(msg, HasSubstr("cannot set"));
}

TEST(LoadScenario, OverridesApplyBeforeValidation) {
  ScenarioOverrides o;
  o.sets = {"scheduler.placement=first-fit", "cluster.node_groups.0.nodes=3", "name=renamed"};
  o.seed = 7;
  o.out_dir = "elsewhere/out";
  Scenario s = load_scenario(quickstart(), o);
  EXPECT_EQ(s.placement->name, "first-fit");
  EXPECT_EQ(s.gpu_count(), 24u);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.name, "renamed");
  EXPECT_EQ(s.outputs.dir, "elsewhere/out");
  EXPECT_EQ(s.resolved["seed"], 7);
}

TEST(LoadScenario, OverriddenBadValueIsReportedAtItsPointer) {
  ScenarioOverrides o;
  o.sets = {"scheduler.queue=lifo"};
  const std::string msg = input_error_message([&] { load_scenario(quickstart(), o); });
  EXPECT_THAT(msg, StartsWith(quickstart() + "#/scheduler/queue"));
  EXPECT_THAT(msg, HasSubstr("field 'queue'"));
  EXPECT_THAT(msg, HasSubstr("fifo, fifo-backfill"));  // valid names listed
}

TEST(LoadScenario, MissingFile) {
  const std::string msg = input_error_message([] { load_scenario("/nonexistent/s.json"); });
  EXPECT_THAT(msg, StartsWith("/nonexistent/s.json"));
  EXPECT_THAT(msg, HasSubstr("cannot open"));
}

TEST(LoadScenario, UnknownModelListsRegisteredModels) {
  ScenarioOverrides o;
  o.sets = {"sharing.model=teleport"};
  const std::string msg = input_error_message([&] { load_scenario(quickstart(), o); });
  EXPECT_THAT(msg, StartsWith(quickstart() + "#/sharing/model"));
  EXPECT_THAT(msg, HasSubstr("exclusive"));
}

}  // namespace
}  // namespace gpumux
