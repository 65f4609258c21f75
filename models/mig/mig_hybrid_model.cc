#include "models/mig/mig_hybrid_model.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <tuple>

#include "models/mig/measured_speed.h"

namespace gpumux {

namespace {

// Scratch capacity reserved up front: well above what the inner models admit per instance by
// default (8 time-sliced jobs, 48 MPS clients).
constexpr std::size_t kScratch = 64;

constexpr std::string_view kInstanceChoiceNames[] = {"spread", "pack"};  // InstanceChoice order
constexpr ChoiceSpec kInstanceChoiceSpec{
    "instance_choice", kInstanceChoiceNames, 0, "default",
    "which admitting instance a job takes: fewest residents (spread) or most (pack), then the "
    "smallest"};

std::unique_ptr<SharingModel> read_inner(JsonObject& p, MigHybridModel::InnerFactory make_inner) {
  if (p.has("inner")) {
    JsonObject inner = p.object("inner");
    return make_inner(inner);
  }
  p.allow("inner");
  static const nlohmann::json kEmpty = nlohmann::json::object();
  JsonObject inner(kEmpty, p.file(), p.pointer("inner"));
  return make_inner(inner);
}

MemoryMiB in_use(const GpuView& gpu, std::size_t k) {
  return gpu.resident_memory.empty() ? gpu.residents[k]->memory : gpu.resident_memory[k];
}

}  // namespace

DeviceProfile mig_sub_device(const DeviceProfile& device, const MigProfile& profile) {
  DeviceProfile sub = device;
  sub.name = device.name + "/" + profile.name;
  sub.memory = profile.memory;
  sub.sms = profile.sms;
  sub.mig_memory_slices = 0;
  sub.mig_compute_slices = 0;
  sub.mig_profiles.clear();
  return sub;
}

void rescale_to_instance(const JobSpec& job, double sm_fraction, JobSpec& out) {
  const double wide = job.sm_share / sm_fraction;
  const double k = std::max(1.0, wide);
  const double u = job.sm_util;
  out.gpus = job.gpus;
  out.runtime = job.runtime;
  out.sm_share = std::min(1.0, wide);
  out.sm_util = u * k / (u * k + 1.0 - u);
  out.kernel_length = Time::from_us(
      std::max<std::int64_t>(1, std::llround(static_cast<double>(job.kernel_length.us()) * k)));
  out.memory = job.memory;
  out.memory_profile = job.memory_profile;
  out.memory_limit = job.memory_limit;
  out.kind = job.kind;
  out.priority = job.priority;
  out.checkpoint_interval = job.checkpoint_interval;
  out.tenant = job.tenant;  // reuses out's capacity
  out.mig_profile.clear();
}

MigHybridModel::MigHybridModel(std::string name, JsonObject& p, InnerFactory make_inner)
    : name_(std::move(name)),
      choice_setting_(read(p, kInstanceChoiceSpec)),
      choice_(static_cast<InstanceChoice>(choice_setting_.index)),
      inner_(read_inner(p, make_inner)),
      mig_(p) {
  if (mig_.resplits()) {
    throw InputError(p.where("regrow"), "regrow",
                     "re-splitting in place moves one job per instance; under '" + name_ +
                         "' an instance holds several (use the plain 'mig' model)");
  }
  for (const ModelParameter& q : mig_.parameters()) {
    // One job per instance is precisely what the hybrid lifts.
    if (q.name != "jobs_per_instance") declared_.push_back(q);
  }
  for (ModelParameter q : inner_->parameters()) {
    q.name = "inner." + q.name;
    q.description = std::string(inner_->name()) + " inside each instance: " + q.description;
    declared_.push_back(std::move(q));
  }
  declared_.push_back(declare(kInstanceChoiceSpec, choice_setting_));
  declared_.push_back(ModelParameter::on_off(
      "instance_rescaling", true, "assumption (models/mig/mig_hybrid_model.h)",
      "jobs enter the inner model with sm_share / s (capped at 1) of the instance's SMs and "
      "kernels max(1, sm_share / s) times longer; rate = instance rate (speed_model) x inner "
      "rate"));
  // An assumption of the model, listed with the parameters but not a setting.
  declared_.back().accepts = "nothing: fixed by the model, not a key of sharing.params";

  scaled_.resize(kScratch);
  sub_jobs_.reserve(kScratch);
  sub_memory_.reserve(kScratch);
  sub_rates_.reserve(kScratch);
  sub_killed_.reserve(kScratch);
  sub_asked_.reserve(kScratch);
  member_.reserve(kScratch);
  slot_.reserve(kScratch);
  count_.reserve(kScratch);
}

const MigHybridModel::LayoutInfo& MigHybridModel::layout_info(const DeviceProfile& device,
                                                              int layout) const {
  for (const LayoutInfo& info : layouts_) {
    if (info.layout == layout && info.device == device.name) return info;
  }
  LayoutInfo info;
  info.device = device.name;
  info.layout = layout;
  info.mig_enabled = mig_.layout_at(device, layout).mig_enabled;
  const int n = info.mig_enabled ? mig_.slot_count(device, layout) : 0;
  for (int i = 0; i < n; ++i) {
    Instance inst;
    inst.profile = mig_.instance_profile(device, layout, i);
    const std::string sub_name = device.name + "/" + inst.profile.name;
    for (const DeviceProfile& d : sub_devices_) {
      if (d.name == sub_name) inst.sub = &d;
    }
    if (inst.sub == nullptr) {
      sub_devices_.push_back(mig_sub_device(device, inst.profile));
      inst.sub = &sub_devices_.back();
    }
    inst.supply = mig_supply(device, inst.profile);
    info.instances.push_back(std::move(inst));
  }
  for (int i = 0; i < n; ++i) {
    const MigProfile& a = info.instances[static_cast<std::size_t>(i)].profile;
    int rank = 0;
    for (int j = 0; j < n; ++j) {
      const MigProfile& b = info.instances[static_cast<std::size_t>(j)].profile;
      const auto key_a = std::tuple(a.memory, a.compute_slices, a.memory_slices, i);
      const auto key_b = std::tuple(b.memory, b.compute_slices, b.memory_slices, j);
      if (key_b < key_a) ++rank;
    }
    info.instances[static_cast<std::size_t>(i)].size_rank = rank;
  }
  count_.reserve(std::max(count_.capacity(), static_cast<std::size_t>(n)));
  layouts_.push_back(std::move(info));
  return layouts_.back();
}

void MigHybridModel::check_device(const DeviceProfile& device) const {
  mig_.check_device(device);
  for (int l = 0; l < mig_.layout_count(device); ++l) layout_info(device, l);
}

const DeviceProfile& MigHybridModel::sub_device(const DeviceProfile& device, int layout,
                                                int instance) const {
  return *layout_info(device, layout).instances[static_cast<std::size_t>(instance)].sub;
}

MemoryMiB MigHybridModel::gather(const GpuView& gpu, const Instance& inst, int instance,
                                 std::size_t residents, std::span<const int> slots) const {
  if (scaled_.size() < residents) scaled_.resize(residents);  // grows only
  sub_jobs_.clear();
  sub_memory_.clear();
  sub_asked_.clear();
  member_.clear();
  const bool asked = gpu.resident_asked.size() == gpu.residents.size();
  MemoryMiB used;
  for (std::size_t k = 0; k < residents; ++k) {
    if (slots[k] != instance) continue;
    JobSpec& scaled = scaled_[sub_jobs_.size()];
    rescale_to_instance(*gpu.residents[k], inst.supply.sm_fraction, scaled);
    sub_jobs_.push_back(&scaled);
    sub_memory_.push_back(in_use(gpu, k));
    if (asked) sub_asked_.push_back(gpu.resident_asked[k]);
    member_.push_back(static_cast<int>(k));
    used += sub_memory_.back();
  }
  return used;
}

int MigHybridModel::pick(const GpuView& gpu, const LayoutInfo& info, std::size_t residents,
                         std::span<const int> slots, const JobSpec& job) const {
  int best = -1, best_count = 0;
  for (std::size_t i = 0; i < info.instances.size(); ++i) {
    const Instance& inst = info.instances[i];
    if (!mig_.fits(gpu.device, inst.profile, job)) continue;
    const MemoryMiB used = gather(gpu, inst, static_cast<int>(i), residents, slots);
    rescale_to_instance(job, inst.supply.sm_fraction, candidate_);
    const GpuView sub{*inst.sub, sub_jobs_, used, sub_memory_};
    if (!inner_->admits(sub, candidate_)) continue;
    const int count = static_cast<int>(sub_jobs_.size());
    bool better = best < 0;
    if (!better && count != best_count) {
      better = choice_ == InstanceChoice::kSpread ? count < best_count : count > best_count;
    } else if (!better) {
      better = inst.size_rank < info.instances[static_cast<std::size_t>(best)].size_rank;
    }
    if (better) {
      best = static_cast<int>(i);
      best_count = count;
    }
  }
  return best;
}

int MigHybridModel::fallback(const GpuView& gpu, const LayoutInfo& info, std::size_t residents,
                             std::span<const int> slots, const JobSpec& job) const {
  const std::size_t n = info.instances.size();
  count_.assign(n, 0);
  for (std::size_t k = 0; k < residents; ++k) ++count_[static_cast<std::size_t>(slots[k])];
  int best = -1, smallest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Instance& inst = info.instances[i];
    if (inst.size_rank == 0) smallest = static_cast<int>(i);
    if (!mig_.fits(gpu.device, inst.profile, job)) continue;
    if (best < 0 || count_[i] < count_[static_cast<std::size_t>(best)] ||
        (count_[i] == count_[static_cast<std::size_t>(best)] &&
         inst.size_rank < info.instances[static_cast<std::size_t>(best)].size_rank)) {
      best = static_cast<int>(i);
    }
  }
  return best >= 0 ? best : smallest;
}

std::span<const int> MigHybridModel::slots_of(const GpuView& gpu, const LayoutInfo& info) const {
  const std::size_t n = gpu.residents.size();
  const int m = static_cast<int>(info.instances.size());
  if (gpu.resident_slot.size() == n) {
    bool valid = true;
    for (int s : gpu.resident_slot) valid = valid && s >= 0 && s < m;
    if (valid) return gpu.resident_slot;
  }
  // No slots given (a view built by hand): replay choose_slot over the residents in order.
  slot_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::span<const int> before(slot_.data(), k);
    int s = pick(gpu, info, k, before, *gpu.residents[k]);
    if (s < 0) s = fallback(gpu, info, k, before, *gpu.residents[k]);
    slot_[k] = s;
  }
  return slot_;
}

double MigHybridModel::gpu_room(const GpuView& gpu) const {
  // Asked only through room_bound(), which is null unless the inner model bounds rooms.
  const RoomBound& inner = *inner_->room_bound();
  const LayoutInfo& info = layout_info(gpu.device, gpu.layout);
  if (!info.mig_enabled) return inner.gpu_room(gpu);
  if (gpu.resident_slot.size() != gpu.residents.size()) return kUnboundedRoom;  // no slots known
  double most = -1.0;
  for (std::size_t i = 0; i < info.instances.size(); ++i) {
    const Instance& inst = info.instances[i];
    const MemoryMiB used =
        gather(gpu, inst, static_cast<int>(i), gpu.residents.size(), gpu.resident_slot);
    most = std::max(most, inner.gpu_room(GpuView{*inst.sub, sub_jobs_, used, sub_memory_}));
  }
  return most;
}

bool MigHybridModel::admits(const GpuView& gpu, const JobSpec& job) const {
  const LayoutInfo& info = layout_info(gpu.device, gpu.layout);
  if (!info.mig_enabled) return mig_.fits_whole_gpu(gpu.device, job) && inner_->admits(gpu, job);
  if (job.gpus != 1 || info.instances.empty()) return false;
  const std::span<const int> slots = slots_of(gpu, info);
  return pick(gpu, info, gpu.residents.size(), slots, job) >= 0;
}

QueueReason MigHybridModel::refusal(const GpuView& gpu, const JobSpec& job) const {
  const LayoutInfo& info = layout_info(gpu.device, gpu.layout);
  if (info.mig_enabled) return QueueReason::kMigFit;
  if (!mig_.fits_whole_gpu(gpu.device, job)) {
    return job.mig_profile.empty() ? QueueReason::kMemory : QueueReason::kMigFit;
  }
  return inner_->refusal(gpu, job);
}

int MigHybridModel::choose_slot(const GpuView& gpu, const JobSpec& job) const {
  const LayoutInfo& info = layout_info(gpu.device, gpu.layout);
  if (!info.mig_enabled || info.instances.empty()) return 0;
  const std::span<const int> slots = slots_of(gpu, info);
  const int s = pick(gpu, info, gpu.residents.size(), slots, job);
  return s >= 0 ? s : fallback(gpu, info, gpu.residents.size(), slots, job);
}

void MigHybridModel::compute_rates(const GpuView& gpu, std::span<double> rates,
                                   GpuLoad& load) const {
  const LayoutInfo& info = layout_info(gpu.device, gpu.layout);
  if (!info.mig_enabled) {
    inner_->compute_rates(gpu, rates, load);
    return;
  }
  if (info.instances.empty()) {  // never admitted here; nothing to cost against
    std::fill(rates.begin(), rates.end(), 1.0);
    load = GpuLoad{};
    return;
  }
  const std::span<const int> slots = slots_of(gpu, info);
  double busy = 0.0, overhead = 0.0;
  for (std::size_t i = 0; i < info.instances.size(); ++i) {
    const Instance& inst = info.instances[i];
    const MemoryMiB used = gather(gpu, inst, static_cast<int>(i), gpu.residents.size(), slots);
    if (sub_jobs_.empty()) continue;
    sub_rates_.resize(sub_jobs_.size());
    GpuLoad inner_load;
    inner_->compute_rates(GpuView{*inst.sub, sub_jobs_, used, sub_memory_}, sub_rates_, inner_load);
    for (std::size_t j = 0; j < member_.size(); ++j) {
      const auto k = static_cast<std::size_t>(member_[j]);
      const double alone = mig_job_rate(*gpu.residents[k], gpu.device, inst.profile, inst.supply,
                                         mig_.speed_params());
      rates[k] = std::clamp(alone * sub_rates_[j], 0.0, 1.0);
    }
    busy += inner_load.useful_busy * inst.supply.sm_fraction;
    overhead += inner_load.overhead * inst.supply.sm_fraction;
  }
  load.useful_busy = std::min(1.0, busy);
  load.overhead = std::min(1.0 - load.useful_busy, overhead);
  // Inside instances the inner model sees a sub-device no catalogue names: no pair speeds.
  load.measured_pair = 0;
  load.unrunnable_pair = 0;
}

bool MigHybridModel::memory_fault(const GpuView& gpu, std::span<std::uint8_t> killed,
                                  Time& recovery) const {
  const LayoutInfo& info = layout_info(gpu.device, gpu.layout);
  if (!info.mig_enabled) return inner_->memory_fault(gpu, killed, recovery);
  recovery = Time::zero();
  std::fill(killed.begin(), killed.end(), std::uint8_t{0});
  if (gpu.residents.empty() || info.instances.empty()) return false;
  const std::span<const int> slots = slots_of(gpu, info);
  bool any = false;
  std::size_t dead = 0;
  Time longest = Time::zero();
  for (std::size_t i = 0; i < info.instances.size(); ++i) {
    const Instance& inst = info.instances[i];
    const MemoryMiB used = gather(gpu, inst, static_cast<int>(i), gpu.residents.size(), slots);
    if (sub_jobs_.empty()) continue;
    sub_killed_.assign(sub_jobs_.size(), 0);
    Time inner_recovery = Time::zero();
    // The sub-view carries the askers (sub_asked_ is empty when the view has none).
    if (!inner_->memory_fault(GpuView{*inst.sub, sub_jobs_, used, sub_memory_, 0, {}, sub_asked_},
                              sub_killed_, inner_recovery)) {
      continue;
    }
    for (std::size_t j = 0; j < member_.size(); ++j) {
      if (sub_killed_[j] == 0) continue;
      killed[static_cast<std::size_t>(member_[j])] = 1;
      ++dead;
      any = true;
    }
    longest = std::max(longest, inner_recovery);
  }
  // A recovering GPU must be empty (engine rule): a delay only when the whole GPU died.
  if (any && dead == gpu.residents.size()) recovery = longest;
  return any;
}

void MigHybridModel::fatal_fault(const GpuView& gpu, std::size_t faulting,
                                 std::span<std::uint8_t> killed, Time& recovery) const {
  const LayoutInfo& info = layout_info(gpu.device, gpu.layout);
  if (!info.mig_enabled || info.instances.empty()) {
    inner_->fatal_fault(gpu, faulting, killed, recovery);
    return;
  }
  recovery = Time::zero();
  const std::span<const int> slots = slots_of(gpu, info);
  const int instance = slots[faulting];
  if (instance < 0 || static_cast<std::size_t>(instance) >= info.instances.size()) {
    killed[faulting] = 1;  // costed nowhere: it dies alone
    return;
  }
  // The fault stays inside the instance: its own server (mig+mps) or context (mig+timeslice).
  const Instance& inst = info.instances[static_cast<std::size_t>(instance)];
  const MemoryMiB used = gather(gpu, inst, instance, gpu.residents.size(), slots);
  std::size_t sub_faulting = 0;
  while (static_cast<std::size_t>(member_[sub_faulting]) != faulting) ++sub_faulting;
  sub_killed_.assign(sub_jobs_.size(), 0);
  Time inner_recovery = Time::zero();
  inner_->fatal_fault(GpuView{*inst.sub, sub_jobs_, used, sub_memory_}, sub_faulting, sub_killed_,
                      inner_recovery);
  std::size_t dead = 0;
  for (std::size_t j = 0; j < member_.size(); ++j) {
    if (sub_killed_[j] == 0) continue;
    killed[static_cast<std::size_t>(member_[j])] = 1;
    ++dead;
  }
  // A recovering GPU must be empty (engine rule): a delay only when the whole GPU died.
  if (dead == gpu.residents.size()) recovery = inner_recovery;
}

}  // namespace gpumux
