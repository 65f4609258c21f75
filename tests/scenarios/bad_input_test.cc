// Every file under tests/data/bad-input/ holds one kind of input error. The table below says how
// each is read and what its InputError must name: the file, the place (JSON pointer or line) and
// the field, so that a user can fix the input from the message alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "traces/formats/trace_opening.h"
#include "scenarios/scenario.h"
#include "tests/traces/test_files.h"
#include "traces/formats/trace_source.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::input_error_message;
using testing::source_path;
using ::testing::StartsWith;

enum class Reader { kScenario, kScenarioThenTrace, kCsv, kJsonl, kTiresias };

struct BadInput {
  const char* file;  // under tests/data/bad-input/
  Reader reader;
  const char* location;  // the message starts with this (relative to the folder), e.g.
                         // "x.json#/seed" or "x.csv:3"
  const char* field;     // expected "field '...'"; "" when the error is about no one field
  const char* what;      // a phrase of the explanation
};

std::string dir() { return source_path("tests/data/bad-input"); }

void read_trace(const std::string& path, const std::string& format, const TraceDefaults& defaults,
                std::uint64_t seed) {
  auto source = open_trace(path, format, defaults, seed);
  JobSpec job;
  while (source->next(job)) {
  }
}

void read(const BadInput& c) {
  const std::string path = dir() + "/" + c.file;
  switch (c.reader) {
    case Reader::kScenario:
      load_scenario(path);
      break;
    case Reader::kScenarioThenTrace: {
      const Scenario s = load_scenario(path);  // the scenario itself is valid
      read_trace(s.trace.path, s.trace.format, s.trace.defaults, s.seed);
      break;
    }
    case Reader::kCsv:
      read_trace(path, "csv", TraceDefaults(), 1);
      break;
    case Reader::kJsonl:
      read_trace(path, "jsonl", TraceDefaults(), 1);
      break;
    case Reader::kTiresias:
      read_trace(path, "tiresias", TraceDefaults(), 1);
      break;
  }
}

const BadInput kCases[] = {
    // Scenario files: "file#/json/pointer".
    {"scenario_unknown_key.json", Reader::kScenario, "scenario_unknown_key.json#/sed", "sed",
     "unknown key"},
    {"scenario_unknown_nested_key.json", Reader::kScenario,
     "scenario_unknown_nested_key.json#/cluster/node_groups/0/nvlinks", "nvlinks", "unknown key"},
    {"scenario_bad_type.json", Reader::kScenario, "scenario_bad_type.json#/seed", "seed",
     "expected an integer"},
    {"scenario_unknown_device.json", Reader::kScenario,
     "scenario_unknown_device.json#/cluster/node_groups/0/device", "device",
     "unknown device 'A200-80GB'"},
    {"scenario_unknown_model.json", Reader::kScenario, "scenario_unknown_model.json#/sharing/model",
     "model", "unknown sharing model 'teleport'"},
    {"scenario_unknown_model_param.json", Reader::kScenario,
     "scenario_unknown_model_param.json#/sharing/params/slice_us", "slice_us", "unknown key"},
    {"scenario_unknown_queue.json", Reader::kScenario,
     "scenario_unknown_queue.json#/scheduler/queue", "queue", "unknown queue policy 'lifo'"},
    {"scenario_unknown_queue_order.json", Reader::kScenario,
     "scenario_unknown_queue_order.json#/scheduler/order", "order",
     "unknown queue order 'longest'"},
    {"scenario_shortest_without_greedy.json", Reader::kScenario,
     "scenario_shortest_without_greedy.json#/scheduler/order", "order",
     "applies only to queue 'greedy'"},
    {"scenario_arrival_batches_zero_jobs.json", Reader::kScenario,
     "scenario_arrival_batches_zero_jobs.json#/trace/arrival_batches/jobs", "jobs",
     "expected an integer in [1,"},
    {"scenario_arrival_batches_unknown_key.json", Reader::kScenario,
     "scenario_arrival_batches_unknown_key.json#/trace/arrival_batches/every", "every",
     "unknown key"},
    {"scenario_resample_unknown_method.json", Reader::kScenario,
     "scenario_resample_unknown_method.json#/trace/resample/method", "method",
     "unknown resampling method 'bootsrap' (did you mean 'bootstrap'?)"},
    {"scenario_resample_with_inflation.json", Reader::kScenario,
     "scenario_resample_with_inflation.json#/trace/resample", "resample",
     "cannot be combined with trace.inflation"},
    {"scenario_arrival_batches_negative_interval.json", Reader::kScenario,
     "scenario_arrival_batches_negative_interval.json#/trace/arrival_batches/every_s", "every_s",
     "expected a number in [0,"},
    {"scenario_unknown_placement.json", Reader::kScenario,
     "scenario_unknown_placement.json#/scheduler/placement", "placement",
     "unknown placement policy 'random-fit'"},
    {"scenario_missing_trace_file.json", Reader::kScenario,
     "scenario_missing_trace_file.json#/trace/file", "file", "trace file not found"},
    {"scenario_unknown_trace_format.json", Reader::kScenario,
     "scenario_unknown_trace_format.json#/trace/format", "format", "unknown trace format"},
    {"scenario_both_file_and_generator.json", Reader::kScenario,
     "scenario_both_file_and_generator.json#/trace", "file",
     "exactly one of 'file' or 'generator'"},
    {"scenario_neither_file_nor_generator.json", Reader::kScenario,
     "scenario_neither_file_nor_generator.json#/trace", "file",
     "exactly one of 'file' or 'generator'"},
    {"scenario_negative_nodes.json", Reader::kScenario,
     "scenario_negative_nodes.json#/cluster/node_groups/0/nodes", "nodes",
     "expected an integer in"},
    {"scenario_too_many_gpus_per_node.json", Reader::kScenario,
     "scenario_too_many_gpus_per_node.json#/cluster/node_groups/0/gpus_per_node", "gpus_per_node",
     "[0, 64]"},
    {"scenario_empty_node_groups.json", Reader::kScenario,
     "scenario_empty_node_groups.json#/cluster/node_groups", "node_groups", "non-empty array"},
    {"scenario_both_groups_and_nodes_csv.json", Reader::kScenario,
     "scenario_both_groups_and_nodes_csv.json#/cluster", "node_groups",
     "exactly one of 'node_groups', 'nodes_csv' or 'pool'"},
    {"scenario_pool_with_node_groups.json", Reader::kScenario,
     "scenario_pool_with_node_groups.json#/cluster", "pool",
     "exactly one of 'node_groups', 'nodes_csv' or 'pool'"},
    {"scenario_node_group_negative_cpus.json", Reader::kScenario,
     "scenario_node_group_negative_cpus.json#/cluster/node_groups/0/cpus", "cpus",
     "expected a number in [0,"},
    {"scenario_pool_zero_gpus.json", Reader::kScenario,
     "scenario_pool_zero_gpus.json#/cluster/pool/gpus", "gpus", "expected an integer in [1,"},
    {"scenario_pool_missing_cpus.json", Reader::kScenario,
     "scenario_pool_missing_cpus.json#/cluster/pool", "cpus_per_gpu", "required key is missing"},
    {"scenario_pool_with_sharing_model.json", Reader::kScenario,
     "scenario_pool_with_sharing_model.json#/sharing/model", "model",
     "sharing.model must be 'exclusive'"},
    {"scenario_integer_seconds_not_bool.json", Reader::kScenario,
     "scenario_integer_seconds_not_bool.json#/trace/integer_seconds", "integer_seconds",
     "expected true or false"},
    {"scenario_missing_cluster.json", Reader::kScenario, "scenario_missing_cluster.json#",
     "cluster", "required key is missing"},
    {"scenario_bad_distribution.json", Reader::kScenario,
     "scenario_bad_distribution.json#/trace/defaults/sm_util", "sm_util", "must lie in"},
    {"scenario_default_for_required_field.json", Reader::kScenario,
     "scenario_default_for_required_field.json#/trace/defaults/runtime_s", "runtime_s",
     "cannot have a default"},
    {"scenario_bad_arrival_process.json", Reader::kScenario,
     "scenario_bad_arrival_process.json#/trace/generator/arrival/process", "process", "hawkes"},
    {"scenario_new_device_without_memory.json", Reader::kScenario,
     "scenario_new_device_without_memory.json#/cluster/devices/0", "memory_mib",
     "required key is missing"},
    {"scenario_bad_mig_offset.json", Reader::kScenario,
     "scenario_bad_mig_offset.json#/cluster/devices/0/mig/profiles/0/start_offsets/1",
     "start_offsets", "expected an offset in [0, 2]"},
    {"scenario_bad_name.json", Reader::kScenario, "scenario_bad_name.json#/name", "name",
     "path separator"},
    {"scenario_bad_output_interval.json", Reader::kScenario,
     "scenario_bad_output_interval.json#/outputs/timeseries_interval_s", "timeseries_interval_s",
     "expected a number in"},
    {"scenario_negative_time_limit.json", Reader::kScenario,
     "scenario_negative_time_limit.json#/limits/max_time_s", "max_time_s", "expected a number in"},
    {"scenario_not_an_object.json", Reader::kScenario, "scenario_not_an_object.json#", "",
     "expected an object"},
    {"scenario_expect_min_above_max.json", Reader::kScenario,
     "scenario_expect_min_above_max.json#/expect/jobs.finished", "jobs.finished",
     "min is above max"},
    {"scenario_expect_without_bound.json", Reader::kScenario,
     "scenario_expect_without_bound.json#/expect/jct_s.p95", "jct_s.p95",
     "needs \"min\", \"max\" or both"},
    // A syntax error: "file:line:column". The missing comma is at the end of line 3; the parser
    // notices it at the string that starts line 4.
    {"scenario_syntax_error.json", Reader::kScenario, "scenario_syntax_error.json:4:", "",
     "invalid JSON"},
    // Nodes CSVs named by a scenario: the error names the CSV file and its line.
    {"scenario_nodes_csv_missing_column.json", Reader::kScenario, "nodes_missing_column.csv:1",
     "device", "required column is missing"},
    {"scenario_nodes_csv_bad_gpus.json", Reader::kScenario, "nodes_bad_gpus.csv:3", "gpus",
     "expected an integer"},
    {"scenario_nodes_csv_unknown_device.json", Reader::kScenario, "nodes_unknown_device.csv:3",
     "device", "unknown device 'K80'"},
    {"scenario_nodes_csv_bad_nvlink.json", Reader::kScenario, "nodes_bad_nvlink.csv:2", "nvlink",
     "expected true/false"},
    // A valid scenario whose trace has a bad row: found when the trace is read.
    {"scenario_trace_with_bad_row.json", Reader::kScenarioThenTrace, "trace_bad_kind.csv:3", "kind",
     "expected 'training' or 'inference'"},
    // Trace files: "file:line".
    {"trace_bad_number.csv", Reader::kCsv, "trace_bad_number.csv:3", "runtime_s",
     "expected a number, got 'ten'"},
    {"trace_unsorted.csv", Reader::kCsv, "trace_unsorted.csv:4", "submit_s", "sorted"},
    {"trace_missing_column.csv", Reader::kCsv, "trace_missing_column.csv:1", "runtime_s",
     "required column is missing"},
    {"trace_wrong_field_count.csv", Reader::kCsv, "trace_wrong_field_count.csv:3", "",
     "expected 6 fields like the header, got 5"},
    {"trace_bad_kind.csv", Reader::kCsv, "trace_bad_kind.csv:3", "kind",
     "expected 'training' or 'inference', got 'batch'"},
    {"trace_unknown_column.csv", Reader::kCsv, "trace_unknown_column.csv:1", "gpu_count",
     "unknown column"},
    {"trace_unterminated_quote.csv", Reader::kCsv, "trace_unterminated_quote.csv:3", "",
     "unterminated double quote"},
    {"trace_empty_required.csv", Reader::kCsv, "trace_empty_required.csv:3", "id",
     "missing or empty"},
    {"trace_fractional_gpus.csv", Reader::kCsv, "trace_fractional_gpus.csv:2", "gpus",
     "expected an integer"},
    {"trace_out_of_range.csv", Reader::kCsv, "trace_out_of_range.csv:3", "sm_util", "outside"},
    {"trace_duplicate_column.csv", Reader::kCsv, "trace_duplicate_column.csv:1", "gpus",
     "column appears twice"},
    {"trace_empty.csv", Reader::kCsv, "trace_empty.csv:1", "", "no header"},
    {"trace_invalid_json.jsonl", Reader::kJsonl, "trace_invalid_json.jsonl:2:", "", "invalid JSON"},
    {"trace_unknown_key.jsonl", Reader::kJsonl, "trace_unknown_key.jsonl:1#/user", "user",
     "unknown key"},
    {"trace_wrong_type.jsonl", Reader::kJsonl, "trace_wrong_type.jsonl:1#/gpus", "gpus",
     "expected a string or number"},
    {"trace_tiresias_missing_duration.csv", Reader::kTiresias,
     "trace_tiresias_missing_duration.csv:1", "duration", "required column is missing"},
};

// Files that are not cases of their own but are read through a scenario above.
const char* const kAuxiliaryFiles[] = {"nodes_missing_column.csv", "nodes_bad_gpus.csv",
                                       "nodes_unknown_device.csv", "nodes_bad_nvlink.csv"};

class BadInputFiles : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputFiles, MessageNamesFilePlaceAndField) {
  const BadInput& c = GetParam();
  const std::string msg = input_error_message([&] { read(c); });
  ASSERT_FALSE(msg.empty());
  // The place: the full path of the offending file, then the pointer or line.
  EXPECT_THAT(msg, StartsWith(dir() + "/" + c.location)) << msg;
  if (*c.field) {
    EXPECT_THAT(msg, HasSubstr(std::string(": field '") + c.field + "': ")) << msg;
  } else {
    EXPECT_THAT(msg, ::testing::Not(HasSubstr(": field '"))) << msg;
  }
  EXPECT_THAT(msg, HasSubstr(c.what)) << msg;
}

INSTANTIATE_TEST_SUITE_P(Files, BadInputFiles, ::testing::ValuesIn(kCases), [](const auto& p) {
  std::string n = p.param.file;
  for (char& ch : n) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return n;
});

TEST(BadInputFolder, EveryFileIsCoveredByExactlyOneCase) {
  std::set<std::string> covered;
  for (const auto& c : kCases) EXPECT_TRUE(covered.insert(c.file).second) << c.file;
  for (const char* f : kAuxiliaryFiles) covered.insert(f);
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(dir())) {
    present.insert(entry.path().filename().string());
  }
  for (const auto& f : present) EXPECT_TRUE(covered.count(f)) << "no test reads " << f;
  for (const auto& f : covered) EXPECT_TRUE(present.count(f)) << "missing file " << f;
}

TEST(BadInputFolder, SyntaxErrorNamesLineAndColumn) {
  const std::string path = dir() + "/scenario_syntax_error.json";
  const std::string msg = input_error_message([&] { load_scenario(path); });
  // "file:4:COLUMN: invalid JSON: ..." with a column inside line 4.
  ASSERT_THAT(msg, StartsWith(path + ":4:"));
  const std::string rest = msg.substr(path.size() + 3);
  const int column = std::stoi(rest);
  EXPECT_GE(column, 3);   // the string "cluster" starts at column 3
  EXPECT_LE(column, 12);  // and ends at column 11
  EXPECT_THAT(msg, HasSubstr("syntax error"));
}

}  // namespace
}  // namespace gpumux
