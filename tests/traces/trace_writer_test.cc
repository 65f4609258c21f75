#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/formats/generator.h"
#include "traces/formats/trace_source.h"

namespace gpumux {
namespace {

using testing::TempFile;

void expect_same(const JobSpec& a, const JobSpec& b) {
  SCOPED_TRACE("job " + a.id);
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.submit, b.submit);
  EXPECT_EQ(a.gpus, b.gpus);
  EXPECT_EQ(a.runtime, b.runtime);
  EXPECT_EQ(a.sm_util, b.sm_util);  // exact: the writer is lossless
  EXPECT_EQ(a.sm_share, b.sm_share);
  EXPECT_EQ(a.memory, b.memory);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.mig_profile, b.mig_profile);
  EXPECT_EQ(a.tenant, b.tenant);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.kernel_length, b.kernel_length);
  EXPECT_EQ(a.checkpoint_interval, b.checkpoint_interval);
}

std::vector<JobSpec> read_back(const std::string& path) {
  auto source = open_trace(path, "csv", TraceDefaults(), 1);
  std::vector<JobSpec> jobs;
  JobSpec job;
  while (source->next(job)) jobs.push_back(job);
  return jobs;
}

TEST(FormatSeconds, ExactMicroseconds) {
  EXPECT_EQ(format_seconds(Time::from_us(1'500'000)), "1.5");
  EXPECT_EQ(format_seconds(Time::from_us(2'000'000)), "2");
  EXPECT_EQ(format_seconds(Time::zero()), "0");
  EXPECT_EQ(format_seconds(Time::from_us(1)), "0.000001");
  EXPECT_EQ(format_seconds(Time::from_us(123'456'789)), "123.456789");
  EXPECT_EQ(format_seconds(Time::from_us(-1'500'000)), "-1.5");
  EXPECT_EQ(format_seconds(Time::from_us(-1)), "-0.000001");
}

// The append forms write the same texts after what the buffer holds (jobs.csv rows are built
// in one buffer).
TEST(AppendText, AppendsTheSameTextsAfterTheBuffer) {
  std::string row = "x,";
  append_seconds(row, Time::from_us(-1'020'000));
  row += ',';
  append_seconds(row, Time::from_us(7'000'000));
  row += ',';
  append_csv_cell(row, "a,\"b\"");
  row += ',';
  append_csv_cell(row, " #c");
  row += ',';
  append_integer(row, -42);
  row += ',';
  append_double(row, 0.1);
  EXPECT_EQ(row, "x,-1.02,7,\"a,\"\"b\"\"\",\" #c\",-42,0.1");
}

TEST(FormatDouble, ShortestRoundTrip) {
  EXPECT_EQ(format_double(0.1), "0.1");
  EXPECT_EQ(format_double(1.0), "1");
  EXPECT_EQ(format_double(0.30000000000000004), "0.30000000000000004");
  const double third = 1.0 / 3.0;
  EXPECT_EQ(std::stod(format_double(third)), third);
}

TEST(CsvCell, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_cell("plain"), "plain");
  EXPECT_EQ(csv_cell(""), "");
  EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(TraceWriter, HeaderListsEveryNativeFieldInOrder) {
  std::ostringstream out;
  write_trace_header(out);
  std::string expected;
  for (const auto& f : job_fields())
    expected += (expected.empty() ? "" : ",") + std::string(f.name);
  EXPECT_EQ(out.str(), expected + "\n");
}

TEST(TraceWriter, GeneratedTraceRoundTripsExactly) {
  const nlohmann::json g = {{"jobs", 500},
                            {"arrival", {{"process", "bursty"}, {"rate_per_hour", 500}}},
                            {"inference_fraction", 0.3},
                            {"checkpoint_s", {{"uniform", {0, 3600}}}},
                            {"runtime_s", {{"uniform", {0.5, 100000}}}}};
  JsonObject o(g, "g.json", "/trace/generator");
  GeneratedJobs gen(GeneratorSpec::parse(o), 77);
  std::vector<JobSpec> jobs;
  JobSpec job;
  while (gen.next(job)) jobs.push_back(job);
  ASSERT_EQ(jobs.size(), 500u);

  std::ostringstream text;
  write_trace_header(text);
  for (const auto& j : jobs) write_trace_row(text, j);
  TempFile f("roundtrip.csv", text.str());

  const auto back = read_back(f.path());
  ASSERT_EQ(back.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) expect_same(jobs[i], back[i]);
}

TEST(TraceWriter, HandBuiltJobsWithAwkwardTextRoundTrip) {
  std::vector<JobSpec> jobs(2);
  jobs[0].id = "a,b";
  jobs[0].submit = Time::from_us(1);
  jobs[0].runtime = Time::from_us(999'999);
  jobs[0].tenant = "team \"x\", ltd";
  jobs[0].mig_profile = "3g.40gb";
  jobs[0].priority = -7;
  jobs[0].sm_util = 0.1;
  jobs[0].sm_share = 1.0 / 3.0;
  jobs[0].memory = MemoryMiB(81920);
  jobs[0].kind = JobKind::kInference;
  jobs[0].kernel_length = Time::from_us(3);
  jobs[0].checkpoint_interval = Time::from_us(1'000'001);
  jobs[1].id = "\"quoted\"";
  jobs[1].submit = Time::from_seconds(86400.25);
  jobs[1].runtime = Time::from_seconds(1e9);
  jobs[1].gpus = 64;

  std::ostringstream text;
  write_trace_header(text);
  for (const auto& j : jobs) write_trace_row(text, j);
  TempFile f("awkward.csv", text.str());
  const auto back = read_back(f.path());
  ASSERT_EQ(back.size(), jobs.size()) << text.str();
  for (std::size_t i = 0; i < jobs.size(); ++i) expect_same(jobs[i], back[i]);
}

TEST(TraceWriter, IdStartingWithHashIsNotReadBackAsAComment) {
  // The reader skips lines whose first non-blank character is '#', so the writer must quote
  // such a first cell; otherwise the job silently disappears from the written trace.
  std::vector<JobSpec> jobs(2);
  jobs[0].id = "#1";
  jobs[0].runtime = Time::from_seconds(10);
  jobs[1].id = "2";
  jobs[1].runtime = Time::from_seconds(10);
  std::ostringstream text;
  write_trace_header(text);
  for (const auto& j : jobs) write_trace_row(text, j);
  TempFile f("hash.csv", text.str());
  const auto back = read_back(f.path());
  ASSERT_EQ(back.size(), 2u);
  expect_same(jobs[0], back[0]);
  expect_same(jobs[1], back[1]);
}

}  // namespace
}  // namespace gpumux
