#include "traces/formats/public/public_traces.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/transforms/arrival_batch_source.h"
#include "traces/transforms/integer_seconds_source.h"
#include "traces/io/text_input.h"

namespace gpumux {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::input_error_message;
using ::testing::Pair;
using testing::source_path;
using testing::TempFile;
using ::testing::UnorderedElementsAre;

constexpr double kEps = 1e-9;

std::size_t idx(JobField f) { return static_cast<std::size_t>(f); }

std::string data(const std::string& name) {
  return source_path("tests/data/public-traces/" + name);
}

struct Loaded {
  std::vector<JobSpec> jobs;
  std::map<std::string, std::uint64_t> skipped;
  std::uint64_t skipped_rows = 0;
  std::uint64_t records = 0;
  TraceStats stats;
};

Loaded load(const std::string& path, const std::string& format) {
  auto source = open_public_trace_source(path, format, TraceDefaults(), 1);
  EXPECT_NE(source, nullptr) << format;
  Loaded out;
  if (!source) return out;
  JobSpec job;
  while (source->next(job)) out.jobs.push_back(job);
  out.skipped = source->skipped_by_reason();
  out.skipped_rows = source->skipped_rows();
  out.records = source->records_read();
  out.stats = source->stats();
  return out;
}

std::vector<std::string> ids(const Loaded& l) {
  std::vector<std::string> v;
  for (const auto& j : l.jobs) v.push_back(j.id);
  return v;
}

const JobSpec& by_id(const Loaded& l, const std::string& id) {
  for (const auto& j : l.jobs) {
    if (j.id == id) return j;
  }
  ADD_FAILURE() << "no job " << id;
  static const JobSpec kNone;
  return kNone;
}

std::uint64_t sum(const std::map<std::string, std::uint64_t>& m) {
  std::uint64_t n = 0;
  for (const auto& [k, v] : m) n += v;
  return n;
}

std::string load_error(const std::string& path, const std::string& format) {
  return input_error_message([&] { load(path, format); });
}

// --- registry -------------------------------------------------------------------------------

TEST(PublicTraceFormats, NamesAndUnknownFormat) {
  EXPECT_THAT(public_trace_format_names(),
              ElementsAre("pai2020", "pai-sim", "dlrm2025", "philly", "helios", "openb-pods"));
  EXPECT_EQ(open_public_trace(data("pai_sim.csv"), "parquet", TraceDefaults(), 1), nullptr);
  EXPECT_NE(open_public_trace(data("pai_sim.csv"), "pai-sim", TraceDefaults(), 1), nullptr);
}

TEST(PublicTraceFormats, MissingFileNamesIt) {
  for (const auto& format : public_trace_format_names()) {
    const std::string msg = input_error_message(
        [&] { open_public_trace("/nonexistent/trace.file", format, TraceDefaults(), 1); });
    EXPECT_THAT(msg, HasSubstr("/nonexistent/trace.file")) << format;
  }
}

// --- openb-pods -----------------------------------------------------------------------------

TEST(PublicTraceOpenb, MapsFieldsSkipsAndSorts) {
  const Loaded l = load(data("openb_pods_excerpt.csv"), "openb-pods");
  // The excerpt is in file order (not sorted): jobs come out by creation_time.
  // The three CPU pods (num_gpu 0, 32 cores) are jobs of 0 GPUs, created last.
  EXPECT_THAT(ids(l),
              ElementsAre("openb-pod-1097", "openb-pod-1095", "openb-pod-1092", "openb-pod-1093",
                          "openb-pod-1088", "openb-pod-1091", "openb-pod-1090", "openb-pod-3412",
                          "openb-pod-1094", "openb-pod-3475", "openb-pod-1099", "openb-pod-1096",
                          "openb-pod-1085", "openb-pod-1086", "openb-pod-1087"));
  EXPECT_THAT(l.skipped, UnorderedElementsAre(Pair("never_scheduled", 3)));
  EXPECT_EQ(l.records, 18u);
  EXPECT_EQ(l.skipped_rows, 2u + 3u);  // two attribution comment lines
  // cpu_milli / 1000 is the pod's cores; a CPU pod runs scheduled -> deletion like the others.
  const JobSpec& cpu = by_id(l, "openb-pod-1085");
  EXPECT_EQ(cpu.gpus, 0);
  EXPECT_DOUBLE_EQ(cpu.cpus, 32.0);
  EXPECT_EQ(cpu.submit, Time::from_seconds(12451756));
  EXPECT_EQ(cpu.runtime, Time::from_seconds(12453705 - 12451758));
  EXPECT_DOUBLE_EQ(by_id(l, "openb-pod-1092").cpus, 4.152);
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kCpus)], 0u);
  // Fractional pod: one GPU, sm_share = gpu_milli / 1000; runtime = deletion - scheduled.
  const JobSpec& f = by_id(l, "openb-pod-1091");
  EXPECT_EQ(f.submit, Time::from_seconds(11262259));
  EXPECT_EQ(f.gpus, 1);
  EXPECT_NEAR(f.sm_share, 0.16, kEps);
  EXPECT_EQ(f.gpu_milli, 160);
  EXPECT_NEAR(f.sm_util, 0.16, kEps);  // a share pod keeps the GPU busy for its share
  EXPECT_EQ(f.runtime, Time::from_seconds(11283980 - 11262264));
  // Whole-GPU pods: sm_share from defaults (built-in 1.0).
  const JobSpec& w = by_id(l, "openb-pod-3475");
  EXPECT_EQ(w.gpus, 4);
  EXPECT_EQ(w.sm_share, 1.0);
  EXPECT_EQ(w.gpu_milli, 1000);
  EXPECT_EQ(w.runtime, Time::from_seconds(12351569 - 12327644));
  EXPECT_EQ(by_id(l, "openb-pod-3412").gpus, 1);
  // The whole-GPU pods and the CPU pods.
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kSmShare)], 2u + 3u);
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kSmUtil)], 2u + 3u);
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kGpuMilli)], 3u);  // the CPU pods
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kMemory)], 15u);  // memory_mib is host memory
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kTenant)], 15u);
}

TEST(PublicTraceOpenb, MalformedRowNamesLineAndField) {
  TempFile f("pods.csv",
             "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
             "deletion_time,scheduled_time\n"
             "p0,1000,1024,1,500,,LS,Running,0,10,0\n"
             "p1,1000,1024,two,500,,LS,Running,0,10,0\n");
  const std::string msg = load_error(f.path(), "openb-pods");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("field 'num_gpu'"));
}

// A pod with neither GPUs nor cores asks for nothing: skipped under its reason, counted.
TEST(PublicTraceOpenb, PodWithoutGpusOrCoresIsSkipped) {
  TempFile f("pods_empty.csv",
             "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
             "deletion_time,scheduled_time\n"
             "p0,0,1024,0,0,,LS,Running,0,10,0\n"
             "p1,500,1024,0,0,,LS,Running,1,10,1\n");
  const Loaded l = load(f.path(), "openb-pods");
  EXPECT_THAT(ids(l), ElementsAre("p1"));
  EXPECT_DOUBLE_EQ(l.jobs[0].cpus, 0.5);
  EXPECT_THAT(l.skipped, UnorderedElementsAre(Pair("no_gpu_or_cpu", 1)));
}

// The loader reads no memory_mib or gpu_spec (traces/formats/openb_pod_list.h): cells it ignores do not
// reject the list; the pod row's bounds and names apply as in `gpumux pack`.
TEST(PublicTraceOpenb, UnreadCellsAreIgnoredAndBoundsAreThePodRows) {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  TempFile f("pods.csv", header + "p0,1000,lots,1,500,|?|,LS,Running,0,10,0\n");
  const Loaded l = load(f.path(), "openb-pods");
  ASSERT_EQ(l.jobs.size(), 1u);
  EXPECT_EQ(l.jobs[0].gpu_milli, 500);
  TempFile big("big.csv", header + "p0,1000,1,65,1000,,LS,Running,0,10,0\n");
  EXPECT_THAT(load_error(big.path(), "openb-pods"),
              HasSubstr("big.csv:2: field 'num_gpu': value 65 is outside [0, 64]"));
  TempFile unnamed("unnamed.csv", header + " ,1000,1,1,1000,,LS,Running,0,10,0\n");
  EXPECT_THAT(load_error(unnamed.path(), "openb-pods"),
              HasSubstr("unnamed.csv:2: field 'name': empty pod name"));
}

TEST(PublicTraceOpenb, ListWithoutTimesIsRejectedAtTheHeader) {
  TempFile f("multigpu.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,1,1,1000\n");
  const std::string msg = load_error(f.path(), "openb-pods");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("creation_time"));
  EXPECT_THAT(msg, HasSubstr("multigpu"));
}

// --- dlrm2025 -------------------------------------------------------------------------------

TEST(PublicTraceDlrm, MapsFieldsSkipsAndSorts) {
  const Loaded l = load(data("dlrm2025_excerpt.csv"), "dlrm2025");
  // instance_7281 (CN: 0 GPUs, 64 cores) is a CPU-only job; instance_7280 (CN) is still alive
  // at the trace's end.
  EXPECT_THAT(ids(l), ElementsAre("instance_7281", "instance_7300", "instance_7301",
                                  "instance_7308", "instance_8036", "instance_8035"));
  EXPECT_THAT(l.skipped, UnorderedElementsAre(Pair("created_before_trace", 3),
                                              Pair("alive_at_trace_end", 2)));
  EXPECT_EQ(l.records, 11u);
  const JobSpec& cn = by_id(l, "instance_7281");
  EXPECT_EQ(cn.gpus, 0);
  EXPECT_DOUBLE_EQ(cn.cpus, 64.0);
  EXPECT_EQ(cn.submit, Time::from_seconds(610.0));
  EXPECT_EQ(cn.runtime, Time::from_seconds(91730.0 - 683.0));
  EXPECT_DOUBLE_EQ(by_id(l, "instance_7308").cpus, 8.0);
  const JobSpec& j = by_id(l, "instance_7308");
  EXPECT_EQ(j.submit, Time::from_seconds(4823.0));
  EXPECT_EQ(j.runtime, Time::from_seconds(16311.0 - 4824.0));
  EXPECT_EQ(j.gpus, 1);
  EXPECT_EQ(j.kind, JobKind::kInference);
  EXPECT_EQ(j.tenant, "app_23");
  const JobSpec& k = by_id(l, "instance_7300");
  EXPECT_EQ(k.submit, Time::from_seconds(3973.0));  // 3973.0000000000005 rounds to the us
  EXPECT_EQ(k.runtime, Time::from_seconds(5647.0 - 3973.0));
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kKind)], 0u);
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kSmShare)], 6u);
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kCpus)], 0u);
}

// Without the cpu_request column the cores come from defaults; a row with no GPU and no core
// is skipped under its reason.
TEST(PublicTraceDlrm, CpuRequestIsOptionalAndEmptyRequestsAreSkipped) {
  TempFile f("dlrm_cpu.csv",
             "instance_sn,role,app_name,cpu_request,gpu_request,creation_time,scheduled_time,"
             "deletion_time\n"
             "i0,CN,app_1,0,0,10.0,12.0,20.0\n"
             "i1,CN,app_1,,0,11.0,12.0,20.0\n"
             "i2,CN,app_1,4,0,12.0,12.0,20.0\n");
  const Loaded l = load(f.path(), "dlrm2025");
  EXPECT_THAT(ids(l), ElementsAre("i2"));
  EXPECT_THAT(l.skipped, UnorderedElementsAre(Pair("no_gpu_or_cpu_request", 2)));
  TempFile g("dlrm_nocpu.csv",
             "instance_sn,role,app_name,gpu_request,creation_time,scheduled_time,deletion_time\n"
             "i0,HN,app_1,1,10.0,12.0,20.0\n");
  const Loaded m = load(g.path(), "dlrm2025");
  ASSERT_EQ(m.jobs.size(), 1u);
  EXPECT_EQ(m.stats.defaults.rows[idx(JobField::kCpus)], 1u);
}

TEST(PublicTraceDlrm, FractionalGpuRequestIsAShare) {
  TempFile f("dlrm.csv",
             "instance_sn,role,app_name,gpu_request,creation_time,scheduled_time,deletion_time\n"
             "i0,HN,app_1,0.25,10.0,12.0,20.0\n"
             "i1,HN,app_1,2,11.0,12.0,20.0\n");
  const Loaded l = load(f.path(), "dlrm2025");
  ASSERT_EQ(l.jobs.size(), 2u);
  EXPECT_EQ(l.jobs[0].gpus, 1);
  EXPECT_NEAR(l.jobs[0].sm_share, 0.25, kEps);
  EXPECT_EQ(l.jobs[1].gpus, 2);
  EXPECT_EQ(l.jobs[1].sm_share, 1.0);
}

TEST(PublicTraceDlrm, MalformedRowNamesLineAndField) {
  TempFile f("dlrm.csv",
             "instance_sn,role,app_name,gpu_request,creation_time,scheduled_time,deletion_time\n"
             "# a comment\n"
             "i0,HN,app_1,1,10.0,12.0,20.0\n"
             "i1,HN,app_1,1,10.0,12.0,soon\n");
  const std::string msg = load_error(f.path(), "dlrm2025");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":4"));
  EXPECT_THAT(msg, HasSubstr("field 'deletion_time'"));
}

TEST(PublicTraceDlrm, CrlfLinesKeepLineNumbers) {
  TempFile f("dlrm.csv",
             "instance_sn,role,app_name,gpu_request,creation_time,scheduled_time,deletion_time\r\n"
             "i0,HN,app_1,1,10.0,12.0,20.0\r\n"
             "\r\n"
             "i1,HN,app_1,-1,10.0,12.0,20.0\r\n");
  const std::string msg = load_error(f.path(), "dlrm2025");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":4"));
  EXPECT_THAT(msg, HasSubstr("field 'gpu_request'"));
}

TEST(PublicTraceOpenb, DuplicateNameIsAnError) {
  TempFile f("pods.csv",
             "name,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n"
             "p0,1,500,0,10,0\n"
             "p0,1,500,5,10,5\n");
  const std::string msg = load_error(f.path(), "openb-pods");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("more than once"));
}

// --- helios ---------------------------------------------------------------------------------

TEST(PublicTraceHelios, MapsFieldsSkipsAndReordersWithinTheWindow) {
  const Loaded l = load(data("helios_cluster_log.csv"), "helios");
  // 1425514 (0 GPUs, 4 cores) is a CPU-only job.
  EXPECT_THAT(ids(l), ElementsAre("1425511", "1425512", "1425513", "1425514", "1425516"));
  EXPECT_THAT(l.skipped, UnorderedElementsAre(Pair("never_started", 1),
                                              Pair("end_before_start", 1)));
  const JobSpec& cpu = by_id(l, "1425514");
  EXPECT_EQ(cpu.gpus, 0);
  EXPECT_DOUBLE_EQ(cpu.cpus, 4.0);
  EXPECT_EQ(cpu.runtime, Time::from_seconds(480));
  EXPECT_DOUBLE_EQ(by_id(l, "1425512").cpus, 16.0);
  // The clock starts at midnight of the first row's day: 18:41:01.
  const JobSpec& j = l.jobs[0];
  EXPECT_EQ(j.submit, Time::from_seconds(18 * 3600 + 41 * 60 + 1));
  EXPECT_EQ(j.runtime, Time::from_seconds(36848));
  EXPECT_EQ(j.gpus, 1);
  EXPECT_EQ(j.tenant, "vcJkd");
  EXPECT_EQ(by_id(l, "1425516").gpus, 16);
  EXPECT_EQ(by_id(l, "1425516").submit, Time::from_seconds(18 * 3600 + 42 * 60 + 30));
  EXPECT_EQ(by_id(l, "1425513").runtime, Time::from_seconds(675233));
}

TEST(PublicTraceHelios, RowBehindTheReorderWindowIsAnError) {
  std::string text = "job_id,user,vc,gpu_num,submit_time,start_time,end_time\n";
  // 70,000 rows one second apart (more than the 65,536-job window), then one from the start.
  for (int i = 0; i < 70'000; ++i) {
    const int s = 3600 + i;
    char t[32];
    std::snprintf(t, sizeof t, "2020-06-0%d %02d:%02d:%02d", 1 + s / 86400, (s % 86400) / 3600,
                  (s % 3600) / 60, s % 60);
    text += std::to_string(i) + ",u,vc,1," + t + "," + t + "," + t + "\n";
  }
  text += "late,u,vc,1,2020-06-01 01:00:00,2020-06-01 01:00:00,2020-06-01 01:00:05\n";
  TempFile f("helios.csv", text);
  const std::string msg = load_error(f.path(), "helios");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":70002"));
  EXPECT_THAT(msg, HasSubstr("field 'submit_time'"));
  EXPECT_THAT(msg, HasSubstr("reorder window"));
}

TEST(PublicTraceHelios, MalformedRowNamesLineAndField) {
  TempFile f("helios.csv",
             "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,"
             "duration,queue\n"
             "1,u,vc,1,1,1,COMPLETED,2020/06/09 18:41:01,2020-06-09 18:41:01,"
             "2020-06-09 18:42:01,60,0\n");
  const std::string msg = load_error(f.path(), "helios");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("field 'submit_time'"));
}

// An impossible day after the time origin was accepted (normalised into the next month); one
// before it was refused only as "earlier than the trace's time origin".
TEST(PublicTraceHelios, ImpossibleDateNamesLineAndField) {
  const std::string head = "job_id,user,vc,gpu_num,submit_time,start_time,end_time\n";
  TempFile after("helios.csv", head +
                                   "1,u,vc,1,2020-02-01 00:00:00,2020-02-01 00:00:00,"
                                   "2020-02-01 00:01:00\n"
                                   "2,u,vc,1,2020-02-01 00:00:00,2020-02-30 00:00:00,"
                                   "2020-03-01 00:01:00\n");
  const std::string msg = load_error(after.path(), "helios");
  EXPECT_THAT(msg, HasSubstr(after.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("field 'start_time'"));
  EXPECT_THAT(msg, HasSubstr("no such date: '2020-02-30 00:00:00' (February 2020 has 29 days)"));
  TempFile first("helios.csv", head +
                                   "1,u,vc,1,2021-04-31 00:00:00,2021-05-01 00:00:00,"
                                   "2021-05-01 00:01:00\n");
  const std::string msg2 = load_error(first.path(), "helios");
  EXPECT_THAT(msg2, HasSubstr(first.path() + ":2"));
  EXPECT_THAT(msg2, HasSubstr("field 'submit_time'"));
  EXPECT_THAT(msg2, HasSubstr("April 2021 has 30 days"));
}

// --- philly ---------------------------------------------------------------------------------

TEST(PublicTracePhilly, MapsFieldsSkipsAndSorts) {
  const Loaded l = load(data("philly_cluster_job_log.json"), "philly");
  EXPECT_THAT(ids(l),
              ElementsAre("application_1506638472019_14100", "application_1506638472019_14199"));
  EXPECT_THAT(l.skipped, UnorderedElementsAre(Pair("no_attempts", 1), Pair("still_running", 1),
                                              Pair("no_start_time", 1), Pair("unknown_status", 1),
                                              Pair("no_gpus", 1), Pair("end_before_start", 1)));
  EXPECT_EQ(l.records, 8u);
  // Clock origin: midnight of the earliest submitted day (2017-10-06).
  const JobSpec& first = l.jobs[0];
  EXPECT_EQ(first.submit, Time::from_seconds(86399));
  EXPECT_EQ(first.gpus, 1);
  EXPECT_EQ(first.runtime, Time::from_seconds(600));
  EXPECT_EQ(first.tenant, "b436b2");
  // GPUs over the last attempt's details (8 + 4); runtime of the last attempt only.
  const JobSpec& big = l.jobs[1];
  EXPECT_EQ(big.submit, Time::from_seconds(86400 + 3600 + 11 * 60 + 39));
  EXPECT_EQ(big.gpus, 12);
  EXPECT_EQ(big.runtime, Time::from_seconds(2 * 86400 + 5 * 3600 + 39 * 60 + 42));
  EXPECT_EQ(big.tenant, "ee9e8c");
}

TEST(PublicTracePhilly, MalformedJobNamesLineAndField) {
  TempFile f("philly.json",
             "[\n"
             "  {\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": \"a\", \"submitted_time\": "
             "\"2017-10-07 01:11:39\", \"attempts\": []},\n"
             "  {\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": \"b\",\n"
             "   \"submitted_time\": \"2017-10-07 01:11:39\",\n"
             "   \"attempts\": [{\"start_time\": \"2017-10-07 01:12:00\", \"end_time\": "
             "\"2017-10-07 01:13:00\", \"detail\": [{\"ip\": \"m1\", \"gpus\": 8}]}]}\n"
             "]\n");
  const std::string msg = load_error(f.path(), "philly");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("field 'attempts[0].detail[0].gpus'"));
}

// "2017-02-30" was normalised to March 2 and, the earliest submission, became the time origin.
TEST(PublicTracePhilly, ImpossibleDateNamesLineAndField) {
  TempFile f("philly.json",
             "[\n"
             "  {\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": \"a\",\n"
             "   \"submitted_time\": \"2017-02-30 01:11:39\",\n"
             "   \"attempts\": [{\"start_time\": \"2017-10-07 01:12:00\", \"end_time\": "
             "\"2017-10-07 01:13:00\", \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}]}\n"
             "]\n");
  const std::string msg = load_error(f.path(), "philly");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("field 'submitted_time'"));
  EXPECT_THAT(msg, HasSubstr("no such date: '2017-02-30 01:11:39' (February 2017 has 28 days)"));
  // 2100 is not a leap year (divisible by 100, not by 400).
  TempFile leap("philly.json",
                "[{\"status\": \"Pass\", \"vc\": \"v\", \"jobid\": \"a\", "
                "\"submitted_time\": \"2100-02-29 00:00:00\", \"attempts\": []}]\n");
  EXPECT_THAT(load_error(leap.path(), "philly"), HasSubstr("February 2100 has 28 days"));
}

TEST(PublicTracePhilly, InvalidJsonNamesLine) {
  TempFile f("philly.json", "[\n  {\"status\": \"Pass\",\n   \"jobid\" \"x\"}\n]\n");
  const std::string msg = load_error(f.path(), "philly");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("invalid JSON"));
}

// 100,000 levels: bounded like every JSON input (sim/base/json_fields.h kMaxJsonDepth).
TEST(PublicTracePhilly, DeepNestingIsAnErrorNotACrash) {
  TempFile f("philly.json",
             "[{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}]");
  const std::string msg = load_error(f.path(), "philly");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("nested deeper than 128 levels"));
}

TEST(PublicTracePhilly, NumberBeyondDoubleIsAnError) {
  TempFile f("philly.json", "[\n  {\"status\": \"Pass\", \"x\": 1e400}]");
  const std::string msg = load_error(f.path(), "philly");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("number out of range"));
}

// --- pai-sim --------------------------------------------------------------------------------

TEST(PublicTracePaiSim, MapsFieldsKeepsCpuOnlyJobsAndSorts) {
  const Loaded l = load(data("pai_sim.csv"), "pai-sim");
  EXPECT_THAT(ids(l), ElementsAre("2", "1", "3", "4", "5", "6", "7"));
  EXPECT_TRUE(l.skipped.empty());
  EXPECT_EQ(l.records, 7u);
  const JobSpec& half = by_id(l, "2");
  EXPECT_EQ(half.submit, Time::from_seconds(50));
  EXPECT_EQ(half.runtime, Time::from_seconds(600));
  EXPECT_EQ(half.gpus, 1);
  EXPECT_NEAR(half.sm_share, 0.5, kEps);
  EXPECT_DOUBLE_EQ(half.cpus, 4.0);
  EXPECT_EQ(half.tenant, "u2");
  // num_gpu and num_cpu are per instance, as the simulator allocates them: 4 instances of 2.0
  // GPUs and 24 cores each.
  const JobSpec& gang = by_id(l, "3");
  EXPECT_EQ(gang.gpus, 8);
  EXPECT_EQ(gang.sm_share, 1.0);
  EXPECT_DOUBLE_EQ(gang.cpus, 96.0);
  EXPECT_EQ(by_id(l, "4").gpus, 8);
  EXPECT_DOUBLE_EQ(by_id(l, "4").cpus, 16.0);
  // CPU-only rows (num_gpu 0, or empty: the simulator reads empty as 0) are jobs of 0 GPUs.
  EXPECT_EQ(by_id(l, "5").gpus, 0);
  EXPECT_DOUBLE_EQ(by_id(l, "5").cpus, 2.0);
  EXPECT_EQ(by_id(l, "6").gpus, 0);
  EXPECT_EQ(by_id(l, "7").gpus, 1);  // empty num_inst: one instance, as the PAI simulator reads it
  EXPECT_EQ(by_id(l, "7").runtime, Time::zero());
}

// The simulator ranks every row, CPU-only ones included, by (submit, id) for `-r R`. Rows:
// 1@0 GPU, 2@0 CPU-only, 3@5.4 GPU, 4@5 CPU-only (empty num_gpu), 5@9 GPU. Whole seconds: 3
// rounds to 5 and ties with 4 (ranked by id). Two per batch every 60 s: 1, 2 -> 0; 3, 4 -> 60;
// 5 -> 120. Were CPU-only rows left out, 5 would arrive at 60.
TEST(PublicTracePaiSim, ArrivalBatchesRankCpuOnlyRowsToo) {
  TempFile f("sim.csv",
             "job_id,num_inst,submit_time,duration,num_cpu,num_gpu\n"
             "5,1,9,10,1,1.0\n"
             "3,1,5.4,10,1,0.5\n"
             "2,1,0,10,2,0\n"
             "4,1,5,10,2,\n"
             "1,1,0,10,1,1.0\n");
  auto source = open_public_trace(f.path(), "pai-sim", TraceDefaults(), 1);
  IntegerSecondsSource whole_seconds(*source);
  ArrivalBatchSource batched(whole_seconds, 2, Time::from_seconds(60));
  std::vector<std::pair<std::string, double>> got;
  JobSpec job;
  while (batched.next(job))
    got.emplace_back(job.id + ":" + std::to_string(job.gpus), job.submit.seconds());
  const std::vector<std::pair<std::string, double>> want = {
      {"1:1", 0}, {"2:0", 0}, {"3:1", 60}, {"4:0", 60}, {"5:1", 120}};
  EXPECT_EQ(got, want);
}

// Amounts are read in hundredths, as the simulator's percent: 0.125 GPU and 0.375 cores become
// 0.12 and 0.38 (ties to even: 12.5 -> 12, 37.5 -> 38); 0.004 GPU is 0: a CPU-only job.
TEST(PublicTracePaiSim, AmountsAreWholeHundredths) {
  TempFile f("sim.csv",
             "job_id,num_inst,submit_time,duration,num_cpu,num_gpu\n"
             "1,1,0,10,0.375,0.125\n"
             "2,3,0,10,0.5,0.004\n");
  const Loaded l = load(f.path(), "pai-sim");
  EXPECT_DOUBLE_EQ(by_id(l, "1").sm_share, 0.12);
  EXPECT_DOUBLE_EQ(by_id(l, "1").cpus, 0.38);
  EXPECT_EQ(by_id(l, "2").gpus, 0);
  EXPECT_DOUBLE_EQ(by_id(l, "2").cpus, 1.5);
}

TEST(PublicTracePaiSim, MalformedRowNamesLineAndField) {
  TempFile f("sim.csv",
             "job_id,user,num_inst,submit_time,duration,num_gpu\n"
             "1,u,2,0,10,1.0\n"
             "2,u,1.5,0,10,1.0\n");
  const std::string msg = load_error(f.path(), "pai-sim");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("field 'num_inst'"));
}

// The pai-sim reader parses cells in place and builds "file:line" only for an error: each bad
// cell is still named with its file, line and field, in the order the fields are read.
TEST(PublicTracePaiSim, EachBadCellNamesFileLineAndField) {
  const std::string header = "job_id,user,num_inst,submit_time,duration,num_cpu,num_gpu\n";
  const std::string good = "1,u,1,0,10,2,1\n";
  struct Case {
    std::string row;
    std::string field;
    std::string says;
  };
  const Case cases[] = {
      {",u,1,0,10,2,1", "id", "must not be empty"},
      {"2,u,1,soon,10,2,1", "submit_time", "expected a number, got 'soon'"},
      {"2,u,1,-5,10,2,1", "submit_time", "value -5 is outside"},
      {"2,u,1,1e13,10,2,1", "submit_time", "is outside"},
      {"2,u,1,0,,2,1", "duration", "expected a number, got ''"},
      {"2,u,1,0,1.5.2,2,1", "duration", "expected a number, got '1.5.2'"},
      {"2,u,1,0,10,2,x", "num_gpu", "expected a number, got 'x'"},
      {"2,u,1,0,10,2,2000000", "num_gpu", "is outside"},
      {"2,u,1,0,10,many,1", "num_cpu", "expected a number, got 'many'"},
      {"2,u,0,0,10,2,1", "num_inst", "is outside"},
      {"2,u,2.5,0,10,2,1", "num_inst", "expected a whole number of instances, got '2.5'"},
      {"2,u,600000,0,10,2,8", "num_gpu", "GPUs is more than 10^6"},
      {"2,u,1,0,10,2", "", "expected 7 fields like the header, got 6"},
      {"2,u,1,bad,bad,2,1", "submit_time", "got 'bad'"},  // the first field read is named
  };
  for (const Case& c : cases) {
    TempFile f("bad.csv", header + good + c.row + "\n");
    const std::string msg = load_error(f.path(), "pai-sim");
    EXPECT_THAT(msg, HasSubstr(f.path() + ":3")) << c.row;
    if (!c.field.empty()) {
      EXPECT_THAT(msg, HasSubstr("field '" + c.field + "'")) << c.row;
    }
    EXPECT_THAT(msg, HasSubstr(c.says)) << c.row;
  }
}

TEST(PublicTracePaiSim, MissingColumnEmptyFileAndDuplicateIdAreNamed) {
  TempFile no_duration("a.csv", "job_id,submit_time,num_gpu\n1,0,1\n");
  EXPECT_THAT(load_error(no_duration.path(), "pai-sim"),
              HasSubstr("required column is missing from the header"));
  TempFile empty("e.csv", "");
  EXPECT_THAT(load_error(empty.path(), "pai-sim"), HasSubstr("empty trace: no header line"));
  TempFile twice("d.csv", "job_id,submit_time,duration,num_gpu\n7,5,10,1\n7,1,10,1\n");
  const std::string msg = load_error(twice.path(), "pai-sim");
  // The later-submitted row is the duplicate: jobs are completed in submit order.
  EXPECT_THAT(msg, HasSubstr(twice.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("job id '7' appears more than once"));
}

// Quoted cells, CRLF line ends, blanks around numbers, blank and comment lines: the same jobs as
// the plain file, in submit order (ties in file order).
TEST(PublicTracePaiSim, QuotedCellsCrlfAndBlanksReadAsThePlainFile) {
  TempFile plain("p.csv",
                 "job_id,user,num_inst,submit_time,duration,num_cpu,num_gpu\n"
                 "a,u1,1,30,10,2,1\n"
                 "b,\"u,2\",2,10.5,20,4,0.5\n"
                 "c,u3,1,10.5,5,0,0\n");
  TempFile other("o.csv",
                 "job_id,user,num_inst,submit_time,duration,num_cpu,num_gpu\r\n"
                 "\"a\",u1,1, 30 ,10,2,1\r\n"
                 "\r\n# a comment\r\n"
                 "b,\"u,2\",\"2\",10.5,20,4,\"0.5\"\r\n"
                 "c,u3,1,10.5,5,,\r\n");
  const Loaded p = load(plain.path(), "pai-sim");
  const Loaded o = load(other.path(), "pai-sim");
  EXPECT_THAT(ids(p), ElementsAre("b", "c", "a"));
  ASSERT_EQ(ids(o), ids(p));
  for (const std::string id : {"a", "b", "c"}) {
    const JobSpec& x = by_id(p, id);
    const JobSpec& y = by_id(o, id);
    EXPECT_EQ(x.submit, y.submit) << id;
    EXPECT_EQ(x.runtime, y.runtime) << id;
    EXPECT_EQ(x.gpus, y.gpus) << id;
    EXPECT_EQ(x.cpus, y.cpus) << id;
    EXPECT_EQ(x.sm_share, y.sm_share) << id;
    EXPECT_EQ(x.tenant, y.tenant) << id;
  }
  EXPECT_EQ(by_id(p, "b").tenant, "u,2");
  EXPECT_EQ(by_id(p, "b").gpus, 2);  // two instances of half a GPU each
  EXPECT_EQ(by_id(p, "b").cpus, 8.0);
  EXPECT_EQ(by_id(p, "c").gpus, 0);
}

// --- pai2020 --------------------------------------------------------------------------------

TEST(PublicTracePai2020, JoinsTablesMapsFieldsSkipsAndSorts) {
  const Loaded l = load(data("pai2020"), "pai2020");
  // job_f has only a CPU task (plan_gpu 0, plan_cpu 100): a CPU-only job.
  EXPECT_THAT(ids(l), ElementsAre("job_b", "job_a", "job_c", "job_f", "job_j"));
  EXPECT_THAT(l.skipped,
              UnorderedElementsAre(Pair("status_waiting", 1), Pair("status_running", 1),
                                   Pair("no_task_rows", 1), Pair("task_not_run", 1),
                                   Pair("end_before_start", 1)));
  // Its cores (plan_cpu percent of a core x inst_num) and its CPU task's span.
  const JobSpec& f = by_id(l, "job_f");
  EXPECT_EQ(f.gpus, 0);
  EXPECT_DOUBLE_EQ(f.cpus, 1.0);
  EXPECT_EQ(f.submit, Time::from_seconds(330));
  EXPECT_EQ(f.runtime, Time::from_seconds(395 - 335));
  // A GPU job holds the cores of its GPU tasks: job_a's 2 workers x 6 (not the ps task's 4);
  // job_c's worker 8 + evaluator 2; job_j's 8 instances x 6.
  EXPECT_DOUBLE_EQ(by_id(l, "job_a").cpus, 12.0);
  EXPECT_DOUBLE_EQ(by_id(l, "job_b").cpus, 6.0);
  EXPECT_DOUBLE_EQ(by_id(l, "job_c").cpus, 10.0);
  EXPECT_DOUBLE_EQ(by_id(l, "job_j").cpus, 48.0);
  EXPECT_EQ(l.records, 10u);
  EXPECT_EQ(l.skipped_rows, 6u + 5u);  // two comment lines in each of three tables + 5 skips

  // plan_gpu 50: one GPU at sm_share 0.5; util 30 % -> 0.3; 2 GB -> 2048 MiB.
  const JobSpec& b = l.jobs[0];
  EXPECT_EQ(b.submit, Time::from_seconds(50));
  EXPECT_EQ(b.runtime, Time::from_seconds(200));
  EXPECT_EQ(b.gpus, 1);
  EXPECT_NEAR(b.sm_share, 0.5, kEps);
  EXPECT_NEAR(b.sm_util, 0.3, kEps);
  EXPECT_EQ(b.memory, MemoryMiB(2048));
  EXPECT_EQ(b.tenant, "user_2");

  // Two worker instances of one GPU (the CPU ps task adds none); util mean of 50 and 70;
  // memory the max over instances (4.5 GB).
  const JobSpec& a = l.jobs[1];
  EXPECT_EQ(a.submit, Time::from_seconds(100));
  EXPECT_EQ(a.runtime, Time::from_seconds(800 - 120));
  EXPECT_EQ(a.gpus, 2);
  EXPECT_EQ(a.sm_share, 1.0);
  EXPECT_NEAR(a.sm_util, 0.6, kEps);
  EXPECT_EQ(a.memory, MemoryMiB(4608));

  // Worker plan_gpu 200 (2 GPUs) + evaluator 25 (1 GPU); its util 150 % over 2 GPUs = 0.75 each,
  // mean with 0.1; memory 10 GB over 2 GPUs = 5 GiB each. Runtime spans the GPU tasks.
  const JobSpec& c = l.jobs[2];
  EXPECT_EQ(c.gpus, 3);
  EXPECT_EQ(c.runtime, Time::from_seconds(1400 - 310));
  EXPECT_NEAR(c.sm_util, 0.425, kEps);
  EXPECT_EQ(c.memory, MemoryMiB(5120));

  // No sensor rows: sm_util and memory from defaults.
  const JobSpec& j = l.jobs[4];
  EXPECT_EQ(j.gpus, 8);
  EXPECT_EQ(j.runtime, Time::from_seconds(580));
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kSmUtil)], 1u + 1u);  // job_j, job_f
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kMemory)], 1u + 1u);
}

TEST(PublicTracePai2020, WorksWithoutSensorTableAndWithGzip) {
  if (!gzip_supported() || std::system("gzip --version > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no zlib in this build, or no gzip command";
  }
  TempFile job("pai_job_table.csv", "j1,i1,u1,Terminated,5.0,50.0\n");
  TempFile task("pai_task_table.csv.gz", "");
  // Write the task table gzipped (a known 10-column row).
  {
    const std::string plain = job.dir() + "/task.csv";
    std::ofstream(plain) << "j1,worker,1.0,Terminated,10.0,40.0,600.0,29.3,100.0,V100\n";
    std::filesystem::remove(task.path());
    ASSERT_EQ(std::system(("gzip -c " + plain + " > " + task.path()).c_str()), 0);
    std::filesystem::remove(plain);
  }
  const Loaded l = load(job.dir(), "pai2020");
  ASSERT_EQ(l.jobs.size(), 1u);
  EXPECT_EQ(l.jobs[0].gpus, 1);
  EXPECT_EQ(l.jobs[0].runtime, Time::from_seconds(30));
  EXPECT_EQ(l.stats.defaults.rows[idx(JobField::kSmUtil)], 1u);
}

TEST(PublicTracePai2020, MalformedTaskRowNamesLineAndField) {
  TempFile job("pai_job_table.csv", "j1,i1,u1,Terminated,5.0,50.0\n");
  TempFile task("pai_task_table.csv",
                "j1,worker,1.0,Terminated,10.0,40.0,600.0,29.3,100.0,V100\n"
                "j1,ps,1.0,Terminated,10.0,40.0,600.0,29.3,lots,V100\n");
  const std::string msg = load_error(job.dir(), "pai2020");
  EXPECT_THAT(msg, HasSubstr(task.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("field 'plan_gpu'"));
}

// A folder holding a table both plain and gzipped used to read the .csv and ignore the .gz
// without a word; which one holds the intended rows is the user's to say.
TEST(PublicTracePai2020, TableBothPlainAndGzippedIsAnError) {
  TempFile job("pai_job_table.csv", "j1,i1,u1,Terminated,5.0,50.0\n");
  TempFile task("pai_task_table.csv",
                "j1,worker,1.0,Terminated,10.0,40.0,600.0,29.3,100.0,V100\n");
  TempFile gz("pai_task_table.csv.gz", "");
  const std::string msg = load_error(job.dir(), "pai2020");
  EXPECT_THAT(msg, HasSubstr("pai_task_table.csv and pai_task_table.csv.gz"));
  EXPECT_THAT(msg, HasSubstr("keep one"));
}

TEST(PublicTracePai2020, PathMustBeAFolder) {
  const std::string msg = load_error(data("pai2020/pai_job_table.csv"), "pai2020");
  EXPECT_THAT(msg, HasSubstr("folder"));
}

// --- the real shared files (skipped when absent) --------------------------------------------

std::string shared_file(const std::string& relative) {
  const std::string p = source_path("../shared/data") + "/" + relative;
  return std::filesystem::exists(p) ? p : "";
}

// Data rows of a CSV with a header (no comments or blank lines in the shared files).
std::uint64_t data_rows(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::uint64_t n = 0;
  while (std::getline(in, line)) {
    if (!line.empty()) ++n;
  }
  return n - 1;
}

void check_sorted_and_counts(const Loaded& l, std::uint64_t rows) {
  EXPECT_EQ(l.records, rows);
  EXPECT_EQ(l.jobs.size() + sum(l.skipped), rows);
  EXPECT_EQ(l.skipped_rows, sum(l.skipped));
  for (std::size_t i = 1; i < l.jobs.size(); ++i) {
    ASSERT_LE(l.jobs[i - 1].submit, l.jobs[i].submit) << i;
  }
}

TEST(PublicTraceRealFiles, Dlrm2025CountsAddUp) {
  const std::string path = shared_file("alibaba-gpu-v2025/disaggregated_DLRM_trace.csv");
  if (path.empty()) GTEST_SKIP() << "shared DLRM 2025 trace not found";
  const Loaded l = load(path, "dlrm2025");
  check_sorted_and_counts(l, data_rows(path));
  EXPECT_EQ(l.records, 23'871u);
  EXPECT_EQ(l.skipped.count("no_gpu_or_cpu_request"), 0u);  // every CN instance asks for cores
  std::size_t cpu_only = 0;
  for (const auto& j : l.jobs) {
    EXPECT_EQ(j.kind, JobKind::kInference);
    EXPECT_TRUE(j.gpus >= 1 || j.cpus > 0);
    cpu_only += j.gpus == 0;
  }
  EXPECT_EQ(cpu_only, 9'172u);  // the CN (CPU node) role, within the trace's edges
  std::printf("dlrm2025: %zu jobs;", l.jobs.size());
  for (const auto& [k, v] : l.skipped) std::printf(" %s %llu;", k.c_str(), (unsigned long long)v);
  std::printf("\n");
}

TEST(PublicTraceRealFiles, OpenbPodListsCountsAddUp) {
  const std::string path = shared_file("alibaba-gpu-v2023/openb_pod_list_default.csv");
  if (path.empty()) GTEST_SKIP() << "shared openb pod list not found";
  const Loaded l = load(path, "openb-pods");
  check_sorted_and_counts(l, data_rows(path));
  EXPECT_EQ(l.records, 8'152u);
  std::size_t cpu_only = 0;
  for (const auto& j : l.jobs) cpu_only += j.gpus == 0;
  EXPECT_EQ(cpu_only, 1'052u);  // the CPU pods that ran, each with its cores
  EXPECT_EQ(l.skipped.count("no_gpu_or_cpu"), 0u);
  std::printf("openb default: %zu jobs;", l.jobs.size());
  for (const auto& [k, v] : l.skipped) std::printf(" %s %llu;", k.c_str(), (unsigned long long)v);
  std::printf("\n");
  // An unsorted list (GPU pods after CPU pods) comes out sorted too.
  const std::string unsorted = shared_file("alibaba-gpu-v2023/openb_pod_list_gpushare20.csv");
  if (!unsorted.empty()) check_sorted_and_counts(load(unsorted, "openb-pods"), data_rows(unsorted));
}

}  // namespace
}  // namespace gpumux
