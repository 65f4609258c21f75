#include "models/mps/mps_model.h"

#include <algorithm>
#include <cmath>

#include "models/calibration_file.h"
#include "models/timeslice/timeslice_physics.h"  // kH200DeviceName: the device with measured parameters

namespace gpumux {

namespace {

constexpr std::size_t kScratchJobs = 64;
// The rate memo: entries (about 2.7 MB) and the residents a key holds (MPS GPUs often hold more
// than 8 clients, and those computations cost the most: O(n^2) per iteration). A key's
// header is whether the device takes the H200 parameters; per resident: the bits of sm_util and
// sm_share, the kernel length (us), whether its lengths are fixed.
constexpr std::size_t kMemoEntries = 4096;
constexpr std::size_t kMemoResidents = 16;

std::string source_of(const JsonObject& p, std::string_view key, std::string fallback) {
  return p.has(key) ? "scenario" : std::move(fallback);
}

}  // namespace

MpsModel::MpsModel(JsonObject& p) : memo_(kMemoEntries, 1, 4, kMemoResidents) {
  // Calibration first (a params.json from `gpumux colocation fit`, as for timeslice): its
  // `interference`; an explicit key overrides it.
  std::string interference_source = "default (pure MPS: SMs are the only shared resource)";
  std::string launch_source = "default (assumption: kernels back to back)";
  if (p.has("calibration")) {
    const Calibration c = read_calibration(p.required_string("calibration"), "mps");
    params_.interference = c.interference;
    interference_source = "calibration " + c.file;
    if (c.launch_gap_us) {
      params_.launch_gap_us = *c.launch_gap_us;
      launch_source = interference_source;
    }
  } else {
    p.allow("calibration");
  }
  if (p.has("launch_gap_us")) {
    params_.launch_gap_us = p.required_number("launch_gap_us", 0.0, 1e6);
    launch_source = "scenario";
  } else {
    p.allow("launch_gap_us");
  }
  const std::string allocation = p.optional_string("sm_allocation", "blocks");
  if (allocation != "blocks" && allocation != "fluid") {
    throw InputError(p.where("sm_allocation"), "sm_allocation",
                     "expected 'blocks' or 'fluid', got '" + allocation + "'");
  }
  params_.allocation =
      allocation == "blocks" ? MpsSmAllocation::kBlocks : MpsSmAllocation::kFluid;
  if (p.has("interference")) {
    params_.interference = p.required_number("interference", 0.0, 100.0);
    interference_source = "scenario";
  } else {
    p.allow("interference");
  }

  const std::string admission = p.optional_string("admission", "peak");
  if (admission == "peak") {
    admission_ = MpsAdmission::kPeak;
  } else if (admission == "average") {
    admission_ = MpsAdmission::kAverage;
  } else if (admission == "replicas") {
    admission_ = MpsAdmission::kReplicas;
  } else {
    throw InputError(p.where("admission"), "admission",
                     "expected 'peak', 'average' or 'replicas', got '" + admission + "'");
  }
  memory_admission_fraction_ = p.optional_number("memory_admission_fraction", 0.6, 0.01, 1.0);
  memory_headroom_ = p.optional_number("memory_headroom", 1.0, 0.01, 1.0);
  replicas_ = static_cast<std::size_t>(p.optional_int("replicas", 4, 1, 1024));

  // The device plugin splits compute equally between replicas (docs/gpu-facts.md "MPS").
  std::string atp_source = "default (no cap)";
  double atp = 100.0;
  if (admission_ == MpsAdmission::kReplicas) {
    atp = 100.0 / static_cast<double>(replicas_);
    atp_source = "default (Kubernetes device plugin: 100 / replicas, GPU-FACTS)";
  }
  if (p.has("active_thread_percentage")) {
    atp = p.required_number("active_thread_percentage", 1.0, 100.0);
    atp_source = "scenario";
  } else {
    p.allow("active_thread_percentage");
  }
  active_thread_fraction_ = atp / 100.0;
  one_user_per_server_ = p.optional_bool("one_user_per_server", false);

  const std::string oom = p.optional_string("oom", "allocator");
  try {
    oom_ = parse_oom_policy(oom);
  } catch (const std::invalid_argument&) {
    throw InputError(p.where("oom"), "oom",
                     "expected 'all', 'allocator' or 'offender', got '" + oom + "'");
  }
  recovery_ = Time::from_seconds(
      p.optional_number("fault_recovery_s", kDefaultMpsFaultRecoveryS, 0.0, 1e6));
  const double teardown_s =
      p.optional_number("fault_teardown_s", kDefaultMpsFaultTeardownS, 0.0, 1e6);
  const double restart_s =
      p.optional_number("server_restart_s", kDefaultMpsServerRestartS, 0.0, 1e6);
  fault_recovery_ = Time::from_seconds(teardown_s) + Time::from_seconds(restart_s);
  p.finish();
  // On an H200 a launch gap still at its default takes the measured one (docs/gpu-facts.md).
  h200_params_ = params_;
  const bool launch_default = launch_source.rfind("default", 0) == 0;
  if (launch_default) h200_params_.launch_gap_us = kMpsH200LaunchGapUs;
  const bool interference_default = interference_source.rfind("default", 0) == 0;
  if (interference_default && params_.allocation == MpsSmAllocation::kBlocks) {
    h200_params_.interference = kMpsH200Interference;
  }

  declared_ = {
      ModelParameter::on_off(
          "sm_allocation_blocks", params_.allocation == MpsSmAllocation::kBlocks,
          source_of(p, "sm_allocation", "default (measured on H200: blocks hold SMs)"),
          "true: thread blocks hold their SMs until they end, kernels that do not fit take "
          "turns; false: SMs shared in proportion to demand (fluid)"),
      {"launch_gap_us", params_.launch_gap_us, "us", launch_source,
       "shortest CPU gap between two kernels of a client (launch + synchronise)"},
      {"active_thread_percentage", atp, "% of SMs per client", atp_source,
       "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: caps each client's SMs, reserves nothing"},
      {"interference", params_.interference, "per unit of co-runners' granted SM share",
       interference_source,
       "kernel slowdown 1 + x * SM share held by other running kernels (bandwidth/cache)"},
  };
  switch (admission_) {
    case MpsAdmission::kPeak:
      declared_.push_back({"admission_peak_memory", 1.0, "fraction of summed peak memory",
                           source_of(p, "admission", "default"),
                           "admission: summed peak memory must fit (safe)"});
      break;
    case MpsAdmission::kAverage:
      declared_.push_back({"memory_headroom", memory_headroom_, "fraction of device memory",
                           source_of(p, "memory_headroom", "default"),
                           "share of the device memory optimistic admission may fill with "
                           "average use"});
      declared_.push_back(
          {"memory_admission_fraction", memory_admission_fraction_,
           "fraction of summed peak memory", source_of(p, "memory_admission_fraction", "default"),
           "admission 'average': this share of summed peak memory must fit; jobs do reach "
           "their peak, so out-of-memory cascades follow"});
      break;
    case MpsAdmission::kReplicas:
      declared_.push_back({"replicas", static_cast<double>(replicas_), "clients per GPU",
                           source_of(p, "replicas", "default"),
                           "admission 'replicas': Kubernetes device plugin, no memory check"});
      break;
  }
  declared_.push_back({"client_limit_fallback", static_cast<double>(kDefaultMpsClientLimit),
                       "clients per GPU", "default (GPU-FACTS: Volta and later)",
                       "residents allowed when the device profile gives no mps_client_limit"});
  declared_.push_back(ModelParameter::on_off("one_user_per_server", one_user_per_server_,
                                             source_of(p, "one_user_per_server", "default"),
                                             "all residents of a GPU must share one tenant"));
  declared_.push_back(ModelParameter::chosen(
      "oom", static_cast<int>(oom_), oom_policy_name(oom_), source_of(p, "oom", "default"),
      "who dies when a GPU's jobs need more memory than it has (models/oom_policy.h)"));
  declared_.push_back(
      {"fault_recovery_s", recovery_.seconds(), "s",
       source_of(p, "fault_recovery_s", "default (assumption: no published server recovery time)"),
       std::string("out of memory kills: ") + std::string(oom_policy_name(oom_)) +
           (oom_ == OomPolicy::kAll ? "; the GPU then refuses clients this long"
                                    : " (this delay applies to 'all' only)")});
  declared_.push_back({"fault_teardown_s", teardown_s, "s",
                       source_of(p, "fault_teardown_s", "default (measured on H200, GPU-FACTS)"),
                       "fatal fault: every client of the server exits, within this time"});
  declared_.push_back({"server_restart_s", restart_s, "s",
                       source_of(p, "server_restart_s", "default (measured on H200, GPU-FACTS)"),
                       "fatal fault: new server context after the clients have exited"});

  if (interference_default && params_.allocation == MpsSmAllocation::kBlocks) {
    declared_.push_back({"interference@H200-141GB", kMpsH200Interference,
                         "per unit of co-runners' SM share", "measured on H200 (GPU-FACTS; "
                         "gpumux calibrate fit)", "kernel slowdown beside other kernels on H200 "
                         "GPUs"});
  }
  if (launch_default) {
    declared_.push_back({"launch_gap_us@H200-141GB", kMpsH200LaunchGapUs, "us",
                         "measured on H200 (GPU-FACTS; gpumux calibrate fit)",
                         "launch + synchronise gap between kernels on H200 GPUs"});
  }
  const std::size_t scratch = std::max(kScratchJobs, replicas_);
  jobs_.reserve(scratch);
  limits_.reserve(scratch);
  workspace_.resize(scratch);
}

bool MpsModel::admits(const GpuView& gpu, const JobSpec& job) const {
  const std::size_t n = gpu.residents.size();
  const int limit =
      gpu.device.mps_client_limit > 0 ? gpu.device.mps_client_limit : kDefaultMpsClientLimit;
  if (n >= static_cast<std::size_t>(limit)) return false;
  if (one_user_per_server_) {
    for (const JobSpec* r : gpu.residents) {
      if (r->tenant != job.tenant) return false;
    }
  }
  if (admission_ == MpsAdmission::kReplicas) return n < replicas_;
  // Peak memory from the specs (not what residents use right now): admission is a promise
  // about the whole of their lives.
  MemoryMiB peak = job.memory;
  for (const JobSpec* r : gpu.residents) peak += r->memory;
  if (admission_ == MpsAdmission::kPeak) return peak <= gpu.device.memory;
  // Optimistic: each job counts with its average use, the mean of its memory profile when it
  // has one, else memory_admission_fraction of its peak.
  double average = expected_memory_mib(job);
  for (const JobSpec* r : gpu.residents) average += expected_memory_mib(*r);
  return average <= memory_headroom_ * static_cast<double>(gpu.device.memory.mib());
}

double MpsModel::gpu_room(const GpuView& gpu) const {
  const std::size_t n = gpu.residents.size();
  const int limit =
      gpu.device.mps_client_limit > 0 ? gpu.device.mps_client_limit : kDefaultMpsClientLimit;
  if (n >= static_cast<std::size_t>(limit)) return -1.0;
  if (admission_ == MpsAdmission::kReplicas) return n < replicas_ ? 0.0 : -1.0;
  if (admission_ == MpsAdmission::kAverage) return 0.0;
  MemoryMiB peak;
  for (const JobSpec* r : gpu.residents) peak += r->memory;
  return static_cast<double>((gpu.device.memory - peak).mib());
}

double MpsModel::job_need(const JobSpec& job) const {
  return admission_ == MpsAdmission::kPeak ? static_cast<double>(job.memory.mib()) : 0.0;
}

double MpsModel::expected_memory_mib(const JobSpec& job) const {
  const double fraction =
      job.memory_profile ? job.memory_profile->mean_fraction() : memory_admission_fraction_;
  return fraction * static_cast<double>(job.memory.mib());
}

void MpsModel::compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const {
  const bool h200 = gpu.device.name == kH200DeviceName;
  const bool remembered = memo_.remembers(gpu.residents.size());
  if (remembered) {
    memo_.header(0) = h200 ? 1 : 0;
    for (std::size_t r = 0; r < gpu.residents.size(); ++r) {
      const JobSpec& j = *gpu.residents[r];
      memo_.word(r, 0) = RateMemo::bits(j.sm_util);
      memo_.word(r, 1) = RateMemo::bits(j.sm_share);
      memo_.word(r, 2) = static_cast<std::uint64_t>(j.kernel_length.us());
      memo_.word(r, 3) = j.fixed_kernel_lengths ? 1 : 0;
    }
    if (memo_.find(rates, load)) return;
  }
  jobs_.clear();
  bool all_fixed = true;
  for (const JobSpec* j : gpu.residents) {
    all_fixed = all_fixed && j->fixed_kernel_lengths;
    MpsJob m;
    m.sm_util = j->sm_util;
    m.sm_share = j->sm_share;
    m.active_thread_fraction = active_thread_fraction_;
    m.mean_kernel_us = std::max<double>(1.0, static_cast<double>(j->kernel_length.us()));
    jobs_.push_back(m);
  }
  MpsParams p = h200 ? h200_params_ : params_;
  p.bursts = all_fixed ? MpsBursts::kFixed : MpsBursts::kExponential;  // fluid form: unused
  const MpsLoad l = mps_rates(jobs_, p, rates, workspace_);
  load.useful_busy = l.busy_fraction;
  load.overhead = 0.0;
  if (remembered) memo_.store(rates, load);
}

bool MpsModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                            Time& recovery) const {
  if (oom_ != OomPolicy::kOffender) return apply_oom_policy(oom_, gpu, recovery_, killed, recovery);
  // Pinned limits: the job's own (memory_limit_mib), else what admission counted it for.
  limits_.clear();
  for (const JobSpec* j : gpu.residents) {
    MemoryMiB limit = j->memory_limit;
    if (limit == MemoryMiB(0)) {
      switch (admission_) {
        case MpsAdmission::kPeak:
          limit = j->memory;
          break;
        case MpsAdmission::kAverage:
          limit = MemoryMiB(static_cast<std::int64_t>(std::ceil(expected_memory_mib(*j))));
          break;
        case MpsAdmission::kReplicas:
          limit = MemoryMiB(gpu.device.memory.mib() / static_cast<std::int64_t>(replicas_));
          break;
      }
    }
    limits_.push_back(limit);
  }
  return apply_oom_policy(oom_, gpu, recovery_, killed, recovery, limits_);
}

void MpsModel::fatal_fault(const GpuView& /*gpu*/, std::size_t /*faulting*/,
                           std::span<std::uint8_t> killed, Time& recovery) const {
  // MPS fault containment: the fault is reported to every client of the server, all exit.
  std::fill(killed.begin(), killed.end(), std::uint8_t{1});
  recovery = fault_recovery_;
}

}  // namespace gpumux
