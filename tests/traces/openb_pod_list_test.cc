// The openb pod-row parser shared by `gpumux pack` and the `openb-pods` trace loader.
#include "traces/formats/openb_pod_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/traces/test_files.h"
#include "traces/io/csv_reader.h"

namespace gpumux {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::input_error_message;

const std::vector<std::string> kOpenbFullHeader = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

constexpr OpenbPodParts kAllParts{
    .cpu_milli_required = true, .memory_mib = true, .gpu_spec = true, .times = true};

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> c;
  EXPECT_TRUE(split_csv_line(line, c));
  return c;
}

OpenbPod parse_pod(const std::string& line, OpenbPodParts parts = kAllParts) {
  const OpenbPodRow row(kOpenbFullHeader, "pods.csv:1", parts);
  OpenbPod pod;
  row.parse(cells(line), "pods.csv:7", pod);
  return pod;
}

std::string parse_error(const std::string& line, OpenbPodParts parts = kAllParts) {
  return input_error_message([&] { parse_pod(line, parts); });
}

TEST(OpenbPodRow, GoodRowFillsEveryField) {
  const OpenbPod pod =
      parse_pod(" p1 ,6000,12288,1,460, V100M16|V100M32||,LS,Running,427061.5,427100,427062");
  EXPECT_EQ(pod.name, "p1");
  EXPECT_EQ(pod.cpu_milli, 6000);
  EXPECT_EQ(pod.memory_mib, 12288);
  EXPECT_EQ(pod.num_gpu, 1);
  EXPECT_EQ(pod.gpu_milli, 460);
  EXPECT_THAT(pod.gpu_spec, ElementsAre("V100M16", "V100M32"));
  EXPECT_DOUBLE_EQ(pod.creation_s, 427061.5);
  EXPECT_EQ(pod.scheduled_s, 427062.0);
  EXPECT_EQ(pod.deletion_s, 427100.0);
}

TEST(OpenbPodRow, EmptyOptionalCellsAreNotGiven) {
  const OpenbPod pending = parse_pod("p,,1,1,1000,,LS,Pending,5,,", {.times = true});
  EXPECT_FALSE(pending.cpu_milli.has_value());
  EXPECT_FALSE(pending.scheduled_s.has_value());
  EXPECT_FALSE(pending.deletion_s.has_value());
  EXPECT_TRUE(pending.gpu_spec.empty());
  // A required cpu_milli must hold a number.
  EXPECT_THAT(parse_error("p,,1,1,1000,,LS,Pending,5,,"), HasSubstr("field 'cpu_milli'"));
}

// Each bad cell is named with the row's place; the bounds are the ones in the header comment.
TEST(OpenbPodRow, EachBadCellNamesItsField) {
  const std::string good[] = {"p", "1", "1", "1", "500", "T4", "LS", "Running", "0", "10", "0"};
  struct Bad {
    std::size_t column;
    std::string cell;
    std::string message;
  };
  const Bad bad[] = {
      {0, " ", "pods.csv:7: field 'name': empty pod name"},
      {1, "-5", "pods.csv:7: field 'cpu_milli': value -5 is outside [0, 1000000000]"},
      {1, "1.5", "pods.csv:7: field 'cpu_milli': expected an integer, got '1.5'"},
      {2, "x", "pods.csv:7: field 'memory_mib': expected an integer"},
      {3, "65", "pods.csv:7: field 'num_gpu': value 65 is outside [0, 64]"},
      {4, "1001", "pods.csv:7: field 'gpu_milli': value 1001 is outside [0, 1000]"},
      {8, "", "pods.csv:7: field 'creation_time': expected a number, got ''"},
      {9, "soon", "pods.csv:7: field 'deletion_time': expected a number"},
      {10, "-1", "pods.csv:7: field 'scheduled_time': value -1 is outside"},
  };
  {
    const OpenbPodRow parser(kOpenbFullHeader, "pods.csv:1", kAllParts);
    OpenbPod pod;
    EXPECT_NO_THROW(parser.parse(std::vector<std::string>(std::begin(good), std::end(good)),
                                 "pods.csv:7", pod));  // the row each case spoils one cell of
  }
  for (const Bad& b : bad) {
    std::vector<std::string> row(std::begin(good), std::end(good));
    row[b.column] = b.cell;
    const OpenbPodRow parser(kOpenbFullHeader, "pods.csv:1", kAllParts);
    OpenbPod pod;
    EXPECT_THAT(input_error_message([&] { parser.parse(row, "pods.csv:7", pod); }),
                HasSubstr(b.message))
        << kOpenbFullHeader[b.column] << " = '" << b.cell << "'";
  }
}

TEST(OpenbPodRow, WrongCellCountNamesThePlace) {
  EXPECT_THAT(parse_error("p,1,1,1,500"),
              HasSubstr("pods.csv:7: expected 11 comma-separated fields (as in the header), "
                        "found 5"));
}

// Cells of parts a reader leaves out are never read: pack ignores the times, the run loader
// memory_mib and gpu_spec.
TEST(OpenbPodRow, PartsLeftOutAreNotRead) {
  const OpenbPod pack =
      parse_pod("p,1,2,1,500,T4,LS,Running,x,y,z",
                {.cpu_milli_required = true, .memory_mib = true, .gpu_spec = true});
  EXPECT_EQ(pack.memory_mib, 2);
  EXPECT_THAT(pack.gpu_spec, ElementsAre("T4"));
  EXPECT_FALSE(pack.scheduled_s.has_value());
  const OpenbPod run = parse_pod("p,1,lots,1,500,|||,LS,Running,3,4,3", {.times = true});
  EXPECT_EQ(run.memory_mib, 0);
  EXPECT_TRUE(run.gpu_spec.empty());
  EXPECT_EQ(run.cpu_milli, 1);
  EXPECT_DOUBLE_EQ(run.creation_s, 3.0);
}

TEST(OpenbPodRow, MissingRequiredColumnNamesItAtTheHeader) {
  const std::vector<std::string> multigpu = {"name", "cpu_milli", "memory_mib", "num_gpu",
                                             "gpu_milli"};
  const std::string msg = input_error_message([&] {
    OpenbPodRow(multigpu, "multigpu.csv:1", {.times = true}, " (no times in multigpu lists)");
  });
  EXPECT_THAT(msg, HasSubstr("multigpu.csv:1: field 'creation_time': required column is missing "
                             "from the header (needed: name, num_gpu, gpu_milli, creation_time, "
                             "deletion_time, scheduled_time) (no times in multigpu lists)"));
  // The same header serves a reader that needs no times.
  EXPECT_NO_THROW(
      OpenbPodRow(multigpu, "multigpu.csv:1", {.cpu_milli_required = true, .memory_mib = true}));
  const std::vector<std::string> no_memory = {"name", "cpu_milli", "num_gpu", "gpu_milli"};
  EXPECT_THAT(input_error_message([&] {
                OpenbPodRow(no_memory, "m.csv:3", {.cpu_milli_required = true, .memory_mib = true});
              }),
              HasSubstr("m.csv:3: field 'memory_mib': required column is missing"));
  // cpu_milli is optional unless asked for.
  const std::vector<std::string> no_cpu = {"name", "num_gpu", "gpu_milli"};
  EXPECT_NO_THROW(OpenbPodRow(no_cpu, "c.csv:1", {}));
  EXPECT_THAT(
      input_error_message([&] { OpenbPodRow(no_cpu, "c.csv:1", {.cpu_milli_required = true}); }),
      HasSubstr("c.csv:1: field 'cpu_milli': required column is missing"));
}

// Header names are matched whatever their order, with spaces around them and a UTF-8 byte-order
// mark (as spreadsheets save CSVs) ignored.
TEST(OpenbPodRow, HeaderNamesMatchedWithBomSpacesAndAnyOrder) {
  const std::vector<std::string> header = {
      "\xEF\xBB\xBF"
      "gpu_milli",
      " num_gpu ", "extra", "\tname", "cpu_milli"};
  const OpenbPodRow row(header, "h.csv:1", {});
  OpenbPod pod;
  row.parse({"250", "1", "ignored", "pod-a", "3000"}, "h.csv:2", pod);
  EXPECT_EQ(pod.name, "pod-a");
  EXPECT_EQ(pod.num_gpu, 1);
  EXPECT_EQ(pod.gpu_milli, 250);
  EXPECT_EQ(pod.cpu_milli, 3000);
}

}  // namespace
}  // namespace gpumux
