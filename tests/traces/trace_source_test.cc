#include "traces/formats/trace_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::input_error_message;
using testing::source_path;
using ::testing::StartsWith;
using testing::TempFile;

constexpr const char* kFullHeader =
    "id,submit_s,gpus,runtime_s,sm_util,sm_share,memory_mib,kind,mig_profile,tenant,priority,"
    "kernel_us,checkpoint_s,memory_limit_mib,cpus,gpu_milli,mem_bw_util\n";

std::size_t idx(JobField f) { return static_cast<std::size_t>(f); }

std::vector<JobSpec> read_all(TraceSource& source) {
  std::vector<JobSpec> jobs;
  JobSpec job;
  while (source.next(job)) jobs.push_back(job);
  return jobs;
}

std::vector<JobSpec> read_file(const std::string& path, const std::string& format,
                               const TraceDefaults& defaults = TraceDefaults()) {
  auto source = open_trace(path, format, defaults, 1);
  return read_all(*source);
}

// The message of the InputError thrown while opening or reading `text` as `format`.
std::string read_error(const TempFile& f, const std::string& format) {
  return input_error_message([&] { read_file(f.path(), format); });
}

TEST(TraceFormats, NativeFormatsComeFirstInTheOneTable) {
  EXPECT_THAT(trace_formats().names(), ElementsAre("csv", "jsonl", "tiresias", "pai2020", "pai-sim",
                                                   "dlrm2025", "philly", "helios", "openb-pods"));
  for (const auto& f : trace_formats()) {
    EXPECT_NE(f.open == nullptr, f.open_public == nullptr) << f.name << ": exactly one opener";
    EXPECT_FALSE(f.summary.empty()) << f.name;
  }
}

TEST(OpenTrace, UnknownFormatListsValidOnes) {
  TempFile f("t.csv", kFullHeader);
  const std::string msg =
      input_error_message([&] { open_trace(f.path(), "parquet", TraceDefaults(), 1); });
  EXPECT_THAT(msg, HasSubstr(f.path()));
  EXPECT_THAT(msg, HasSubstr("field 'format'"));
  EXPECT_THAT(msg, HasSubstr("'parquet'"));
  EXPECT_THAT(msg, HasSubstr("csv, jsonl, tiresias, pai2020, pai-sim, dlrm2025, philly, helios, "
                             "openb-pods"));
}

TEST(OpenTrace, MissingFileIsInputError) {
  for (const char* format : {"csv", "jsonl", "tiresias"}) {
    const std::string msg = input_error_message(
        [&] { open_trace("/nonexistent/trace.file", format, TraceDefaults(), 1); });
    EXPECT_THAT(msg, HasSubstr("/nonexistent/trace.file")) << format;
    EXPECT_THAT(msg, HasSubstr("cannot open")) << format;
  }
}

// --- native CSV ---------------------------------------------------------------------------

TEST(NativeCsv, ReadsEveryField) {
  TempFile f("full.csv", std::string(kFullHeader) +
                             "j1,10.5,2,3600,0.5,0.25,8192,inference,3g.40gb,teamA,3,250,600,"
                             "6000,12.5,250,0.35\n"
                             "\"j,2\",11,0,0.000001,1,1,0,training,,,-2,1,0,0,,1000,0\n");
  auto source = open_trace(f.path(), "csv", TraceDefaults(), 1);
  const auto jobs = read_all(*source);
  ASSERT_EQ(jobs.size(), 2u);
  const JobSpec& j = jobs[0];
  EXPECT_EQ(j.id, "j1");
  EXPECT_EQ(j.submit, Time::from_us(10'500'000));
  EXPECT_EQ(j.gpus, 2);
  EXPECT_EQ(j.runtime, Time::from_seconds(3600));
  EXPECT_DOUBLE_EQ(j.sm_util, 0.5);
  EXPECT_EQ(j.memory_limit, MemoryMiB(6000));
  EXPECT_EQ(j.gpu_milli, 250);
  EXPECT_DOUBLE_EQ(j.sm_share, 0.25);
  EXPECT_EQ(j.memory, MemoryMiB(8192));
  EXPECT_EQ(j.kind, JobKind::kInference);
  EXPECT_EQ(j.mig_profile, "3g.40gb");
  EXPECT_EQ(j.tenant, "teamA");
  EXPECT_EQ(j.priority, 3);
  EXPECT_EQ(j.kernel_length, Time::from_us(250));
  EXPECT_EQ(j.checkpoint_interval, Time::from_seconds(600));
  EXPECT_DOUBLE_EQ(j.cpus, 12.5);
  EXPECT_DOUBLE_EQ(j.mem_bw_util, 0.35);

  // The second row must not inherit anything from the first.
  const JobSpec& k = jobs[1];
  EXPECT_EQ(k.id, "j,2");
  EXPECT_EQ(k.gpus, 0);           // a CPU-only job
  EXPECT_DOUBLE_EQ(k.cpus, 0.0);  // empty: the default
  EXPECT_EQ(k.runtime, Time::from_us(1));
  EXPECT_EQ(k.kind, JobKind::kTraining);
  EXPECT_EQ(k.mig_profile, "");
  EXPECT_EQ(k.tenant, "");
  EXPECT_EQ(k.priority, -2);
  EXPECT_EQ(k.memory, MemoryMiB(0));

  const TraceStats& st = source->stats();
  EXPECT_EQ(st.rows, 2u);
  EXPECT_EQ(st.skipped_lines, 0u);
  // Row 1 has every field; row 2 leaves mig_profile, tenant and cpus empty (defaults, counted).
  for (const auto& info : job_fields()) {
    const bool defaulted = info.field == JobField::kMigProfile || info.field == JobField::kTenant ||
                           info.field == JobField::kCpus;
    EXPECT_EQ(st.defaults.rows[idx(info.field)], defaulted ? 1u : 0u) << info.name;
  }
}

TEST(NativeCsv, ColumnsInAnyOrder) {
  TempFile f("order.csv", "runtime_s,gpus,id,submit_s\n100,4,a,5\n");
  const auto jobs = read_file(f.path(), "csv");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, "a");
  EXPECT_EQ(jobs[0].gpus, 4);
  EXPECT_EQ(jobs[0].submit, Time::from_seconds(5));
  EXPECT_EQ(jobs[0].runtime, Time::from_seconds(100));
}

// The compute share of fractional GPUs: milli-GPU in [1, 1000], a whole GPU when absent.
TEST(NativeCsv, GpuMilliIsAShareOfEachGpu) {
  TempFile f("milli.csv", "id,submit_s,gpus,runtime_s,gpu_milli\na,0,1,10,250\nb,1,1,10,\n");
  const auto jobs = read_file(f.path(), "csv");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].gpu_milli, 250);
  EXPECT_EQ(jobs[1].gpu_milli, 1000);
  for (const char* bad : {"0", "1001", "0.5"}) {
    TempFile b("milli_bad.csv",
               std::string("id,submit_s,gpus,runtime_s,gpu_milli\na,0,1,10,") + bad + "\n");
    const std::string msg = input_error_message([&] { read_file(b.path(), "csv"); });
    EXPECT_THAT(msg, HasSubstr("milli_bad.csv:2")) << bad;
    EXPECT_THAT(msg, HasSubstr("gpu_milli")) << bad;
  }
}

TEST(NativeCsv, MissingOptionalColumnsComeFromBuiltInDefaultsAndAreCounted) {
  TempFile f("min.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,2,20\nc,1,1,30\n");
  auto source = open_trace(f.path(), "csv", TraceDefaults(), 1);
  const auto jobs = read_all(*source);
  ASSERT_EQ(jobs.size(), 3u);
  for (const auto& j : jobs) {
    EXPECT_DOUBLE_EQ(j.sm_util, 1.0);
    EXPECT_DOUBLE_EQ(j.sm_share, 1.0);
    EXPECT_EQ(j.memory, MemoryMiB(0));
    EXPECT_EQ(j.kind, JobKind::kTraining);
    EXPECT_EQ(j.priority, 0);
    EXPECT_EQ(j.kernel_length, Time::from_us(1000));
    EXPECT_EQ(j.checkpoint_interval, Time::zero());
  }
  const auto& st = source->stats();
  EXPECT_EQ(st.rows, 3u);
  for (const auto& info : job_fields()) {
    EXPECT_EQ(st.defaults.rows[idx(info.field)], info.required ? 0u : 3u) << info.name;
  }
}

TEST(NativeCsv, EmptyOptionalCellUsesDefaultOnlyForThatRow) {
  TempFile f("cells.csv", "id,submit_s,gpus,runtime_s,sm_util\na,0,1,10,0.3\nb,1,1,10,\n");
  auto source = open_trace(f.path(), "csv", TraceDefaults(), 1);
  const auto jobs = read_all(*source);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(jobs[0].sm_util, 0.3);
  EXPECT_DOUBLE_EQ(jobs[1].sm_util, 1.0);
  EXPECT_EQ(source->stats().defaults.rows[idx(JobField::kSmUtil)], 1u);
}

TEST(NativeCsv, ScenarioDefaultsOverrideBuiltIns) {
  const nlohmann::json spec = {{"sm_util", 0.4},
                               {"kind", "inference"},
                               {"memory_mib", {{"choice", {1024, 2048}}}},
                               {"tenant", "lab"}};
  JsonObject o(spec, "s.json", "/trace/defaults");
  TraceDefaults defaults;
  defaults.override_from(o);
  EXPECT_EQ(defaults.source(JobField::kSmUtil), "scenario trace.defaults");
  EXPECT_EQ(defaults.source(JobField::kSmShare), "built-in default");
  EXPECT_EQ(defaults.value_json(JobField::kSmUtil), nlohmann::json(0.4));
  EXPECT_EQ(defaults.value_json(JobField::kTenant), nlohmann::json("lab"));

  TempFile f("d.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,0,1,10\nc,0,1,10\nd,0,1,10\n");
  for (const auto& j : read_file(f.path(), "csv", defaults)) {
    EXPECT_DOUBLE_EQ(j.sm_util, 0.4);
    EXPECT_EQ(j.kind, JobKind::kInference);
    EXPECT_EQ(j.tenant, "lab");
    EXPECT_TRUE(j.memory == MemoryMiB(1024) || j.memory == MemoryMiB(2048)) << j.memory.mib();
  }
}

TEST(NativeCsv, ConstantDefaultsAreStoredAsDrawnAndDrawNothing) {
  // A constant default is worked out once: rounded like a drawn one (gpu_milli), and it takes
  // no draw, so the uniform default after it gets the same value with or without it.
  const nlohmann::json with_constants = {
      {"gpu_milli", 250.6}, {"memory_mib", 4096}, {"sm_share", {{"uniform", {0.2, 0.6}}}}};
  const nlohmann::json without = {{"sm_share", {{"uniform", {0.2, 0.6}}}}};
  JsonObject a(with_constants, "s.json", "/trace/defaults");
  JsonObject b(without, "s.json", "/trace/defaults");
  TraceDefaults constants, plain;
  constants.override_from(a);
  plain.override_from(b);
  std::uint32_t optional_fields = 0;
  for (const auto& f : job_fields()) {
    if (!f.required) optional_fields |= 1u << static_cast<int>(f.field);
  }
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    JobSpec x, y;
    x.defaulted_fields = y.defaulted_fields = optional_fields;
    Rng rx(seed), ry(seed);
    constants.fill_marked(x, rx);
    plain.fill_marked(y, ry);
    EXPECT_EQ(x.gpu_milli, 251);
    EXPECT_EQ(x.memory, MemoryMiB(4096));
    EXPECT_EQ(x.sm_share, y.sm_share) << seed;
    EXPECT_EQ(rx(), ry()) << "the streams moved apart";
  }
}

TEST(NativeCsv, DefaultsForRequiredFieldsAreRejected) {
  const nlohmann::json spec = {{"runtime_s", 100}};
  JsonObject o(spec, "s.json", "/trace/defaults");
  TraceDefaults defaults;
  const std::string msg = input_error_message([&] { defaults.override_from(o); });
  EXPECT_THAT(msg, HasSubstr("s.json#/trace/defaults/runtime_s"));
  EXPECT_THAT(msg, HasSubstr("field 'runtime_s'"));
  EXPECT_THAT(msg, HasSubstr("required trace field"));
}

TEST(NativeCsv, DefaultsRejectUnknownKeysAndBadKinds) {
  {
    const nlohmann::json spec = {{"sm_utilization", 0.5}};
    JsonObject o(spec, "s.json", "/trace/defaults");
    TraceDefaults defaults;
    const std::string msg = input_error_message([&] { defaults.override_from(o); });
    EXPECT_THAT(msg, HasSubstr("s.json#/trace/defaults/sm_utilization"));
    EXPECT_THAT(msg, HasSubstr("unknown key"));
    EXPECT_THAT(msg, HasSubstr("sm_util"));  // listed among the valid keys
  }
  {
    const nlohmann::json spec = {{"kind", "batch"}};
    JsonObject o(spec, "s.json", "/trace/defaults");
    TraceDefaults defaults;
    const std::string msg = input_error_message([&] { defaults.override_from(o); });
    EXPECT_THAT(msg, HasSubstr("s.json#/trace/defaults/kind"));
    EXPECT_THAT(msg, HasSubstr("field 'kind'"));
  }
  {
    const nlohmann::json spec = {{"sm_util", 1.5}};
    JsonObject o(spec, "s.json", "/trace/defaults");
    TraceDefaults defaults;
    const std::string msg = input_error_message([&] { defaults.override_from(o); });
    EXPECT_THAT(msg, HasSubstr("s.json#/trace/defaults/sm_util"));
    EXPECT_THAT(msg, HasSubstr("field 'sm_util'"));
  }
}

TEST(NativeCsv, BlankAndCommentLinesAreCountedNotDropped) {
  TempFile f("skip.csv",
             "# a comment before the header\n"
             "id,submit_s,gpus,runtime_s\n"
             "\n"
             "a,0,1,10\n"
             "# middle comment\n"
             "   \n"
             "b,1,1,10\n"
             "\n");
  auto source = open_trace(f.path(), "csv", TraceDefaults(), 1);
  const auto jobs = read_all(*source);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(source->stats().rows, 2u);
  EXPECT_EQ(source->stats().skipped_lines, 5u);
  EXPECT_EQ(source->skipped_rows(), 5u);
}

TEST(NativeCsv, CrlfLineEnds) {
  TempFile f("crlf.csv", "id,submit_s,gpus,runtime_s,tenant\r\na,0,1,10,t1\r\nb,1,1,10,t2\r\n");
  const auto jobs = read_file(f.path(), "csv");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].tenant, "t1");  // no stray '\r'
  EXPECT_EQ(jobs[1].tenant, "t2");
}

// A ".gz" trace reads as its plain content, in the CSV formats and in JSON Lines alike.
TEST(NativeCsv, GzipTraceReadsLikeThePlainFile) {
  if (!testing::can_test_gzip()) GTEST_SKIP() << "no zlib in this build, or no gzip command";
  TempFile csv("t.csv.gz", "");
  testing::write_gzip(csv.path(), "id,submit_s,gpus,runtime_s\n# c\na,0,1,10\nb,1,2,20\n");
  const auto jobs = read_file(csv.path(), "csv");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[1].id, "b");
  EXPECT_EQ(jobs[1].gpus, 2);
  TempFile jsonl("t.jsonl.gz", "");
  testing::write_gzip(jsonl.path(),
                      "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 10}\n"
                      "\n{\"id\": \"b\", \"submit_s\": 1, \"gpus\": 1, \"runtime_s\": -1}\n");
  EXPECT_THAT(input_error_message([&] { read_file(jsonl.path(), "jsonl"); }),
              HasSubstr(jsonl.path() + ":3: field 'runtime_s'"));
}

TEST(NativeCsv, RequiredColumnMissingNamesIt) {
  TempFile f("nocol.csv", "id,submit_s,gpus\na,0,1\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, StartsWith(f.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("field 'runtime_s'"));
  EXPECT_THAT(msg, HasSubstr("required column is missing"));
}

TEST(NativeCsv, UnknownColumnListsValidOnes) {
  TempFile f("unk.csv", "id,submit_s,gpus,runtime_s,gpu_util\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, StartsWith(f.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("field 'gpu_util'"));
  EXPECT_THAT(msg, HasSubstr("unknown column"));
  for (const auto& info : job_fields()) EXPECT_THAT(msg, HasSubstr(std::string(info.name)));
}

TEST(NativeCsv, DuplicateColumn) {
  TempFile f("dup.csv", "id,submit_s,gpus,runtime_s,gpus\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, HasSubstr("field 'gpus'"));
  EXPECT_THAT(msg, HasSubstr("twice"));
}

TEST(NativeCsv, EmptyFileHasNoHeader) {
  TempFile f("empty.csv", "# only a comment\n\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, HasSubstr(f.path()));
  EXPECT_THAT(msg, HasSubstr("no header"));
}

TEST(NativeCsv, WrongFieldCountNamesLine) {
  TempFile f("count.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1\n");
  auto source = open_trace(f.path(), "csv", TraceDefaults(), 1);
  JobSpec job;
  ASSERT_TRUE(source->next(job));
  const std::string msg = input_error_message([&] { source->next(job); });
  EXPECT_THAT(msg, StartsWith(f.path() + ":3:"));
  EXPECT_THAT(msg, HasSubstr("expected 4 fields"));
  EXPECT_THAT(msg, HasSubstr("got 3"));
}

TEST(NativeCsv, TooManyFieldsIsAlsoAnError) {
  TempFile f("count2.csv", "id,submit_s,gpus,runtime_s\na,0,1,10,extra\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, StartsWith(f.path() + ":2:"));
  EXPECT_THAT(msg, HasSubstr("got 5"));
}

TEST(NativeCsv, UnsortedSubmitNamesLineAndField) {
  TempFile f("unsorted.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,20,1,10\nc,5,1,10\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, StartsWith(f.path() + ":4"));
  EXPECT_THAT(msg, HasSubstr("field 'submit_s'"));
  EXPECT_THAT(msg, HasSubstr("sorted"));
}

TEST(NativeCsv, EqualSubmitTimesAreSorted) {
  TempFile f("ties.csv", "id,submit_s,gpus,runtime_s\na,5,1,10\nb,5,1,10\n");
  EXPECT_EQ(read_file(f.path(), "csv").size(), 2u);
}

TEST(NativeCsv, DuplicateIdIsAnError) {
  // job_fields(): "id: job identifier, unique within the trace"; per-job outputs are keyed by it.
  TempFile f("dupid.csv", "id,submit_s,gpus,runtime_s\na,0,1,10\nb,1,1,10\na,2,1,10\n");
  std::string msg;
  try {
    read_file(f.path(), "csv");
  } catch (const InputError& e) {
    msg = e.what();
  }
  ASSERT_FALSE(msg.empty()) << "a duplicate id was accepted";
  EXPECT_THAT(msg, StartsWith(f.path() + ":4"));
  EXPECT_THAT(msg, HasSubstr("field 'id'"));
}

TEST(NativeCsv, EmptyRequiredCellNamesField) {
  TempFile f("req.csv", "id,submit_s,gpus,runtime_s\na,0,,10\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, StartsWith(f.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("field 'gpus'"));
  EXPECT_THAT(msg, HasSubstr("missing or empty"));
}

struct BadCell {
  const char* column;
  const char* value;
  const char* what;
};

// Readable parameter text in test output, instead of the struct's bytes.
void PrintTo(const BadCell& c, std::ostream* os) { *os << c.column << "=" << c.value; }

class NativeCsvBadCell : public ::testing::TestWithParam<BadCell> {};

TEST_P(NativeCsvBadCell, NamesFileLineAndField) {
  const auto& c = GetParam();
  // A full header, one good row, then the same row with one cell replaced.
  const std::vector<std::pair<std::string, std::string>> good = {
      {"id", "a"},           {"submit_s", "1"},   {"gpus", "1"},         {"runtime_s", "10"},
      {"sm_util", "0.5"},    {"sm_share", "0.5"}, {"memory_mib", "100"}, {"kind", "training"},
      {"mig_profile", ""},   {"tenant", ""},      {"priority", "0"},     {"kernel_us", "100"},
      {"checkpoint_s", "0"}, {"cpus", "2"}};
  std::string header, row, bad;
  bool replaced = false;
  for (const auto& [name, value] : good) {
    const char* sep = header.empty() ? "" : ",";
    header += sep + name;
    row += sep + value;
    const bool is_bad = name == c.column;
    replaced |= is_bad;
    bad += sep + (is_bad ? std::string(c.value) : value);
  }
  ASSERT_TRUE(replaced) << c.column;
  TempFile f("cell.csv", header + "\n" + row + "\n" + bad + "\n");
  const std::string msg = read_error(f, "csv");
  EXPECT_THAT(msg, StartsWith(f.path() + ":3: field '" + c.column + "'"));
  EXPECT_THAT(msg, HasSubstr(c.what));
}

INSTANTIATE_TEST_SUITE_P(
    Cells, NativeCsvBadCell,
    ::testing::Values(
        BadCell{"sm_util", "lots", "expected a number"}, BadCell{"sm_util", "0", "outside"},
        BadCell{"sm_util", "1.01", "outside"}, BadCell{"sm_share", "-0.5", "outside"},
        BadCell{"memory_mib", "12.5", "expected an integer"},
        BadCell{"memory_mib", "-1", "outside"}, BadCell{"priority", "high", "expected an integer"},
        BadCell{"kernel_us", "0.5", "outside"}, BadCell{"checkpoint_s", "-10", "outside"},
        BadCell{"kind", "batch", "expected 'training' or 'inference'"},
        BadCell{"submit_s", "1e13", "outside"}, BadCell{"runtime_s", "ten", "expected a number"},
        BadCell{"gpus", "-1", "outside"}, BadCell{"gpus", "2.5", "expected an integer"},
        BadCell{"cpus", "-0.5", "outside"}, BadCell{"cpus", "many", "expected a number"}),
    [](const auto& p) { return std::string(p.param.column) + "_" + std::to_string(p.index); });

TEST(NativeCsv, KindSynonyms) {
  TempFile f("kinds.csv", "id,submit_s,gpus,runtime_s,kind\na,0,1,1,train\nb,0,1,1,serving\n");
  const auto jobs = read_file(f.path(), "csv");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].kind, JobKind::kTraining);
  EXPECT_EQ(jobs[1].kind, JobKind::kInference);
}

// --- JSON Lines ---------------------------------------------------------------------------

TEST(Jsonl, HostileLinesAreInputErrorsNamingTheLine) {
  TempFile big("t.jsonl",
               "\n{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 1e400}\n");
  const std::string overflow = read_error(big, "jsonl");
  EXPECT_THAT(overflow, HasSubstr(big.path() + ":2:"));
  EXPECT_THAT(overflow, HasSubstr("field 'runtime_s': number out of range"));
  TempFile twice("t.jsonl",
                 "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"gpus\": 8, \"runtime_s\": 1}\n");
  EXPECT_THAT(read_error(twice, "jsonl"),
              HasSubstr(twice.path() + ":1#/gpus: field 'gpus': duplicate key"));
  TempFile deep("t.jsonl", "{\"id\": " + std::string(100000, '[') + "}\n");
  EXPECT_THAT(read_error(deep, "jsonl"), HasSubstr("nested deeper than 128 levels"));
}

TEST(Jsonl, ReadsFieldsSkipsBlankAndCommentLines) {
  TempFile f(
      "t.jsonl",
      "# header comment\n"
      "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 2, \"runtime_s\": 60.5, \"sm_util\": 0.5, "
      "\"kind\": \"inference\", \"memory_mib\": 4096, \"tenant\": \"t\", \"mig_profile\": "
      "\"1g.10gb\", \"priority\": -1, \"kernel_us\": 20, \"checkpoint_s\": 30, \"sm_share\": "
      "0.75}\r\n"
      "\n"
      "{\"id\": 7, \"submit_s\": \"3\", \"gpus\": 1, \"runtime_s\": 1, \"sm_util\": null}\n"
      "   \n");
  auto source = open_trace(f.path(), "jsonl", TraceDefaults(), 1);
  const auto jobs = read_all(*source);
  ASSERT_EQ(jobs.size(), 2u);
  const auto& a = jobs[0];
  EXPECT_EQ(a.id, "a");
  EXPECT_EQ(a.gpus, 2);
  EXPECT_EQ(a.runtime, Time::from_us(60'500'000));
  EXPECT_DOUBLE_EQ(a.sm_util, 0.5);
  EXPECT_DOUBLE_EQ(a.sm_share, 0.75);
  EXPECT_EQ(a.kind, JobKind::kInference);
  EXPECT_EQ(a.memory, MemoryMiB(4096));
  EXPECT_EQ(a.tenant, "t");
  EXPECT_EQ(a.mig_profile, "1g.10gb");
  EXPECT_EQ(a.priority, -1);
  EXPECT_EQ(a.kernel_length, Time::from_us(20));
  EXPECT_EQ(a.checkpoint_interval, Time::from_seconds(30));
  const auto& b = jobs[1];
  EXPECT_EQ(b.id, "7");                        // a number id becomes its text
  EXPECT_EQ(b.submit, Time::from_seconds(3));  // a numeric string is accepted
  EXPECT_DOUBLE_EQ(b.sm_util, 1.0);            // null means missing: default
  EXPECT_EQ(b.kind, JobKind::kTraining);
  const auto& st = source->stats();
  EXPECT_EQ(st.rows, 2u);
  EXPECT_EQ(st.skipped_lines, 3u);
  EXPECT_EQ(source->skipped_rows(), 3u);
  EXPECT_EQ(st.defaults.rows[idx(JobField::kSmUtil)], 1u);
  EXPECT_EQ(st.defaults.rows[idx(JobField::kMemory)], 1u);
  EXPECT_EQ(st.defaults.rows[idx(JobField::kId)], 0u);
}

TEST(Jsonl, UnknownKeyListsValidKeys) {
  TempFile f("unk.jsonl",
             "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 1}\n"
             "{\"id\": \"b\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 1, \"gpu\": 2}\n");
  const std::string msg = read_error(f, "jsonl");
  EXPECT_THAT(msg, StartsWith(f.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("field 'gpu'"));
  EXPECT_THAT(msg, HasSubstr("unknown key"));
  EXPECT_THAT(msg, HasSubstr("gpus"));
  EXPECT_THAT(msg, HasSubstr("runtime_s"));
}

TEST(Jsonl, MissingRequiredKey) {
  TempFile f("req.jsonl", "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1}\n");
  const std::string msg = read_error(f, "jsonl");
  EXPECT_THAT(msg, StartsWith(f.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("field 'runtime_s'"));
  EXPECT_THAT(msg, HasSubstr("missing"));
}

TEST(Jsonl, WrongValueTypes) {
  TempFile f("type.jsonl", "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": true, \"runtime_s\": 1}\n");
  std::string msg = read_error(f, "jsonl");
  EXPECT_THAT(msg, HasSubstr(f.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("field 'gpus'"));
  EXPECT_THAT(msg, HasSubstr("expected a string or number"));

  TempFile g("frac.jsonl", "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1.5, \"runtime_s\": 1}\n");
  msg = read_error(g, "jsonl");
  EXPECT_THAT(msg, StartsWith(g.path() + ":1: field 'gpus'"));
  EXPECT_THAT(msg, HasSubstr("expected an integer"));

  TempFile h("arr.jsonl", "[1, 2]\n");
  msg = read_error(h, "jsonl");
  EXPECT_THAT(msg, StartsWith(h.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("expected an object"));
}

TEST(Jsonl, UnsortedSubmit) {
  TempFile f("unsorted.jsonl",
             "{\"id\": \"a\", \"submit_s\": 10, \"gpus\": 1, \"runtime_s\": 1}\n"
             "{\"id\": \"b\", \"submit_s\": 9.5, \"gpus\": 1, \"runtime_s\": 1}\n");
  const std::string msg = read_error(f, "jsonl");
  EXPECT_THAT(msg, StartsWith(f.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("field 'submit_s'"));
  EXPECT_THAT(msg, HasSubstr("sorted"));
}

TEST(Jsonl, InvalidJsonNamesLine) {
  TempFile f("bad.jsonl",
             "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 1}\n"
             "\n"
             "{\"id\": \"b\", \"submit_s\": 0,, \"gpus\": 1}\n");
  const std::string msg = read_error(f, "jsonl");
  EXPECT_THAT(msg, StartsWith(f.path() + ":3:"));
  EXPECT_THAT(msg, HasSubstr("invalid JSON"));
}

TEST(Jsonl, InvalidJsonLocationIsFileLineColumn) {
  // The error for a bad JSON line should read "file:LINE:COLUMN" (README: one exception type
  // naming file:line[:column]). The second comma in line 3 is column 27.
  TempFile f("col.jsonl",
             "{\"id\": \"a\", \"submit_s\": 0, \"gpus\": 1, \"runtime_s\": 1}\n"
             "\n"
             "{\"id\": \"b\", \"submit_s\": 0,, \"gpus\": 1}\n");
  const std::string msg = read_error(f, "jsonl");
  EXPECT_THAT(msg, StartsWith(f.path() + ":3:27:"));
}

// --- Tiresias -----------------------------------------------------------------------------

TEST(Tiresias, SampleMapsColumns) {
  const std::string path = source_path("traces/samples/tiresias_60_job.csv");
  auto source = open_trace(path, "tiresias", TraceDefaults(), 1);
  const auto jobs = read_all(*source);
  ASSERT_EQ(jobs.size(), 60u);
  // job_id,num_gpu,submit_time,iterations,model_name,duration,interval
  // 0,1,0,606,vgg19,164,30
  EXPECT_EQ(jobs[0].id, "0");
  EXPECT_EQ(jobs[0].gpus, 1);
  EXPECT_EQ(jobs[0].submit, Time::zero());
  EXPECT_EQ(jobs[0].runtime, Time::from_seconds(164));
  // 1,8,30,133,vgg11,147,23
  EXPECT_EQ(jobs[1].id, "1");
  EXPECT_EQ(jobs[1].gpus, 8);
  EXPECT_EQ(jobs[1].submit, Time::from_seconds(30));
  EXPECT_EQ(jobs[1].runtime, Time::from_seconds(147));
  // 59,1,1779,525,inception3,122,33
  EXPECT_EQ(jobs[59].id, "59");
  EXPECT_EQ(jobs[59].submit, Time::from_seconds(1779));
  EXPECT_EQ(jobs[59].runtime, Time::from_seconds(122));
  for (std::size_t i = 1; i < jobs.size(); ++i) EXPECT_LE(jobs[i - 1].submit, jobs[i].submit);

  const auto& st = source->stats();
  EXPECT_EQ(st.rows, 60u);
  EXPECT_EQ(st.skipped_lines, 0u);
  // Only the four mapped fields come from the trace; all others are defaults, counted.
  for (const auto& info : job_fields()) {
    EXPECT_EQ(st.defaults.rows[idx(info.field)], info.required ? 0u : 60u) << info.name;
  }
}

TEST(Tiresias, IgnoredColumnsMayHoldAnything) {
  TempFile f("t.csv",
             "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
             "x,2,5,not-a-number,\"a,b\",100,?\n");
  const auto jobs = read_file(f.path(), "tiresias");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, "x");
  EXPECT_EQ(jobs[0].gpus, 2);
  EXPECT_EQ(jobs[0].runtime, Time::from_seconds(100));
}

TEST(Tiresias, IgnoredColumnsAreOptional) {
  TempFile f("t.csv", "job_id,num_gpu,submit_time,duration\nx,2,5,100\n");
  EXPECT_EQ(read_file(f.path(), "tiresias").size(), 1u);
}

TEST(Tiresias, MissingDurationColumnNamesIt) {
  TempFile f("t.csv", "job_id,num_gpu,submit_time,iterations,model_name,interval\n");
  const std::string msg = read_error(f, "tiresias");
  EXPECT_THAT(msg, StartsWith(f.path() + ":1"));
  EXPECT_THAT(msg, HasSubstr("field 'duration'"));
  EXPECT_THAT(msg, HasSubstr("required column is missing"));
}

TEST(Tiresias, UnknownColumnListsMappedAndIgnoredOnes) {
  TempFile f("t.csv", "job_id,num_gpu,submit_time,duration,user\n");
  const std::string msg = read_error(f, "tiresias");
  EXPECT_THAT(msg, HasSubstr("field 'user'"));
  for (const char* c :
       {"job_id", "num_gpu", "submit_time", "duration", "iterations", "model_name", "interval"}) {
    EXPECT_THAT(msg, HasSubstr(c));
  }
}

TEST(Tiresias, NativeColumnNamesAreNotTiresiasColumns) {
  TempFile f("t.csv", "id,submit_s,gpus,runtime_s\na,0,1,1\n");
  const std::string msg = read_error(f, "tiresias");
  EXPECT_THAT(msg, HasSubstr("unknown column"));
}

TEST(Tiresias, BadCellNamesNativeField) {
  TempFile f("t.csv", "job_id,num_gpu,submit_time,duration\nx,two,5,100\n");
  const std::string msg = read_error(f, "tiresias");
  EXPECT_THAT(msg, StartsWith(f.path() + ":2"));
  EXPECT_THAT(msg, HasSubstr("field 'gpus'"));
}

}  // namespace
}  // namespace gpumux
