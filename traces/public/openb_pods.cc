// Alibaba GPU 2023 openb pod lists (README.md "openb-pods"). The lists are ordered by
// creation_time only sometimes (default: yes; gpushare*/cpu*: no), so the whole list is sorted in
// memory: ~8-10k pods.
#include <algorithm>
#include <vector>

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
        scheduled_(column("scheduled_time")),
        cpu_milli_(column("cpu_milli")) {}

 private:
  void row(const std::vector<std::string>& c, const std::string& where) override {
    JobSpec job;
    PresentFields present{};
    set_job_field(job, JobField::kId, c[name_], where);
    mark(present, JobField::kId);
    const std::int64_t num_gpu = parse_int_cell(c[num_gpu_], where, "num_gpu", 0, 1'000'000);
    const std::int64_t milli = parse_int_cell(c[gpu_milli_], where, "gpu_milli", 0, 1000);
    // cpu_milli: thousandths of a core (read when the column is there; empty: none given).
    const bool has_cpus = cpu_milli_ >= 0 && !c[cpu_milli_].empty();
    const std::int64_t cpu_milli =
        has_cpus ? parse_int_cell(c[cpu_milli_], where, "cpu_milli", 0, 1'000'000'000) : 0;
    const double creation = parse_seconds_cell(c[creation_], where, "creation_time");
    const bool scheduled = !c[scheduled_].empty();
    const bool deleted = !c[deletion_].empty();
    const double start = scheduled ? parse_seconds_cell(c[scheduled_], where, "scheduled_time") : 0;
    const double end = deleted ? parse_seconds_cell(c[deletion_], where, "deletion_time") : 0;
    // A pod without GPUs but with cores is a CPU-only job (gpus 0).
    if (num_gpu == 0 && cpu_milli == 0) return skip("no_gpu_or_cpu");
    if (num_gpu == 1 && milli == 0) {
      throw InputError(where, "gpu_milli", "is 0 for a pod with num_gpu 1 (expected 1-1000)");
    }
    if (!scheduled) return skip("never_scheduled");
    if (!deleted) return skip("no_deletion_time");
    if (end < start) return skip("end_before_start");

    if (has_cpus) {
      job.cpus = static_cast<double>(cpu_milli) / 1000.0;
      mark(present, JobField::kCpus);
    }
    // gpu_milli is the share of ONE GPU when num_gpu == 1; multi-GPU pods take whole GPUs.
    GpuRequest request;
    if (num_gpu == 0) {
      job.gpus = 0;
      mark(present, JobField::kGpus);
    } else {
      request = num_gpu == 1
                    ? gpu_request(static_cast<double>(milli) / 1000.0, 1, where, "gpu_milli")
                    : gpu_request(1.0, num_gpu, where, "num_gpu");
      set_gpus(job, present, request);
    }
    if (request.fractional) {
      // A share pod is taken to keep the GPU busy for the share it asked for: its recorded
      // lifetime is then its runtime at that share (under `fractional`, min(1, f / u) = 1).
      job.sm_util = request.sm_share;
      mark(present, JobField::kSmUtil);
    }
    job.submit = Time::from_seconds(creation);
    mark(present, JobField::kSubmit);
    job.runtime = Time::from_seconds(end) - Time::from_seconds(start);
    mark(present, JobField::kRuntime);
    creations_.push_back(creation);
    lifetimes_.push_back(end - start);
    add(std::move(job), present, file(), line());
  }

  // The snapshot check (README "openb-pods"): a list of the pods alive at one moment has most
  // creations near its end, and lifetimes as long as the whole span.
  void at_end() override {
    if (creations_.empty()) return;
    const auto [lo, hi] = std::minmax_element(creations_.begin(), creations_.end());
    const double first = *lo, last = *hi, span = last - first;
    std::size_t late = 0, long_lived = 0;
    for (std::size_t i = 0; i < creations_.size(); ++i) {
      late += creations_[i] >= last - 0.1 * span;
      long_lived += lifetimes_[i] > span;
    }
    const double n = static_cast<double>(creations_.size());
    const double late_share = late / n, long_share = long_lived / n;
    const bool snapshot = span > 0 && (late_share >= kLateShareLimit || long_share >= kLongShareLimit);
    notes_ = {{"span_s", span},
              {"arrivals_in_last_10pct_of_span", late_share},
              {"lifetimes_longer_than_span", long_share},
              {"looks_like_snapshot", snapshot}};
    if (snapshot) {
      notes_["advice"] =
          "this pod list looks like a snapshot of pods alive at one moment, not arrivals over "
          "time; replay it in time with trace.inflation {\"load\": ...} (README 'Trace "
          "format')";
    }
  }
  nlohmann::json list_notes() const override { return notes_; }

  // Uniform arrivals put 10% of them in the last tenth of the span; a list with three times
  // that, or a tenth of its pods outliving the span, is reported as a snapshot.
  static constexpr double kLateShareLimit = 0.3;
  static constexpr double kLongShareLimit = 0.1;

  int name_, num_gpu_, gpu_milli_, creation_, deletion_, scheduled_, cpu_milli_;
  std::vector<double> creations_, lifetimes_;
  nlohmann::json notes_;
};

}  // namespace

std::unique_ptr<PublicTraceSource> open_openb_pods(const std::string& path,
                                                   const TraceDefaults& defaults,
                                                   std::uint64_t seed) {
  return std::make_unique<OpenbPods>(path, defaults, seed);
}

}  // namespace gpumux::public_traces
