#include "packing/openb_csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"
#include "traces/formats/openb_node_list.h"
#include "tests/packing/test_util.h"

namespace gpumux::packing {
namespace {

using ::testing::HasSubstr;
using testing::TempFile;

// Returns the InputError message of `fn`, failing the test when it does not throw one.
template <typename Fn>
std::string input_error_of(Fn fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

TEST(OpenbNodes, LoadsFieldsIncludingCpuOnlyNodes) {
  TempFile f("nodes.csv",
             "sn,cpu_milli,memory_mib,gpu,model\n"
             "openb-node-0000,64000,262144,2,P100\n"
             "openb-node-1300,96000,786432,0,\n");
  const NodeList list = load_openb_nodes(f.path());
  ASSERT_EQ(list.nodes.size(), 2u);
  EXPECT_EQ(list.nodes[0].name, "openb-node-0000");
  EXPECT_EQ(list.nodes[0].cpu_milli, 64000);
  EXPECT_EQ(list.nodes[0].memory.mib(), 262144);
  EXPECT_EQ(list.nodes[0].num_gpus, 2);
  EXPECT_EQ(list.nodes[0].gpu_model, "P100");
  EXPECT_EQ(list.nodes[1].num_gpus, 0);
  EXPECT_EQ(list.nodes[1].gpu_model, "");
  EXPECT_EQ(list.report.loaded, 2u);
  EXPECT_EQ(list.report.skipped_total(), 0u);
}

TEST(OpenbNodes, ColumnsAreMatchedByHeaderName) {
  TempFile f("reordered.csv", "model,gpu,sn,memory_mib,cpu_milli\nT4,2,n0,1024,8000\n");
  const NodeList list = load_openb_nodes(f.path());
  ASSERT_EQ(list.nodes.size(), 1u);
  EXPECT_EQ(list.nodes[0].name, "n0");
  EXPECT_EQ(list.nodes[0].cpu_milli, 8000);
  EXPECT_EQ(list.nodes[0].num_gpus, 2);
}

TEST(OpenbNodes, BadRowsNameFileLineAndField) {
  TempFile bad_gpu("bad_gpu.csv",
                   "sn,cpu_milli,memory_mib,gpu,model\n"
                   "n0,64000,262144,2,P100\n"
                   "n1,64000,262144,two,P100\n");
  std::string msg = input_error_of([&] { load_openb_nodes(bad_gpu.path()); });
  EXPECT_THAT(msg, HasSubstr(bad_gpu.path() + ":3"));
  EXPECT_THAT(msg, HasSubstr("field 'gpu'"));
  EXPECT_THAT(msg, HasSubstr("'two'"));

  TempFile no_model("no_model.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,4,\n");
  msg = input_error_of([&] { load_openb_nodes(no_model.path()); });
  EXPECT_THAT(msg, HasSubstr(":2: field 'model'"));

  TempFile too_many("too_many.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,17,T4\n");
  msg = input_error_of([&] { load_openb_nodes(too_many.path()); });
  EXPECT_THAT(msg, HasSubstr("field 'gpu'"));
  EXPECT_THAT(msg, HasSubstr("out of range"));

  TempFile missing_col("missing.csv", "sn,cpu_milli,gpu,model\nn0,1,1,T4\n");
  msg = input_error_of([&] { load_openb_nodes(missing_col.path()); });
  EXPECT_THAT(msg, HasSubstr(":1: field 'memory_mib'"));

  msg = input_error_of([&] { load_openb_nodes("/nonexistent/nodes.csv"); });
  EXPECT_THAT(msg, HasSubstr("/nonexistent/nodes.csv"));
  EXPECT_THAT(msg, HasSubstr("cannot open"));
}

TEST(OpenbPods, LoadsFullAndMultigpuFormats) {
  TempFile full("pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                "creation_time,deletion_time,scheduled_time\n"
                "p0,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
                "p1,6000,12288,1,460,V100M16|V100M32||,LS,Running,427061,,427061\n"
                "p2,8000,30517,0,0,T4,BE,Running,1,2,1\n");
  const PodList list = load_openb_pods(full.path());
  ASSERT_EQ(list.pods.size(), 3u);
  EXPECT_EQ(list.pods[0].num_gpus, 1);
  EXPECT_EQ(list.pods[0].gpu_milli, 1000);
  EXPECT_TRUE(list.pods[0].gpu_spec.empty());
  EXPECT_EQ(list.pods[1].gpu_milli, 460);
  EXPECT_EQ(list.pods[1].gpu_spec, (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ(gpu_spec_text(list.pods[1]), "V100M16|V100M32");
  // A CPU-only pod's gpu_spec is ignored, as the study's converter does.
  EXPECT_TRUE(list.pods[2].gpu_spec.empty());
  EXPECT_EQ(list.pods[2].memory.mib(), 30517);

  TempFile multi("multigpu.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1,2,8,1000\n");
  const PodList m = load_openb_pods(multi.path());
  ASSERT_EQ(m.pods.size(), 1u);
  EXPECT_EQ(m.pods[0].num_gpus, 8);
}

TEST(OpenbPods, UnrepresentableRowsAreSkippedAndCounted) {
  TempFile f("skips.csv",
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
      "ok,1000,1,1,500\n"
      "\n"
      "zero_share,1000,1,1,0\n"
      "share_no_gpu,1000,1,0,300\n"
      "multi_share,1000,1,2,500\n"
      "zero_share2,1000,1,2,0\n");
  const PodList list = load_openb_pods(f.path());
  EXPECT_EQ(list.pods.size(), 1u);
  EXPECT_EQ(list.report.data_rows, 6u);
  EXPECT_EQ(list.report.loaded, 1u);
  EXPECT_EQ(list.report.skipped_total(), 5u);
  ASSERT_EQ(list.report.skipped.size(), 4u);
  EXPECT_EQ(list.report.skipped[0].reason, "blank line");
  EXPECT_EQ(list.report.skipped[1].reason, "num_gpu > 0 with gpu_milli 0");
  EXPECT_EQ(list.report.skipped[1].rows, 2u);
  EXPECT_EQ(list.report.skipped[2].reason, "gpu_milli > 0 with num_gpu 0");
  EXPECT_EQ(list.report.skipped[3].reason, "num_gpu > 1 with gpu_milli < 1000");
}

TEST(OpenbPods, BadRowsNameFileLineAndField) {
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n";
  TempFile too_big("big_pods.csv", header + "p,1,1,1,1200\n");
  std::string msg = input_error_of([&] { load_openb_pods(too_big.path()); });
  EXPECT_EQ(msg, too_big.path() + ":2: field 'gpu_milli': value 1200 is outside [0, 1000]");

  TempFile negative("negative_pods.csv", header + "p,-5,1,1,100\n");
  msg = input_error_of([&] { load_openb_pods(negative.path()); });
  EXPECT_THAT(msg, HasSubstr("pods.csv:2: field 'cpu_milli'"));

  TempFile short_row("short_pods.csv", header + "p,1,1,1\n");
  msg = input_error_of([&] { load_openb_pods(short_row.path()); });
  EXPECT_THAT(msg, HasSubstr("pods.csv:2"));
  EXPECT_THAT(msg, HasSubstr("expected 5 comma-separated fields"));

  TempFile float_mem("float_pods.csv", header + "p,1,1.5,1,100\n");
  msg = input_error_of([&] { load_openb_pods(float_mem.path()); });
  EXPECT_THAT(msg, HasSubstr("field 'memory_mib': expected an integer, got '1.5'"));

  TempFile no_name("unnamed_pods.csv", header + ",1,1,1,100\n");
  msg = input_error_of([&] { load_openb_pods(no_name.path()); });
  EXPECT_THAT(msg, HasSubstr("field 'name'"));

  TempFile empty("empty.csv", "");
  msg = input_error_of([&] { load_openb_pods(empty.path()); });
  EXPECT_THAT(msg, HasSubstr("empty.csv:1"));
}

// Pack reads no times (traces/formats/openb_pod_list.h): a list is not rejected for cells it ignores.
TEST(OpenbPods, TimeCellsAreNotRead) {
  TempFile f("pods.csv",
             "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
             "deletion_time,scheduled_time\n"
             "p0,1000,1024,1,500,,LS,Running,yesterday,-1,\n");
  const PodList list = load_openb_pods(f.path());
  ASSERT_EQ(list.pods.size(), 1u);
  EXPECT_EQ(list.pods[0].gpu_milli, 500);
  TempFile wide("wide_pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,17,1000\n");
  EXPECT_THAT(input_error_of([&] { load_openb_pods(wide.path()); }),
              HasSubstr("wide_pods.csv:2: field 'num_gpu': value 17 out of range [0, 16]"));
}

// `gpumux run` and `gpumux pack` read a node list with one reader: the same nodes, and the
// same errors (traces/formats/openb_node_list.h).
TEST(OpenbNodes, OneReaderForRunAndPack) {
  TempFile f("shared.csv",
             "sn,cpu_milli,memory_mib,gpu,model\n"
             "# a comment line\n"
             " n0 ,64000,262144,2, P100\n"
             "\"n1\",96000,786432,0,\n");
  const NodeList list = load_openb_nodes(f.path());
  ASSERT_EQ(list.nodes.size(), 2u);
  EXPECT_EQ(list.nodes[0].name, "n0");
  EXPECT_EQ(list.nodes[0].gpu_model, "P100");
  EXPECT_EQ(list.nodes[1].name, "n1");  // the shared reader's quoting
  EXPECT_EQ(list.report.data_rows, 3u);
  EXPECT_EQ(list.report.skipped_total(), 1u);

  CsvReader reader(f.path());
  std::vector<std::string> header;
  ASSERT_TRUE(reader.next(header));
  ASSERT_TRUE(is_openb_node_header(header));
  OpenbNodeReader shared(reader, header);
  OpenbNode n;
  ASSERT_TRUE(shared.next(n));
  EXPECT_EQ(n.name, list.nodes[0].name);
  EXPECT_EQ(n.cpu_milli, list.nodes[0].cpu_milli);
  EXPECT_EQ(n.memory_mib, list.nodes[0].memory.mib());
  EXPECT_EQ(n.gpus, list.nodes[0].num_gpus);
  EXPECT_EQ(n.model, list.nodes[0].gpu_model);

  // Pack holds at most kMaxGpusPerNode GPUs a node; run takes up to kMaxOpenbNodeGpus.
  TempFile wide("wide.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,32,T4\n");
  EXPECT_THAT(input_error_of([&] { load_openb_nodes(wide.path()); }),
              HasSubstr("wide.csv:2: field 'gpu': value 32 out of range [0, 16]"));
  TempFile too_wide("too_wide.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,65,T4\n");
  EXPECT_THAT(input_error_of([&] { load_openb_nodes(too_wide.path()); }),
              HasSubstr("too_wide.csv:2: field 'gpu': value 65 is outside [0, 64]"));
}

}  // namespace
}  // namespace gpumux::packing
