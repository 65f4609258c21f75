#include "traces/transforms/filter_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using testing::TempFile;

// Eight jobs, counted by hand: gpus 0,1,1,2,4,8,0,2; kinds t,i,t,t,i,t,t,i; tenants a,b,a,,b,a,b,a.
const char* kTrace =
    "id,submit_s,gpus,runtime_s,kind,tenant,cpus\n"
    "cpu1,0,0,10,training,a,4\n"
    "one1,1,1,10,inference,b,0\n"
    "one2,2,1,10,training,a,0\n"
    "two1,3,2,10,training,,0\n"
    "four,4,4,10,inference,b,0\n"
    "eight,5,8,10,training,a,0\n"
    "cpu2,6,0,10,training,b,2\n"
    "two2,7,2,10,inference,a,0\n";
constexpr std::uint64_t kJobs = 8;

struct Filtered {
  std::vector<std::string> ids;
  std::uint64_t removed = 0;
  nlohmann::json summary;
};

Filtered run_filter(const JobFilter& filter) {
  TempFile trace("t.csv", kTrace);
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  FilteringSource source(*inner, filter, trace.path());
  Filtered out;
  JobSpec job;
  while (source.next(job)) out.ids.push_back(job.id);
  out.removed = source.removed();
  out.summary = source.summary();
  // The property: every job read is kept or counted as filtered out.
  EXPECT_EQ(source.kept() + source.removed(), kJobs);
  EXPECT_EQ(source.read(), kJobs);
  EXPECT_EQ(source.kept(), out.ids.size());
  return out;
}

TEST(TraceFilter, GpusMinKeepsTheGpuJobs) {
  JobFilter f;
  f.min_gpus = 1;
  const Filtered r = run_filter(f);
  EXPECT_EQ(r.ids, (std::vector<std::string>{"one1", "one2", "two1", "four", "eight", "two2"}));
  EXPECT_EQ(r.summary, (nlohmann::json{{"jobs", 2}, {"by_criterion", {{"gpus", 2}}}}));
}

TEST(TraceFilter, GpusRangeIsInclusiveOnBothSides) {
  JobFilter f;
  f.min_gpus = 1;
  f.max_gpus = 2;
  EXPECT_EQ(run_filter(f).ids, (std::vector<std::string>{"one1", "one2", "two1", "two2"}));
  JobFilter cpu_only;
  cpu_only.max_gpus = 0;
  EXPECT_EQ(run_filter(cpu_only).ids, (std::vector<std::string>{"cpu1", "cpu2"}));
}

TEST(TraceFilter, KindKeepsTheListedKinds) {
  JobFilter f;
  f.kinds = {JobKind::kInference};
  const Filtered r = run_filter(f);
  EXPECT_EQ(r.ids, (std::vector<std::string>{"one1", "four", "two2"}));
  EXPECT_EQ(r.summary["by_criterion"], (nlohmann::json{{"kind", 5}}));
}

TEST(TraceFilter, TenantKeepsTheListedTenantsAndEmptyMatchesNone) {
  JobFilter f;
  f.tenants = {"b"};
  EXPECT_EQ(run_filter(f).ids, (std::vector<std::string>{"one1", "four", "cpu2"}));
  JobFilter without;
  without.tenants = {""};  // jobs whose row names no tenant
  EXPECT_EQ(run_filter(without).ids, (std::vector<std::string>{"two1"}));
}

TEST(TraceFilter, CriteriaAreAndedAndEachRemovedJobCountsOnceUnderItsFirstFailure) {
  JobFilter f;
  f.min_gpus = 1;
  f.kinds = {JobKind::kTraining};
  f.tenants = {"a"};
  const Filtered r = run_filter(f);
  EXPECT_EQ(r.ids, (std::vector<std::string>{"one2", "eight"}));
  // gpus: cpu1, cpu2; kind (of the rest): one1, four, two2; tenant (of the rest): two1.
  EXPECT_EQ(
      r.summary,
      (nlohmann::json{{"jobs", 6}, {"by_criterion", {{"gpus", 2}, {"kind", 3}, {"tenant", 1}}}}));
}

TEST(TraceFilter, InactiveFilterKeepsEveryJob) {
  EXPECT_FALSE(JobFilter{}.active());
  const Filtered r = run_filter(JobFilter{});
  EXPECT_EQ(r.ids.size(), kJobs);
  EXPECT_EQ(r.summary, (nlohmann::json{{"jobs", 0}, {"by_criterion", nlohmann::json::object()}}));
}

TEST(TraceFilter, NothingKeptIsInputErrorNamingTheTraceAndTheCounts) {
  TempFile trace("t.csv", kTrace);
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  JobFilter f;
  f.min_gpus = 16;
  FilteringSource source(*inner, f, trace.path());
  const std::string m = input_error_message([&] {
    JobSpec job;
    while (source.next(job)) {
    }
  });
  EXPECT_THAT(m, HasSubstr(trace.path() + ": 0 jobs after trace.filter (8 removed: gpus 8)"));
}

TEST(TraceFilter, HeaderOnlyTraceIsLeftToTheEmptyTraceCheck) {
  TempFile trace("t.csv", "id,submit_s,gpus,runtime_s\n");
  auto inner = open_trace(trace.path(), "csv", TraceDefaults{}, 1);
  JobFilter f;
  f.min_gpus = 1;
  FilteringSource source(*inner, f, trace.path());
  JobSpec job;
  EXPECT_FALSE(source.next(job));  // no throw: the run's check names the reader's skip counts
}

TEST(TraceFilter, CountsAreGroupedByThousands) {
  EXPECT_EQ(grouped_count(0), "0");
  EXPECT_EQ(grouped_count(999), "999");
  EXPECT_EQ(grouped_count(3218), "3,218");
  EXPECT_EQ(grouped_count(1234567), "1,234,567");
}

}  // namespace
}  // namespace gpumux
