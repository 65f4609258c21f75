#include "sim/scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace gpumux {

QueuePolicy parse_queue_policy(std::string_view name) {
  if (name == "fifo") return QueuePolicy::kFifo;
  if (name == "fifo-backfill") return QueuePolicy::kFifoBackfill;
  throw std::invalid_argument("unknown queue policy '" + std::string(name) + "'");
}

std::string_view queue_policy_name(QueuePolicy policy) {
  return policy == QueuePolicy::kFifo ? "fifo" : "fifo-backfill";
}

std::vector<std::string> queue_policy_names() { return {"fifo", "fifo-backfill"}; }

Scheduler::Scheduler(QueuePolicy policy, std::unique_ptr<PlacementPolicy> placement,
                     int backfill_depth)
    : policy_(policy), placement_(std::move(placement)), backfill_depth_(backfill_depth) {}

void Scheduler::schedule(Time now, const Cluster& cluster, const SharingModel& model,
                         JobTable& jobs, const std::vector<JobSlot>& running, Launcher& launcher) {
  GpuViewBuilder views(cluster, jobs);
  // Start jobs from the head while they fit.
  while (!queue_.empty()) {
    const JobSlot head = queue_.front();
    if (!placement_->place(cluster, model, views, jobs[head].spec, chosen_)) break;
    queue_.pop_front();
    launcher.start(head, chosen_);
  }
  if (policy_ != QueuePolicy::kFifoBackfill || queue_.size() < 2) return;
  if (model.requires_empty_gpu() && cluster.empty_gpus_total() == 0) return;

  const ActiveJob& head = jobs[queue_.front()];
  Reservation reservation;
  bool reserved = false;
  const std::size_t depth = std::min<std::size_t>(queue_.size(), backfill_depth_ + 1);
  for (std::size_t i = 1; i < depth && i < queue_.size();) {
    const JobSlot candidate = queue_[i];
    const JobSpec& spec = jobs[candidate].spec;
    if (!placement_->place(cluster, model, views, spec, chosen_)) {
      ++i;
      continue;
    }
    if (!reserved) {
      reservation = reserve_for(head, cluster, jobs, running);
      reserved = true;
    }
    const bool ends_before_shadow = now + spec.runtime <= reservation.shadow;
    const bool spare = spec.gpus <= reservation.extra_gpus;
    if (!ends_before_shadow && !spare) {
      ++i;
      continue;
    }
    if (!ends_before_shadow) reservation.extra_gpus -= spec.gpus;
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    launcher.start(candidate, chosen_);
  }
}

Scheduler::Reservation Scheduler::reserve_for(const ActiveJob& head, const Cluster& cluster,
                                              const JobTable& jobs,
                                              const std::vector<JobSlot>& running) {
  // Counts whole empty GPUs: exact for exclusive placement, an estimate under sharing models.
  long empty = static_cast<long>(cluster.empty_gpus_total());
  Reservation r;
  if (empty >= head.spec.gpus) {
    r.shadow = Time::zero();
    r.extra_gpus = empty - head.spec.gpus;
    return r;
  }
  releases_.clear();
  for (JobSlot s : running) {
    releases_.emplace_back(jobs[s].expected_finish, static_cast<int>(jobs[s].gpus.size()));
  }
  // Every release frees at least one GPU, so the answer lies among the `missing` earliest: order
  // only those (a full sort of every running job on every pass dominated shared-GPU runs).
  const auto missing = static_cast<std::size_t>(head.spec.gpus - empty);
  const auto ordered =
      releases_.begin() + static_cast<std::ptrdiff_t>(std::min(missing, releases_.size()));
  std::partial_sort(releases_.begin(), ordered, releases_.end());
  releases_.erase(ordered, releases_.end());
  for (const auto& [when, gpus] : releases_) {
    empty += gpus;
    if (empty >= head.spec.gpus) {
      r.shadow = when;
      r.extra_gpus = empty - head.spec.gpus;
      return r;
    }
  }
  return r;  // never enough: no backfill job may delay it beyond infinity, so all may start
}

}  // namespace gpumux
