// The job CSV read by the PAI 2020 repository's simulator (docs/performance.md "pai-sim"). That simulator
// sorts its job list by submit_time in memory, so the file need not be sorted: it is sorted here
// in memory too (at most kMaxBufferedJobs jobs).
#include <cmath>
#include <optional>

#include "sim/base/input_error.h"
#include "sim/state/pool.h"
#include "traces/io/csv_reader.h"
#include "traces/formats/public/csv_public_source.h"
#include "traces/formats/public/loaders.h"

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
        gpu_(column("num_gpu")),
        cpu_(column("num_cpu")) {}

 private:
  // Cells are read in place; "file:line" is built only for an error (where()). Errors come
  // in the order the fields are read, the fast paths only skipping work for cells that parse.
  void row(std::span<const std::string_view> c) override {
    JobFields fields(new_job());  // filled in the reorder buffer, not moved there
    if (c[id_].empty()) fields.id(c[id_], where());  // throws
    fields.id(c[id_]);
    const double submit = number(c[submit_], "submit_time", 0.0, 1e12);
    const double duration = number(c[duration_], "duration", 0.0, 1e12);
    // The simulator reads an empty num_gpu or num_cpu as 0 and an empty num_inst as 1.
    // Like the simulator, amounts are whole hundredths (it allocates percent): round(100 x).
    auto hundredths = [](double x) {
      return static_cast<double>(round_half_even(100.0 * x)) / 100;
    };
    const double gpus = c[gpu_].empty() ? 0.0 : hundredths(number(c[gpu_], "num_gpu", 0, 1e6));
    const double cpus =
        cpu_ < 0 || c[cpu_].empty() ? 0.0 : hundredths(number(c[cpu_], "num_cpu", 0, 1e6));
    double instances = 1;
    if (inst_ >= 0 && !c[inst_].empty()) {
      instances = number(c[inst_], "num_inst", 1, 1e6);
      if (instances != std::round(instances)) {
        throw InputError(where(), "num_inst",
                         "expected a whole number of instances, got '" + std::string(c[inst_]) +
                             "'");
      }
    }
    // num_gpu and num_cpu are per instance: the simulator (scheduler.py) allocates num_gpu and
    // num_cpu to each of the num_inst instances, all or none. A CPU-only job (num_gpu 0) is a
    // job like the others: it holds its CPUs, queues and runs (on a pooled cluster).
    const auto n = static_cast<std::int64_t>(instances);
    if (gpus == 0) {
      fields.no_gpus();
    } else {
      const std::optional<GpuRequest> request = gpu_request_within_limit(gpus, n);
      fields.gpus(request ? *request : gpu_request(gpus, n, where(), "num_gpu"));
    }
    fields.cpus(cpus * instances);
    fields.submit(Time::from_seconds(submit));
    fields.runtime(Time::from_seconds(duration));
    if (user_ >= 0) fields.tenant(c[user_]);
    add_new(fields.present(), file(), line());
  }

  int id_, user_, inst_, submit_, duration_, gpu_, cpu_;
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_pai_sim(const std::string& path,
                                                const TraceDefaults& defaults, std::uint64_t seed) {
  return std::make_unique<PaiSim>(path, defaults, seed);
}

}  // namespace gpumux::public_traces
