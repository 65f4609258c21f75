#include "analysis/metrics/slot_metrics.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "analysis/metrics/metrics_collector.h"
#include "traces/formats/trace_writer.h"

namespace gpumux {

namespace {

// Distinct demands remembered before the cache starts over. Traces with continuous memory or SM
// shares have a demand per job (the signatures they map to stay few): a small cache stays fast
// for them, and traces with few distinct demands hit it every time.
constexpr std::size_t kMaxCachedDemands = 4096;

constexpr double kMicrosecondsPerHour = 3.6e9;

}  // namespace

bool has_slots(const Cluster& cluster, const SharingModel& model) {
  for (const DeviceProfile& device : cluster.devices()) {
    for (int layout = 0; layout < layout_count(model, device); ++layout) {
      if (slot_count(model, device, layout) > 0) return true;
    }
  }
  return false;
}

std::size_t SlotMetrics::DemandHash::operator()(const DemandKey& k) const {
  std::size_t h = std::hash<std::string>{}(k.mig_profile);
  auto mix = [&h](std::uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(static_cast<std::uint64_t>(k.memory_mib));
  mix(std::bit_cast<std::uint64_t>(k.sm_share));
  mix(static_cast<std::uint64_t>(k.gpus));
  mix(static_cast<std::uint64_t>(k.memory_limit_mib));
  return h;
}

SlotMetrics::SlotMetrics(const Cluster& cluster, const SharingModel& model)
    : cluster_(cluster), model_(model) {
  const auto& devices = cluster.devices();
  std::vector<int> max_slots(devices.size(), 0);
  for (std::size_t d = 0; d < devices.size(); ++d) {
    first_class_.push_back(static_cast<int>(classes_.size()));
    for (int layout = 0; layout < layout_count(model, devices[d]); ++layout) {
      LayoutClass c;
      c.device = static_cast<int>(d);
      c.layout = layout;
      c.first_slot = static_cast<int>(slots_.size());
      c.slots = slot_count(model, devices[d], layout);
      for (int s = 0; s < c.slots; ++s) {
        const SlotInfo info = model.slot_layout()->slot_info(devices[d], layout, s);
        ClassSlot slot;
        const auto it = std::find(names_.begin(), names_.end(), info.name);
        slot.name = static_cast<int>(it - names_.begin());
        if (it == names_.end()) names_.emplace_back(info.name);
        slot.slices = info.compute_slices;
        slot.memory_mib = static_cast<double>(info.memory.mib());
        slot.kind = static_cast<int>(kinds_.size());
        for (std::size_t k = 0; k < kinds_.size(); ++k) {
          const ClassSlot& same = slots_[static_cast<std::size_t>(kinds_[k].index)];
          if (kinds_[k].device == c.device && same.name == slot.name &&
              same.slices == slot.slices && same.memory_mib == slot.memory_mib) {
            slot.kind = static_cast<int>(k);
            break;
          }
        }
        if (slot.kind == static_cast<int>(kinds_.size())) {
          kinds_.push_back(SlotKind{c.device, layout, s, static_cast<int>(slots_.size())});
        }
        slots_.push_back(slot);
      }
      max_slots[d] = std::max(max_slots[d], c.slots);
      classes_.push_back(c);
    }
  }
  first_class_.push_back(static_cast<int>(classes_.size()));  // ends the last device's layouts
  const std::size_t gpus = cluster.gpu_count();
  gpu_class_.assign(gpus, -1);
  gpu_available_.assign(gpus, 0);
  gpu_whole_free_.assign(gpus, 0);
  busy_offset_.resize(gpus);
  std::size_t offset = 0;
  for (GpuIndex g = 0; g < gpus; ++g) {
    busy_offset_[g] = offset;
    offset += static_cast<std::size_t>(max_slots[static_cast<std::size_t>(cluster.gpu(g).device)]);
  }
  busy_.assign(offset, 0);
  instances_by_name_.assign(names_.size(), 0.0);
  busy_by_name_.assign(names_.size(), 0.0);
  instances_integral_.assign(names_.size(), 0.0);
  busy_integral_.assign(names_.size(), 0.0);
}

int SlotMetrics::class_of(const GpuState& gpu) const {
  const auto d = static_cast<std::size_t>(gpu.device);
  const int count = first_class_[d + 1] - first_class_[d];
  if (gpu.layout < 0 || gpu.layout >= count) {
    throw std::logic_error("slot metrics: a GPU's layout is out of range");
  }
  return first_class_[d] + gpu.layout;
}

void SlotMetrics::update_gpu(GpuIndex g, const GpuState& gpu) {
  const std::size_t off = busy_offset_[g];
  if (const int old = gpu_class_[g]; old >= 0) {
    LayoutClass& c = classes_[static_cast<std::size_t>(old)];
    if (c.slots == 0 && gpu_whole_free_[g] && --c.whole_free == 0) fit_dirty_ = true;
    for (int s = 0; s < c.slots; ++s) {
      ClassSlot& slot = slots_[static_cast<std::size_t>(c.first_slot + s)];
      if (busy_[off + static_cast<std::size_t>(s)]) {
        --slot.busy;
      } else if (gpu_available_[g]) {
        if (--slot.free == 0) fit_dirty_ = true;
      } else {
        --slot.unavailable;
      }
    }
  }
  const int cls = class_of(gpu);
  LayoutClass& c = classes_[static_cast<std::size_t>(cls)];
  gpu_class_[g] = cls;
  gpu_available_[g] = gpu.available ? 1 : 0;
  gpu_whole_free_[g] = 0;
  if (c.slots == 0) {
    if (gpu.free()) {
      gpu_whole_free_[g] = 1;
      if (++c.whole_free == 1) fit_dirty_ = true;
    }
  } else {
    if (gpu.slots.size() != gpu.residents.size()) {
      throw std::logic_error("slot metrics: a GPU lists a slot count unlike its resident count");
    }
    std::fill_n(busy_.begin() + static_cast<std::ptrdiff_t>(off), c.slots, std::uint8_t{0});
    for (const int s : gpu.slots) {
      if (s < 0 || s >= c.slots) {
        throw std::logic_error("slot metrics: a resident holds a slot its GPU's layout lacks");
      }
      busy_[off + static_cast<std::size_t>(s)] = 1;
    }
    for (int s = 0; s < c.slots; ++s) {
      ClassSlot& slot = slots_[static_cast<std::size_t>(c.first_slot + s)];
      if (busy_[off + static_cast<std::size_t>(s)]) {
        ++slot.busy;
      } else if (gpu.available) {
        if (++slot.free == 1) fit_dirty_ = true;
      } else {
        ++slot.unavailable;
      }
    }
  }
  dirty_ = true;
}

int SlotMetrics::signature_of(const JobSpec& job) {
  DemandKey key{job.mig_profile, job.memory.mib(), job.sm_share, job.gpus, job.memory_limit.mib()};
  if (const auto it = demand_cache_.find(key); it != demand_cache_.end()) return it->second;
  kind_fits_.resize(kinds_.size());
  for (std::size_t k = 0; k < kinds_.size(); ++k) {
    const SlotKind& kind = kinds_[k];
    const DeviceProfile& device = cluster_.devices()[static_cast<std::size_t>(kind.device)];
    // Kinds exist only for slots, so the model has a slot layout.
    kind_fits_[k] = model_.slot_layout()->slot_fits(device, kind.layout, kind.slot, job) ? 1 : 0;
  }
  std::vector<std::uint8_t> fits(slots_.size() + classes_.size(), 0);
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    fits[i] = kind_fits_[static_cast<std::size_t>(slots_[i].kind)];
  }
  const std::vector<const JobSpec*> none;
  for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
    const LayoutClass& c = classes_[ci];
    if (c.slots > 0) continue;
    const DeviceProfile& device = cluster_.devices()[static_cast<std::size_t>(c.device)];
    const GpuView empty{device, none, MemoryMiB(0), {}, c.layout};
    fits[slots_.size() + ci] = model_.admits(empty, job) ? 1 : 0;
  }
  const auto [it, inserted] = signature_index_.try_emplace(std::string(fits.begin(), fits.end()),
                                                           static_cast<int>(signatures_.size()));
  if (inserted) {
    Signature s;
    s.fits = std::move(fits);
    signatures_.push_back(std::move(s));
  }
  if (demand_cache_.size() >= kMaxCachedDemands) demand_cache_.clear();
  demand_cache_.emplace(std::move(key), it->second);
  return it->second;
}

std::int64_t SlotMetrics::blocked_time(const Signature& s, Time now) const {
  return s.blocked_us + (s.blocked ? (now - s.blocked_since).us() : 0);
}

void SlotMetrics::change_queued(int signature, int delta) {
  Signature& s = signatures_[static_cast<std::size_t>(signature)];
  const bool was_queued = s.queued > 0;
  s.queued += delta;
  queued_ += delta;
  if (was_queued != (s.queued > 0)) {
    // Fragmentation looks at which slots some queued job fits; that changes only when a
    // signature appears in or vanishes from the queue.
    const int step = s.queued > 0 ? 1 : -1;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (s.fits[i]) slots_[i].fitting_signatures += step;
    }
    fit_dirty_ = true;
  }
  dirty_ = true;
}

void SlotMetrics::enqueue(Time now, const ActiveJob& job) {
  auto [it, inserted] = jobs_.try_emplace(job.ordinal);
  JobRecord& r = it->second;
  if (inserted) r.signature = signature_of(job.spec);
  if (r.queued) throw std::logic_error("slot metrics: a queued job queued again");
  r.queued = true;
  r.joined_at_us = blocked_time(signatures_[static_cast<std::size_t>(r.signature)], now);
  change_queued(r.signature, 1);
}

void SlotMetrics::leave_queue(Time now, JobRecord& r) {
  const Signature& s = signatures_[static_cast<std::size_t>(r.signature)];
  if (!r.counted && blocked_time(s, now) > r.joined_at_us) {
    r.counted = true;
    ++fit_blocked_jobs_;
  }
  r.queued = false;
  change_queued(r.signature, -1);
}

void SlotMetrics::dequeue(Time now, const ActiveJob& job, bool erase) {
  const auto it = jobs_.find(job.ordinal);
  if (it == jobs_.end() || !it->second.queued) {
    throw std::logic_error("slot metrics: a job left the queue without being queued");
  }
  leave_queue(now, it->second);
  if (erase) jobs_.erase(it);
}

void SlotMetrics::start_clock(Time now) {
  started_ = true;
  first_arrival_ = last_time_ = end_ = now;
  for (GpuIndex g = 0; g < cluster_.gpu_count(); ++g) update_gpu(g, cluster_.gpu(g));
}

void SlotMetrics::refresh(Time at) {
  if (dirty_) {
    now_ = Values{};
    std::fill(instances_by_name_.begin(), instances_by_name_.end(), 0.0);
    std::fill(busy_by_name_.begin(), busy_by_name_.end(), 0.0);
    for (const LayoutClass& c : classes_) {
      if (c.slots == 0) continue;
      const ClassSlot& first = slots_[static_cast<std::size_t>(c.first_slot)];
      now_.split_gpus += first.busy + first.free + first.unavailable;
    }
    for (const ClassSlot& s : slots_) {
      const double n = s.busy + s.free + s.unavailable;
      now_.slices += n * s.slices;
      now_.busy += s.busy * s.slices;
      now_.free += s.free * s.slices;
      now_.unavailable += s.unavailable * s.slices;
      if (queued_ > 0 && s.fitting_signatures == 0) now_.fragmented += s.free * s.slices;
      now_.memory += n * s.memory_mib;
      now_.memory_busy += s.busy * s.memory_mib;
      instances_by_name_[static_cast<std::size_t>(s.name)] += n;
      busy_by_name_[static_cast<std::size_t>(s.name)] += s.busy;
    }
  }
  if (fit_dirty_) {
    bool any_free = false;
    for (const ClassSlot& s : slots_) any_free = any_free || s.free > 0;
    for (Signature& sig : signatures_) {
      if (sig.queued == 0 && !sig.blocked) continue;
      bool fits_free = false;
      for (std::size_t i = 0; i < slots_.size() && !fits_free; ++i) {
        fits_free = sig.fits[i] && slots_[i].free > 0;
      }
      for (std::size_t ci = 0; ci < classes_.size() && !fits_free; ++ci) {
        fits_free = sig.fits[slots_.size() + ci] && classes_[ci].whole_free > 0;
      }
      const bool blocked = sig.queued > 0 && any_free && !fits_free;
      if (blocked == sig.blocked) continue;
      if (blocked) {
        sig.blocked_since = at;
      } else {
        sig.blocked_us += (at - sig.blocked_since).us();
      }
      sig.blocked = blocked;
    }
  }
  now_.blocked_jobs = 0;
  for (const Signature& sig : signatures_) {
    if (sig.blocked) now_.blocked_jobs += static_cast<double>(sig.queued);
  }
  dirty_ = fit_dirty_ = false;
}

void SlotMetrics::write_timeseries(std::ostream* out, Time interval) {
  series_ = out;
  series_interval_ = interval;
  if (series_) {
    *series_ << "time_s,split_gpus,slices,busy_slices,free_slices,unavailable_slices,"
                "fragmented_slices,slice_utilization,fit_blocked_jobs\n";
  }
}

void SlotMetrics::emit_samples(Time limit, bool inclusive) {
  if (!series_ || !sampling_ || next_sample_ > limit) return;
  const std::int64_t span = (limit - next_sample_).us(), step = series_interval_.us();
  const std::uint64_t due =
      static_cast<std::uint64_t>(inclusive ? span / step + 1 : (span + step - 1) / step);
  if (series_rows_ + due > kMaxTimeseriesRows) {
    throw TimeseriesTooLong("slot_timeseries.csv would have more than " +
                            std::to_string(kMaxTimeseriesRows) + " rows (one row every " +
                            format_seconds(series_interval_) +
                            " s); raise timeseries_interval_s or turn timeseries_csv off");
  }
  series_rows_ += due;
  // The same row repeats until the state changes: format it once.
  std::string row;
  row += ',' + format_double(now_.split_gpus) + ',' + format_double(now_.slices) + ',' +
         format_double(now_.busy) + ',' + format_double(now_.free) + ',' +
         format_double(now_.unavailable) + ',' + format_double(now_.fragmented) + ',' +
         (now_.slices > 0 ? format_double(now_.busy / now_.slices) : std::string()) + ',' +
         format_double(now_.blocked_jobs) + '\n';
  while (next_sample_ < limit || (inclusive && next_sample_ == limit)) {
    *series_ << format_seconds(next_sample_) << row;
    next_sample_ += series_interval_;
  }
}

void SlotMetrics::advance_to(Time now) {
  if (!started_) start_clock(now);
  if (now <= last_time_) return;
  if (dirty_ || fit_dirty_) refresh(last_time_);
  emit_samples(now, false);
  const double dt = static_cast<double>((now - last_time_).us());
  integral_.slices += now_.slices * dt;
  integral_.busy += now_.busy * dt;
  integral_.free += now_.free * dt;
  integral_.unavailable += now_.unavailable * dt;
  integral_.fragmented += now_.fragmented * dt;
  integral_.memory += now_.memory * dt;
  integral_.memory_busy += now_.memory_busy * dt;
  integral_.split_gpus += now_.split_gpus * dt;
  integral_.blocked_jobs += now_.blocked_jobs * dt;
  for (std::size_t n = 0; n < names_.size(); ++n) {
    instances_integral_[n] += instances_by_name_[n] * dt;
    busy_integral_[n] += busy_by_name_[n] * dt;
  }
  last_time_ = now;
}

void SlotMetrics::on_job_arrived(Time now, const ActiveJob& job) {
  advance_to(now);
  if (!sampling_) {  // rows start at the first arrival, as timeseries.csv's do
    sampling_ = true;
    next_sample_ = now;
  }
  enqueue(now, job);
}

void SlotMetrics::on_job_rejected(Time now, const ActiveJob& job, std::string_view reason) {
  advance_to(now);
  ++rejected_by_reason_[std::string(reason)];
  dequeue(now, job, true);
}

void SlotMetrics::on_job_started(Time now, const ActiveJob& job) {
  advance_to(now);
  dequeue(now, job, false);
}

void SlotMetrics::on_job_finished(Time now, const ActiveJob& job) {
  advance_to(now);
  jobs_.erase(job.ordinal);
}

void SlotMetrics::on_job_killed(Time now, const ActiveJob& job, double) {
  advance_to(now);
  enqueue(now, job);  // back to the queue; on_job_failed follows when it will not retry
}

void SlotMetrics::on_job_migrated(Time now, const ActiveJob& job, double, Time) {
  advance_to(now);
  enqueue(now, job);  // moved off a reconfigured GPU: back to the queue
}

void SlotMetrics::on_job_failed(Time now, const ActiveJob& job) {
  advance_to(now);
  dequeue(now, job, true);
}

void SlotMetrics::on_gpu_drain_started(Time now, GpuIndex gpu) {
  advance_to(now);
  update_gpu(gpu, cluster_.gpu(gpu));
}

void SlotMetrics::on_gpu_reconfigured(Time now, GpuIndex, Time, Time) {
  advance_to(now);  // on_gpu_changed follows with the new layout
}

void SlotMetrics::on_gpu_resplit(Time now, GpuIndex, const Resplit&, bool, std::size_t) {
  advance_to(now);  // on_gpu_changed follows with the new layout and slots
}

void SlotMetrics::on_gpu_changed(Time now, GpuIndex index, const GpuState& gpu) {
  advance_to(now);
  update_gpu(index, gpu);
}

void SlotMetrics::on_run_end(Time now, std::span<const ActiveJob* const>) {
  advance_to(now);
  if (dirty_ || fit_dirty_) refresh(now);
  emit_samples(now, true);
  end_ = now;
  // Jobs still queued at a time limit count with the fit-blocked time they have had so far.
  for (auto& [ordinal, record] : jobs_) {
    if (record.queued) leave_queue(now, record);
  }
}

nlohmann::json SlotMetrics::metrics() const {
  const double span_us = static_cast<double>((end_ - first_arrival_).us());
  // Shares and means over no time or no slices are n/a: null, not 0.
  auto quotient = [](double x, double over) {
    return over > 0 ? nlohmann::json(x / over) : nlohmann::json(nullptr);
  };
  auto share = [&](double x) { return quotient(x, integral_.slices); };
  auto mean = [&](double x) { return quotient(x, span_us); };
  nlohmann::json profiles = nlohmann::json::object();
  for (std::size_t n = 0; n < names_.size(); ++n) {
    profiles[names_[n]] = {
        {"mean_instances", mean(instances_integral_[n])},
        {"mean_busy", mean(busy_integral_[n])},
        {"occupancy", quotient(busy_integral_[n], instances_integral_[n])}};
  }
  return {
      {"slice_utilization", share(integral_.busy)},
      {"memory_allocation_share", quotient(integral_.memory_busy, integral_.memory)},
      {"free_slice_share", share(integral_.free)},
      {"unavailable_slice_share", share(integral_.unavailable)},
      {"fragmentation", share(integral_.fragmented)},
      {"mean_split_gpus", mean(integral_.split_gpus)},
      {"slice_hours", integral_.slices / kMicrosecondsPerHour},
      {"profiles", profiles},
      {"rejected_by_reason", rejected_by_reason_},
      {"fit_blocked",
       {{"jobs", fit_blocked_jobs_},
        {"wait_job_hours", integral_.blocked_jobs / kMicrosecondsPerHour}}},
  };
}

}  // namespace gpumux
