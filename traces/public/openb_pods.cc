// Alibaba GPU 2023 openb pod lists (README.md "openb-pods"). The lists are ordered by
// creation_time only sometimes (default: yes; gpushare*/cpu*: no), so the whole list is sorted in
// memory: ~8-10k pods.
#include "sim/input_error.h"
#include "traces/csv_reader.h"
#include "traces/public/csv_public_source.h"
#include "traces/public/loaders.h"

namespace gpumux::public_traces {

namespace {

class OpenbPods final : public CsvPublicSource {
 public:
  OpenbPods(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed)
      : CsvPublicSource(
            path, defaults, seed, kWholeFile, "creation_time",
            {"name", "num_gpu", "gpu_milli", "creation_time", "deletion_time", "scheduled_time"},
            " (the multigpu* lists carry no times and cannot be replayed)"),
        name_(column("name")),
        num_gpu_(column("num_gpu")),
        gpu_milli_(column("gpu_milli")),
        creation_(column("creation_time")),
        deletion_(column("deletion_time")),
        scheduled_(column("scheduled_time")) {}

 private:
  void row(const std::vector<std::string>& c, const std::string& where) override {
    JobSpec job;
    PresentFields present{};
    set_job_field(job, JobField::kId, c[name_], where);
    mark(present, JobField::kId);
    const std::int64_t num_gpu = parse_int_cell(c[num_gpu_], where, "num_gpu", 0, 1'000'000);
    const std::int64_t milli = parse_int_cell(c[gpu_milli_], where, "gpu_milli", 0, 1000);
    const double creation = parse_seconds_cell(c[creation_], where, "creation_time");
    const bool scheduled = !c[scheduled_].empty();
    const bool deleted = !c[deletion_].empty();
    const double start = scheduled ? parse_seconds_cell(c[scheduled_], where, "scheduled_time") : 0;
    const double end = deleted ? parse_seconds_cell(c[deletion_], where, "deletion_time") : 0;
    if (num_gpu == 0) return skip("cpu_only");
    if (num_gpu == 1 && milli == 0) {
      throw InputError(where, "gpu_milli", "is 0 for a pod with num_gpu 1 (expected 1-1000)");
    }
    if (!scheduled) return skip("never_scheduled");
    if (!deleted) return skip("no_deletion_time");
    if (end < start) return skip("end_before_start");

    // gpu_milli is the share of ONE GPU when num_gpu == 1; multi-GPU pods take whole GPUs.
    const GpuRequest request =
        num_gpu == 1 ? gpu_request(static_cast<double>(milli) / 1000.0, 1, where, "gpu_milli")
                     : gpu_request(1.0, num_gpu, where, "num_gpu");
    set_gpus(job, present, request);
    job.submit = Time::from_seconds(creation);
    mark(present, JobField::kSubmit);
    job.runtime = Time::from_seconds(end) - Time::from_seconds(start);
    mark(present, JobField::kRuntime);
    add(std::move(job), present, file(), line());
  }

  int name_, num_gpu_, gpu_milli_, creation_, deletion_, scheduled_;
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_openb_pods(const std::string& path,
                                                   const TraceDefaults& defaults,
                                                   std::uint64_t seed) {
  return std::make_unique<OpenbPods>(path, defaults, seed);
}

}  // namespace gpumux::public_traces
