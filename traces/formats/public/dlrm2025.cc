// Alibaba GPU 2025 disaggregated DLRM inference instances (README.md "dlrm2025"). The file is
// not sorted by creation_time, so it is sorted in memory: ~24k rows.
#include "traces/io/csv_reader.h"
#include "traces/formats/public/csv_public_source.h"
#include "traces/formats/public/loaders.h"

namespace gpumux::public_traces {

namespace {

class Dlrm2025 final : public CsvPublicSource {
 public:
  Dlrm2025(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed)
      : CsvPublicSource(path, defaults, seed, kWholeFile, "creation_time",
                        {"instance_sn", "app_name", "gpu_request", "creation_time",
                         "scheduled_time", "deletion_time"}),
        id_(column("instance_sn")),
        app_(column("app_name")),
        gpu_(column("gpu_request")),
        creation_(column("creation_time")),
        scheduled_(column("scheduled_time")),
        deletion_(column("deletion_time")),
        cpu_(column("cpu_request")) {}

 private:
  void row(std::span<const std::string_view> c) override {
    const std::string& where = this->where();
    JobSpec job;
    JobFields fields(job);
    fields.id(c[id_], where);
    const double gpus = parse_number_cell(c[gpu_], where, "gpu_request", 0.0, 1e6);
    // cpu_request: cores of the instance (read when the column is there; empty: none given).
    const bool has_cpus = cpu_ >= 0 && !c[cpu_].empty();
    const double cpus = has_cpus ? parse_number_cell(c[cpu_], where, "cpu_request", 0.0, 1e6) : 0;
    auto optional_time = [&](int column, const char* name, double& out) {
      if (c[column].empty()) return false;
      out = parse_seconds_cell(c[column], where, name);
      return true;
    };
    double creation = 0, scheduled = 0, deletion = 0;
    const bool has_creation = optional_time(creation_, "creation_time", creation);
    const bool has_scheduled = optional_time(scheduled_, "scheduled_time", scheduled);
    const bool has_deletion = optional_time(deletion_, "deletion_time", deletion);
    // A CN (CPU node) instance asks for no GPU: a CPU-only job (gpus 0) holding its cores.
    if (gpus == 0 && cpus == 0) return skip("no_gpu_or_cpu_request");
    if (!has_creation) return skip("created_before_trace");
    if (!has_scheduled) return skip("never_scheduled");
    if (!has_deletion) return skip("alive_at_trace_end");
    if (deletion < scheduled) return skip("end_before_start");

    if (gpus == 0) {
      fields.no_gpus();
    } else {
      fields.gpus(gpu_request(gpus, 1, where, "gpu_request"));
    }
    if (has_cpus) fields.cpus(cpus);
    fields.submit(Time::from_seconds(creation));
    fields.runtime(Time::from_seconds(deletion) - Time::from_seconds(scheduled));
    fields.kind(JobKind::kInference);
    fields.tenant(c[app_]);
    add(std::move(job), fields.present(), file(), line());
  }

  int id_, app_, gpu_, creation_, scheduled_, deletion_, cpu_;
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_dlrm2025(const std::string& path,
                                                 const TraceDefaults& defaults,
                                                 std::uint64_t seed) {
  return std::make_unique<Dlrm2025>(path, defaults, seed);
}

}  // namespace gpumux::public_traces
