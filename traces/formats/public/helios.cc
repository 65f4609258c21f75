// SenseTime Helios cluster_log.csv (README.md "helios"). Rows are in Slurm job-id order, which
// is submission order, so the file streams through a reorder window of kWindow jobs; a row
// earlier than a job already returned is an InputError.
#include "traces/io/csv_reader.h"
#include "traces/formats/public/csv_public_source.h"
#include "traces/formats/public/loaders.h"

namespace gpumux::public_traces {

namespace {

constexpr std::size_t kWindow = 1 << 16;

bool missing(std::string_view cell) { return cell.empty() || cell == "None" || cell == "NaT"; }

class Helios final : public CsvPublicSource {
 public:
  Helios(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed)
      : CsvPublicSource(path, defaults, seed, kWindow, "submit_time",
                        {"job_id", "vc", "gpu_num", "submit_time", "start_time", "end_time"}),
        id_(column("job_id")),
        vc_(column("vc")),
        gpus_(column("gpu_num")),
        submit_(column("submit_time")),
        start_(column("start_time")),
        end_(column("end_time")),
        cpus_(column("cpu_num")) {}

 private:
  void row(std::span<const std::string_view> c) override {
    const std::string& where = this->where();
    JobSpec job;
    JobFields fields(job);
    fields.id(c[id_], where);
    const std::int64_t gpus = parse_int_cell(c[gpus_], where, "gpu_num", 0, 1'000'000);
    // cpu_num: the job's CPU cores (read when the column is there; empty: none given).
    const bool has_cpus = cpus_ >= 0 && !c[cpus_].empty();
    const std::int64_t cpus =
        has_cpus ? parse_int_cell(c[cpus_], where, "cpu_num", 0, 1'000'000'000) : 0;
    const std::int64_t submit = parse_datetime_cell(c[submit_], where, "submit_time");
    const bool started = !missing(c[start_]);
    const bool ended = !missing(c[end_]);
    const std::int64_t start = started ? parse_datetime_cell(c[start_], where, "start_time") : 0;
    const std::int64_t end = ended ? parse_datetime_cell(c[end_], where, "end_time") : 0;
    // The clock starts at midnight of the first row's day, CPU rows included, so that
    // submit_s mod 86400 is the time of day.
    if (!has_time_origin())
      set_time_origin(Time::from_seconds(static_cast<double>(start_of_day(submit))));
    // A row without GPUs but with cores is a CPU-only job (gpus 0).
    if (gpus == 0 && cpus == 0) return skip("no_gpu_or_cpu");
    if (!started) return skip("never_started");
    if (!ended) return skip("no_end_time");
    if (end < start) return skip("end_before_start");

    if (gpus == 0) {
      fields.no_gpus();
    } else {
      fields.gpus(gpu_request(1.0, gpus, where, "gpu_num"));
    }
    if (has_cpus) fields.cpus(static_cast<double>(cpus));
    fields.submit(Time::from_seconds(static_cast<double>(submit)));
    fields.runtime(Time::from_seconds(static_cast<double>(end - start)));
    fields.tenant(c[vc_]);
    add(std::move(job), fields.present(), file(), line());
  }

  int id_, vc_, gpus_, submit_, start_, end_, cpus_;
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_helios(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed) {
  return std::make_unique<Helios>(path, defaults, seed);
}

}  // namespace gpumux::public_traces
