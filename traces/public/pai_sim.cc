// The job CSV read by the PAI 2020 repository's simulator (README.md "pai-sim"). That simulator
// sorts its job list by submit_time in memory, so the file need not be sorted: it is sorted here
// in memory too (at most kMaxBufferedJobs jobs).
#include <cmath>

#include "sim/input_error.h"
#include "traces/csv_reader.h"
#include "traces/public/csv_public_source.h"
#include "traces/public/loaders.h"

namespace gpumux::public_traces {

namespace {

class PaiSim final : public CsvPublicSource {
 public:
  PaiSim(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed)
      : CsvPublicSource(path, defaults, seed, kWholeFile, "submit_time",
                        {"job_id", "submit_time", "duration", "num_gpu"}),
        id_(column("job_id")),
        user_(column("user")),
        inst_(column("num_inst")),
        submit_(column("submit_time")),
        duration_(column("duration")),
        gpu_(column("num_gpu")) {}

 private:
  void row(const std::vector<std::string>& c, const std::string& where) override {
    JobSpec job;
    PresentFields present{};
    set_job_field(job, JobField::kId, c[id_], where);
    mark(present, JobField::kId);
    const double submit = parse_seconds_cell(c[submit_], where, "submit_time");
    const double duration = parse_seconds_cell(c[duration_], where, "duration");
    // The simulator reads an empty num_gpu as 0 and an empty num_inst as 1.
    const double gpus =
        c[gpu_].empty() ? 0.0 : parse_number_cell(c[gpu_], where, "num_gpu", 0, 1e6);
    double instances = 1;
    if (inst_ >= 0 && !c[inst_].empty()) {
      instances = parse_number_cell(c[inst_], where, "num_inst", 1, 1e6);
      if (instances != std::round(instances)) {
        throw InputError(where, "num_inst",
                         "expected a whole number of instances, got '" + c[inst_] + "'");
      }
    }
    if (gpus == 0) return skip("cpu_only");

    // num_gpu is the job's total (the simulator allocates it as one amount); it is spread evenly
    // over the num_inst instances, each a member of the gang.
    const auto n = static_cast<std::int64_t>(instances);
    set_gpus(job, present, gpu_request(gpus / instances, n, where, "num_gpu"));
    job.submit = Time::from_seconds(submit);
    mark(present, JobField::kSubmit);
    job.runtime = Time::from_seconds(duration);
    mark(present, JobField::kRuntime);
    if (user_ >= 0 && !c[user_].empty()) {
      job.tenant = c[user_];
      mark(present, JobField::kTenant);
    }
    add(std::move(job), present, file(), line());
  }

  int id_, user_, inst_, submit_, duration_, gpu_;
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_pai_sim(const std::string& path,
                                                const TraceDefaults& defaults, std::uint64_t seed) {
  return std::make_unique<PaiSim>(path, defaults, seed);
}

}  // namespace gpumux::public_traces
