#include "models/mps/mps_model.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "models/calibration_file.h"
#include "models/colocation_speed.h"
#include "models/measured_parameter.h"
#include "sim/base/parameter_spec.h"
#include "sim/core/service.h"

namespace gpumux {

namespace {

constexpr std::size_t kScratchJobs = 64;
// The rate memo: entries (about 3.2 MB) and the residents a key holds (MPS GPUs often hold more
// than 8 clients, and those computations cost the most: O(n^2) per iteration). A key's
// header is which measured device's parameters apply (0: none); per resident: the bits of sm_util
// and sm_share, the kernel length (us), whether its lengths are fixed, its thread share.
constexpr std::size_t kMemoEntries = 4096;
constexpr std::size_t kMemoResidents = 16;

// The parameters, declared once (sim/base/parameter_spec.h).
constexpr NumberSpec kLaunchGapSpec{
    "launch_gap_us",
    "us",
    0.0,
    0.0,
    1e6,
    "default (assumption: kernels back to back)",
    "shortest CPU gap between two kernels of a client (launch + synchronise)",
    false,
    "launch + synchronise gap between kernels"};
constexpr std::string_view kAllocationNames[] = {"blocks", "fluid"};
constexpr ChoiceSpec kAllocationSpec{
    "sm_allocation", kAllocationNames, 0, "default (measured on H200: blocks hold SMs)",
    "true: thread blocks hold their SMs until they end, kernels that do not fit take turns; "
    "false: SMs shared in proportion to demand (fluid)"};
constexpr NumberSpec kInterferenceSpec{
    "interference",
    "per unit of co-runners' granted SM share",
    0.0,
    0.0,
    100.0,
    "default (pure MPS: SMs are the only shared resource)",
    "kernel slowdown 1 + x * SM share held by other running kernels (bandwidth/cache)",
    false,
    "kernel slowdown beside other kernels",
    "per unit of co-runners' SM share"};
constexpr std::string_view kAdmissionNames[] = {"peak", "average", "replicas"};  // MpsAdmission
constexpr ChoiceSpec kAdmissionSpec{
    "admission", kAdmissionNames, 0, "default",
    "who may share a GPU: summed peak memory must fit (peak), a share of it (average), or a "
    "fixed number of clients without a memory check (replicas)"};
constexpr NumberSpec kAdmissionFractionSpec{
    "memory_admission_fraction",
    "fraction of summed peak memory",
    0.6,
    0.01,
    1.0,
    "default",
    "admission 'average': this share of summed peak memory must fit; jobs do reach their peak, "
    "so out-of-memory cascades follow"};
constexpr NumberSpec kHeadroomSpec{
    "memory_headroom",
    "fraction of device memory",
    1.0,
    0.01,
    1.0,
    "default",
    "share of the device memory optimistic admission may fill with average use"};
constexpr NumberSpec kReplicasSpec{
    "replicas",
    "clients per GPU",
    4.0,
    1.0,
    1024.0,
    "default",
    "admission 'replicas': Kubernetes device plugin, no memory check",
    true};
constexpr NumberSpec kActiveThreadSpec{
    "active_thread_percentage",
    "% of SMs per client",
    100.0,
    1.0,
    100.0,
    "default (no cap)",
    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: caps each client's SMs, reserves nothing"};
constexpr SwitchSpec kOneUserSpec{"one_user_per_server", false, "default",
                                  "all residents of a GPU must share one tenant"};
constexpr std::string_view kOomNames[] = {"all", "allocator", "offender"};  // OomPolicy order
constexpr ChoiceSpec kOomSpec{
    "oom", kOomNames, static_cast<int>(OomPolicy::kAllocator), "default",
    "who dies when a GPU's jobs need more memory than it has (models/oom_policy.h)"};
constexpr NumberSpec kRecoverySpec{
    "fault_recovery_s",
    "s",
    kDefaultMpsFaultRecoveryS,
    0.0,
    1e6,
    "default (assumption: no published server recovery time)",
    "out of memory kills under 'all': the GPU then refuses clients this long"};
constexpr NumberSpec kTeardownSpec{
    "fault_teardown_s",
    "s",
    kDefaultMpsFaultTeardownS,
    0.0,
    1e6,
    "default (measured on H200, GPU-FACTS)",
    "fatal fault: every client of the server exits, within this time"};
constexpr NumberSpec kRestartSpec{"server_restart_s",
                                  "s",
                                  kDefaultMpsServerRestartS,
                                  0.0,
                                  1e6,
                                  "default (measured on H200, GPU-FACTS)",
                                  "fatal fault: new server context after the clients have exited"};

// A fit always gives the interference (a fit without it measured none), and the launch gap
// when it measured one.
constexpr CalibrationKey kCalibrated[] = {{&kInterferenceSpec, 0.0}, {&kLaunchGapSpec}};
// Time-slicing keys a fit of both modes may write, and the pairs fit's mapping from a measured
// config to model inputs.
constexpr std::string_view kIgnored[] = {"switch_cost_us", "time_slice_us", "kernel_us",
                                         "util_exponent", "util_scale"};

}  // namespace

const CalibrationKeys& mps_calibration_keys() {
  static const CalibrationKeys keys{"mps", kCalibrated, kIgnored};
  return keys;
}

MpsModel::MpsModel(JsonObject& p) : memo_(kMemoEntries, 1, 5, kMemoResidents) {
  // Calibration first (a fitted file, as for timeslice): its `interference` and launch gap; an
  // explicit key overrides it.
  const std::optional<Calibration> c = read_calibration_param(p, mps_calibration_keys());
  const NumberSetting launch_gap = read(p, kLaunchGapSpec, c);
  const ChoiceSetting allocation = read(p, kAllocationSpec);
  const NumberSetting interference = read(p, kInterferenceSpec, c);
  MpsParams params;
  params.launch_gap_us = launch_gap.value;
  params.allocation =
      allocation.name == "blocks" ? MpsSmAllocation::kBlocks : MpsSmAllocation::kFluid;
  params.interference = interference.value;

  const ChoiceSetting admission = read(p, kAdmissionSpec);
  admission_ = static_cast<MpsAdmission>(admission.index);
  const NumberSetting admission_fraction = read(p, kAdmissionFractionSpec);
  memory_admission_fraction_ = admission_fraction.value;
  const NumberSetting headroom = read(p, kHeadroomSpec);
  memory_headroom_ = headroom.value;
  const NumberSetting replicas = read(p, kReplicasSpec);
  replicas_ = static_cast<std::size_t>(replicas.value);
  NumberSetting atp = read(p, kActiveThreadSpec);
  if (atp.is_default && admission_ == MpsAdmission::kReplicas) {
    // The device plugin splits compute equally between replicas (docs/gpu-facts.md "MPS").
    atp.value = 100.0 / static_cast<double>(replicas_);
    atp.source = "default (Kubernetes device plugin: 100 / replicas, GPU-FACTS)";
  }
  active_thread_fraction_ = atp.value / 100.0;
  const SwitchSetting one_user = read(p, kOneUserSpec);
  one_user_per_server_ = one_user.on;
  const ChoiceSetting oom = read(p, kOomSpec);
  oom_ = static_cast<OomPolicy>(oom.index);
  const NumberSetting recovery = read(p, kRecoverySpec);
  recovery_ = Time::from_seconds(recovery.value);
  const NumberSetting teardown = read(p, kTeardownSpec);
  const NumberSetting restart = read(p, kRestartSpec);
  fault_recovery_ = Time::from_seconds(teardown.value) + Time::from_seconds(restart.value);
  p.finish();

  // On a device with measurements, values still at their defaults take the measured ones
  // (docs/gpu-facts.md). The interference was measured with blocks holding SMs, so it applies
  // under that allocation only.
  params_ = DeviceOverlays<MpsParams>(params);
  const std::vector<ModelParameter> measured = apply_measurements<MpsParams>(
      params_, "mps",
      {{kInterferenceSpec, &MpsParams::interference,
        interference.is_default && params.allocation == MpsSmAllocation::kBlocks},
       {kLaunchGapSpec, &MpsParams::launch_gap_us, launch_gap.is_default}});

  // sm_allocation is echoed as the switch sm_allocation_blocks, as outputs always named it.
  declared_ = {
      ModelParameter::on_off("sm_allocation_blocks", params.allocation == MpsSmAllocation::kBlocks,
                             allocation.source, std::string(kAllocationSpec.description)),
      declare(kLaunchGapSpec, launch_gap),
      declare(kActiveThreadSpec, atp),
      declare(kInterferenceSpec, interference),
  };
  declared_.front().accepts = "sm_allocation: one of 'blocks' or 'fluid'";
  switch (admission_) {
    case MpsAdmission::kPeak:
      declared_.push_back({"admission_peak_memory", 1.0, "fraction of summed peak memory",
                           admission.source, "admission: summed peak memory must fit (safe)"});
      break;
    case MpsAdmission::kAverage:
      declared_.push_back(declare(kHeadroomSpec, headroom));
      declared_.push_back(declare(kAdmissionFractionSpec, admission_fraction));
      break;
    case MpsAdmission::kReplicas:
      declared_.push_back(declare(kReplicasSpec, replicas));
      break;
  }
  declared_.push_back({"client_limit_fallback", static_cast<double>(kDefaultMpsClientLimit),
                       "clients per GPU", "default (GPU-FACTS: Volta and later)",
                       "residents allowed when the device profile gives no mps_client_limit"});
  declared_.push_back(declare(kOneUserSpec, one_user));
  declared_.push_back(declare(kOomSpec, oom));
  declared_.push_back(
      declare(kRecoverySpec, recovery,
              std::string("out of memory kills: ") + std::string(oom_policy_name(oom_)) +
                  (oom_ == OomPolicy::kAll ? "; the GPU then refuses clients this long"
                                           : " (this delay applies to 'all' only)")));
  declared_.push_back(declare(kTeardownSpec, teardown));
  declared_.push_back(declare(kRestartSpec, restart));
  declared_.insert(declared_.end(), measured.begin(), measured.end());
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

QueueReason MpsModel::refusal(const GpuView& gpu, const JobSpec& job) const {
  const std::size_t n = gpu.residents.size();
  const int limit =
      gpu.device.mps_client_limit > 0 ? gpu.device.mps_client_limit : kDefaultMpsClientLimit;
  if (n >= static_cast<std::size_t>(limit) || admission_ == MpsAdmission::kReplicas) {
    return QueueReason::kAdmission;
  }
  if (one_user_per_server_) {
    for (const JobSpec* r : gpu.residents) {
      if (r->tenant != job.tenant) return QueueReason::kAdmission;
    }
  }
  return QueueReason::kMemory;
}

std::optional<QueueReason> MpsModel::room_refusal(double room, const JobSpec&) const {
  // gpu_room: -1 at the client limit or the replica count, else the free peak memory.
  return room < 0.0 ? QueueReason::kAdmission : QueueReason::kMemory;
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

double MpsModel::thread_fraction(const JobSpec& job) const {
  const double own = job.service ? job.service->mps_thread_fraction : 0.0;
  return own > 0.0 && own < active_thread_fraction_ ? own : active_thread_fraction_;
}

double MpsModel::expected_memory_mib(const JobSpec& job) const {
  const double fraction =
      job.memory_profile ? job.memory_profile->mean_fraction() : memory_admission_fraction_;
  return fraction * static_cast<double>(job.memory.mib());
}

void MpsModel::compute_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const {
  model_rates(gpu, rates, load);
  // Measured pair speeds after the memo: it remembers the model's rates alone, so its key need
  // not hold the workloads.
  apply_colocation_speeds(gpu, rates, load);
}

void MpsModel::model_rates(const GpuView& gpu, std::span<double> rates, GpuLoad& load) const {
  const int device = params_.index(gpu.device);
  auto key = [&](RateMemo& memo) {
    memo.header(0) = static_cast<std::uint64_t>(device);
    for (std::size_t r = 0; r < gpu.residents.size(); ++r) {
      const JobSpec& j = *gpu.residents[r];
      memo.word(r, 0) = RateMemo::bits(j.sm_util);
      memo.word(r, 1) = RateMemo::bits(j.sm_share);
      memo.word(r, 2) = static_cast<std::uint64_t>(j.kernel_length.us());
      memo.word(r, 3) = j.fixed_kernel_lengths ? 1 : 0;
      memo.word(r, 4) = RateMemo::bits(thread_fraction(j));
    }
  };
  memo_.answer(rates, load, key, [&] {
    jobs_.clear();
    bool all_fixed = true;
    for (const JobSpec* j : gpu.residents) {
      all_fixed = all_fixed && j->fixed_kernel_lengths;
      MpsJob m;
      m.sm_util = j->sm_util;
      m.sm_share = j->sm_share;
      m.active_thread_fraction = thread_fraction(*j);
      m.mean_kernel_us = std::max<double>(1.0, static_cast<double>(j->kernel_length.us()));
      jobs_.push_back(m);
    }
    MpsParams p = params_.at(device);
    p.bursts = all_fixed ? MpsBursts::kFixed : MpsBursts::kExponential;  // fluid form: unused
    const MpsLoad l = mps_rates(jobs_, p, rates, workspace_);
    load.useful_busy = l.busy_fraction;
    load.overhead = 0.0;
  });
}

bool MpsModel::block_context(const GpuView& gpu, std::size_t resident,
                             BlockContext& out) const {
  if (gpu.residents.size() < 2 || resident >= gpu.residents.size()) return false;
  const MpsParams& p = params_.at(params_.index(gpu.device));
  if (p.allocation != MpsSmAllocation::kBlocks) return false;
  const int sms = std::max(1, gpu.device.sms);
  // As the block-level reference: a kernel is round(sm_share x SMs) blocks of one SM, a client
  // holds at most floor(active thread fraction x SMs) SMs at once.
  auto blocks = [&](double sm_share) {
    return std::max(1, static_cast<int>(std::lround(sm_share * sms)));
  };
  auto cap = [&](const JobSpec& j) {
    return std::max(1, static_cast<int>(std::floor(thread_fraction(j) * sms + 1e-9)));
  };
  out.sms = sms;
  out.interference = p.interference;
  out.launch_gap_us = p.launch_gap_us;
  out.others.clear();
  bool all_fixed = true;
  for (std::size_t r = 0; r < gpu.residents.size(); ++r) {
    const JobSpec& j = *gpu.residents[r];
    all_fixed = all_fixed && j.fixed_kernel_lengths;
    if (r == resident) {
      out.service_blocks = blocks(j.sm_share);
      out.service_cap = cap(j);
      continue;
    }
    // Another service launches one kernel per request (its service time), as its own schedule
    // serves it; other jobs, and an LLM endpoint (no service time: its engine sets each
    // iteration's), their trace kernel length (at least 1 us, as compute_rates).
    const double kernel_us = j.service && !j.service->llm
                                 ? j.service->request_gpu_burst_us()
                                 : std::max<double>(1.0, static_cast<double>(j.kernel_length.us()));
    out.others.push_back(BlockContender{j.sm_util, kernel_us, blocks(j.sm_share), cap(j)});
  }
  out.fixed_lengths = all_fixed;
  return true;
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
