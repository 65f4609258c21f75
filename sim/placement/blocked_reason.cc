#include "sim/placement/blocked_reason.h"

#include <algorithm>
#include <cmath>

namespace gpumux {

QueueReason first_binding_reason(const BlockedTally& tally, std::int64_t total, int gang) {
  if (tally.passing >= gang) return QueueReason::kGang;
  std::int64_t left = total;
  for (std::size_t r = 0; r < kQueueReasonCount; ++r) {
    left -= tally.refused[r];
    if (left < gang) return static_cast<QueueReason>(r);
  }
  // Unreachable while the tally covers every GPU (left == passing < gang by then).
  return QueueReason::kGang;
}

GpuRefusals::GpuRefusals(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                         const JobSpec& job)
    : cluster_(cluster),
      model_(model),
      views_(views),
      job_(job),
      empty_only_(model.requires_empty_gpu()),
      room_bound_(model.room_bound()),
      need_(job_need(model, job)),
      room_decides_(room_bound_ && room_bound_->room_decides_admission_for(job)) {}

bool GpuRefusals::takes(GpuIndex g, QueueReason& why) {
  // Cluster::open_room: NaN exactly while the GPU is out of service.
  const double room = cluster_.open_room(g);
  if (std::isnan(room)) {
    why = QueueReason::kUnavailable;
    return false;
  }
  if (empty_only_ && !cluster_.gpu(g).residents.empty()) {
    why = QueueReason::kGpus;
    return false;
  }
  if (!(room >= need_)) {
    if (room_decides_) {
      if (const auto r = room_bound_->room_refusal(room, job_)) {
        why = *r;
        return false;
      }
    }
    why = model_.refusal(views_.view(g), job_);
    return false;
  }
  if (room_decides_) return true;
  const GpuView view = views_.view(g);
  if (model_.admits(view, job_)) return true;
  why = model_.refusal(view, job_);
  return false;
}

namespace {

// Under a model that needs empty GPUs with every device taking the job when empty, for a job
// asking for no node CPUs: GPUs fail only by being out of service or taken, counted by the
// cluster's indexes.
bool all_devices_take(const Cluster& cluster, const SharingModel& model, const JobSpec& job) {
  for (const DeviceProfile& device : cluster.devices()) {
    if (!model.admits(GpuView{device, {}, MemoryMiB(0)}, job)) return false;
  }
  return true;
}

}  // namespace

QueueReason topology_blocked_reason(const Cluster& cluster, const SharingModel& model,
                                    GpuViewBuilder& views, const JobSpec& job) {
  const int gang = job.gpus;
  const auto total = static_cast<std::int64_t>(cluster.gpu_count());
  const std::int64_t cpu = cluster.tracks_cpus() ? job_cpu_hundredths(job) : 0;
  BlockedTally tally;
  if (model.requires_empty_gpu() && cpu == 0 && all_devices_take(cluster, model, job)) {
    const auto unavailable = static_cast<std::int64_t>(cluster.unavailable_gpus_total());
    const auto empty = static_cast<std::int64_t>(cluster.empty_gpus_total());
    tally.refused[static_cast<std::size_t>(QueueReason::kUnavailable)] = unavailable;
    tally.refused[static_cast<std::size_t>(QueueReason::kGpus)] = total - unavailable - empty;
    tally.passing = empty;
    return first_binding_reason(tally, total, gang);
  }
  const RoomBound* room = model.room_bound();
  if (cpu == 0 && room && room->room_decides_admission_for(job)) {
    const double need = room->job_need(job);
    const auto below_zero = room->room_refusal(-1.0, job);
    const auto from_zero = room->room_refusal(0.0, job);
    if (below_zero && from_zero) {
      // The GPUs with room >= need pass; those with room in [0, need), and those below 0, are
      // refused alike within each range (RoomBound::room_refusal's contract).
      auto with_room = [&](double at_least) {
        const RoomCounts counts = cluster.room_counts(at_least);
        std::int64_t n = 0;
        for (std::size_t r = 0; r < cluster.topology().rack_count(); ++r) {
          n += counts.in_rack(static_cast<int>(r));
        }
        return n;
      };
      const std::int64_t passing = with_room(need);
      const std::int64_t from_zero_up = need > 0.0 ? with_room(0.0) : passing;
      const auto unavailable = static_cast<std::int64_t>(cluster.unavailable_gpus_total());
      tally.refused[static_cast<std::size_t>(QueueReason::kUnavailable)] = unavailable;
      tally.refused[static_cast<std::size_t>(*below_zero)] += total - unavailable - from_zero_up;
      tally.refused[static_cast<std::size_t>(*from_zero)] += from_zero_up - passing;
      tally.passing = passing;
      return first_binding_reason(tally, total, gang);
    }
  }
  GpuRefusals refusals(cluster, model, views, job);
  for (NodeIndex node = 0; node < cluster.node_count(); ++node) {
    const GpuIndex first = cluster.topology().first_gpu(node);
    std::int64_t taken = 0;
    for (int i = 0; i < cluster.node(node).gpus; ++i) {
      QueueReason why{};
      if (refusals.takes(first + static_cast<GpuIndex>(i), why)) {
        ++taken;
      } else {
        ++tally.refused[static_cast<std::size_t>(why)];
      }
    }
    // Placement counts only the GPUs whose share of the job's cores the node has free.
    const std::int64_t within =
        cpu > 0 && taken > 0 ? std::min(taken, cluster.gpus_within_cpus(node, cpu, gang)) : taken;
    tally.refused[static_cast<std::size_t>(QueueReason::kCpuCores)] += taken - within;
    tally.passing += within;
  }
  return first_binding_reason(tally, total, gang);
}

}  // namespace gpumux
