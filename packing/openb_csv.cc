#include "packing/openb_csv.h"

#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"
#include "traces/formats/openb_node_list.h"
#include "traces/formats/openb_pod_list.h"

namespace gpumux::packing {
namespace {

void count_skip(LoadReport& report, const std::string& reason, std::size_t rows = 1) {
  for (auto& s : report.skipped) {
    if (s.reason == reason) {
      s.rows += rows;
      return;
    }
  }
  report.skipped.push_back({reason, rows});
}

// The openb lists allow up to kMaxOpenbNodeGpus GPUs a node or pod; pack's nodes hold fewer.
void check_pack_gpus(int gpus, const std::string& where, const char* field) {
  if (gpus > kMaxGpusPerNode) {
    throw InputError(where, field,
                     "value " + std::to_string(gpus) + " out of range [0, " +
                         std::to_string(kMaxGpusPerNode) + "] (pack's nodes hold at most " +
                         std::to_string(kMaxGpusPerNode) + " GPUs)");
  }
}

// Reads the header line (an empty file has none).
std::vector<std::string> read_header(CsvReader& reader) {
  std::vector<std::string> header;
  if (!reader.next(header)) {
    throw InputError(reader.path() + ":1", "", "empty file, expected a header");
  }
  return header;
}

// Counts, as "blank line" skips, the lines the reader skipped since the last call: the report
// then lists its reasons in the order the rows came.
class BlankLines {
 public:
  explicit BlankLines(const CsvReader& reader) : reader_(reader), seen_(reader.skipped_lines()) {}
  void count(LoadReport& report) {
    const auto skipped = static_cast<std::size_t>(reader_.skipped_lines() - seen_);
    seen_ = reader_.skipped_lines();
    if (skipped == 0) return;
    report.data_rows += skipped;
    count_skip(report, "blank line", skipped);
  }

 private:
  const CsvReader& reader_;
  std::uint64_t seen_;
};

}  // namespace

std::size_t LoadReport::skipped_total() const {
  std::size_t n = 0;
  for (const auto& s : skipped) n += s.rows;
  return n;
}

NodeList load_openb_nodes(const std::string& path) {
  CsvReader csv(path);
  OpenbNodeReader nodes(csv, read_header(csv));
  BlankLines blank(csv);
  NodeList out;
  OpenbNode row;
  while (nodes.next(row)) {
    blank.count(out.report);
    ++out.report.data_rows;
    check_pack_gpus(row.gpus, csv.where(), "gpu");
    NodeSpec n;
    n.name = std::move(row.name);
    n.cpu_milli = row.cpu_milli;
    n.memory = MemoryMiB(row.memory_mib);
    n.num_gpus = row.gpus;
    n.gpu_model = std::move(row.model);
    out.nodes.push_back(std::move(n));
    ++out.report.loaded;
  }
  blank.count(out.report);
  return out;
}

PodList load_openb_pods(const std::string& path) {
  CsvReader csv(path);
  const std::vector<std::string> header = read_header(csv);
  const OpenbPodRow pod_row(header, csv.where(),
                            {.cpu_milli_required = true, .memory_mib = true, .gpu_spec = true});
  BlankLines blank(csv);
  PodList out;
  std::vector<std::string> cells;
  OpenbPod pod;
  while (csv.next(cells)) {
    blank.count(out.report);
    ++out.report.data_rows;
    pod_row.parse(cells, csv.where(), pod);
    check_pack_gpus(pod.num_gpu, csv.where(), "num_gpu");
    if (pod.num_gpu > 0 && pod.gpu_milli == 0) {
      count_skip(out.report, "num_gpu > 0 with gpu_milli 0");
      continue;
    }
    if (pod.num_gpu == 0 && pod.gpu_milli > 0) {
      count_skip(out.report, "gpu_milli > 0 with num_gpu 0");
      continue;
    }
    if (pod.num_gpu > 1 && pod.gpu_milli < kGpuMilli) {
      count_skip(out.report, "num_gpu > 1 with gpu_milli < 1000");
      continue;
    }
    PodSpec p;
    p.name = std::move(pod.name);
    p.cpu_milli = *pod.cpu_milli;
    p.memory = MemoryMiB(pod.memory_mib);
    p.num_gpus = pod.num_gpu;
    p.gpu_milli = pod.gpu_milli;
    // Kept only for GPU pods, as the FGD study's converter does.
    if (p.num_gpus > 0) p.gpu_spec = std::move(pod.gpu_spec);
    out.pods.push_back(std::move(p));
    ++out.report.loaded;
  }
  blank.count(out.report);
  return out;
}

}  // namespace gpumux::packing
