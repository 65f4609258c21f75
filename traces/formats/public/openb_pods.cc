// Alibaba GPU 2023 openb pod lists (README.md "openb-pods"). The lists are ordered by
// creation_time only sometimes (default: yes; gpushare*/cpu*: no), so the whole list is sorted in
// memory: ~8-10k pods.
#include <algorithm>
#include <vector>

#include "sim/base/input_error.h"
#include "traces/formats/openb_pod_list.h"
#include "traces/formats/public/csv_public_source.h"
#include "traces/formats/public/loaders.h"

namespace gpumux::public_traces {

namespace {

class OpenbPods final : public CsvPublicSource {
 public:
  OpenbPods(const std::string& path, const TraceDefaults& defaults, std::uint64_t seed)
      : CsvPublicSource(path, defaults, seed, kWholeFile, "creation_time", {}),
        pod_row_(header(), header_where(), {.times = true},
                 " (the multigpu* lists carry no times and cannot be replayed)") {}

 private:
  void row(std::span<const std::string_view> c) override {
    const std::string& where = this->where();
    pod_row_.parse(c, where, pod_);
    const OpenbPod& pod = pod_;
    const std::int64_t num_gpu = pod.num_gpu;
    const std::int64_t milli = pod.gpu_milli;
    // cpu_milli: thousandths of a core (when the column is there; empty: none given).
    const std::int64_t cpu_milli = pod.cpu_milli.value_or(0);
    // A pod without GPUs but with cores is a CPU-only job (gpus 0).
    if (num_gpu == 0 && cpu_milli == 0) return skip("no_gpu_or_cpu");
    if (num_gpu == 1 && milli == 0) {
      throw InputError(where, "gpu_milli", "is 0 for a pod with num_gpu 1 (expected 1-1000)");
    }
    if (!pod.scheduled_s) return skip("never_scheduled");
    if (!pod.deletion_s) return skip("no_deletion_time");
    const double creation = pod.creation_s, start = *pod.scheduled_s, end = *pod.deletion_s;
    if (end < start) return skip("end_before_start");

    JobSpec job;
    JobFields fields(job);
    fields.id(pod.name);
    if (pod.cpu_milli) fields.cpus(static_cast<double>(cpu_milli) / 1000.0);
    // gpu_milli is the share of ONE GPU when num_gpu == 1; multi-GPU pods take whole GPUs.
    GpuRequest request;
    if (num_gpu == 0) {
      fields.no_gpus();
    } else {
      request = num_gpu == 1
                    ? gpu_request(static_cast<double>(milli) / 1000.0, 1, where, "gpu_milli")
                    : gpu_request(1.0, num_gpu, where, "num_gpu");
      fields.gpus(request);
    }
    // A share pod is taken to keep the GPU busy for the share it asked for: its recorded
    // lifetime is then its runtime at that share (under `fractional`, min(1, f / u) = 1).
    if (request.fractional) fields.sm_util(request.sm_share);
    fields.submit(Time::from_seconds(creation));
    fields.runtime(Time::from_seconds(end) - Time::from_seconds(start));
    creations_.push_back(creation);
    lifetimes_.push_back(end - start);
    add(std::move(job), fields.present(), file(), line());
  }

  // The snapshot check (README.md here, "openb-pods"): a list of the pods alive at one moment has most
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
          "time; replay it in time with trace.inflation {\"load\": ...} (docs/trace-formats.md)";
    }
  }
  nlohmann::json list_notes() const override { return notes_; }

  // Uniform arrivals put 10% of them in the last tenth of the span; a list with three times
  // that, or a tenth of its pods outliving the span, is reported as a snapshot.
  static constexpr double kLateShareLimit = 0.3;
  static constexpr double kLongShareLimit = 0.1;

  OpenbPodRow pod_row_;
  OpenbPod pod_;  // the row being read, its strings reused
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
