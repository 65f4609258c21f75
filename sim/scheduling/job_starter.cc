#include "sim/scheduling/job_starter.h"

#include <stdexcept>

namespace gpumux {

JobStarter::JobStarter(std::unique_ptr<PlacementPolicy> placement)
    : placement_(std::move(placement)) {}

void JobStarter::set_pooled(bool pooled) {
  if (queued_ != 0) throw std::logic_error("scheduler: set_pooled with jobs queued");
  pooled_ = pooled;
}

void JobStarter::set_model(const SharingModel& model) {
  if (queued_ != 0) throw std::logic_error("scheduler: set_model with jobs queued");
  kind_model_ = !pooled_ && model.admission_by_key() && placement_->places_by_kind() ? &model
                                                                                     : nullptr;
}

bool JobStarter::surely_refused(const Cluster& cluster, const SharingModel& model,
                                GpuViewBuilder& views, const JobSpec& spec) {
  if (spec.gpus != 0) return placement_->surely_refused(cluster, model, views, spec);
  // place_cpu_only finds a node only among those with the cores free.
  return cluster.tracks_cpus() && cluster.most_cpu_free() < job_cpu_hundredths(spec);
}

void JobStarter::count_in(const JobSpec& spec) {
  ++queued_;
  if (spec.gpus == 0 && !pooled_) ++cpu_only_queued_;
}

bool JobStarter::place_now(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                           const JobSpec& spec) {
  if (spec.gpus != 0) return placement_->place(cluster, model, views, spec, chosen_);
  chosen_.clear();
  const auto node = placement_->place_cpu_only(cluster, job_cpu_hundredths(spec));
  if (!node) return false;
  chosen_node_ = *node;
  return true;
}

QueueReason JobStarter::blocked_reason(const Cluster& cluster, const SharingModel& model,
                                       GpuViewBuilder& views, const JobSpec& spec) {
  if (pooled_) {
    const PoolAmount amount = pool_request(spec);
    if (amount.gpu > cluster.pool_free().gpu) return QueueReason::kGpus;
    if (amount.cpu > cluster.pool_free().cpu) return QueueReason::kCpuCores;
    return QueueReason::kPolicy;
  }
  if (spec.gpus == 0) {
    return cluster.most_cpu_free() >= job_cpu_hundredths(spec) ? QueueReason::kPolicy
                                                               : QueueReason::kCpuCores;
  }
  return placement_->blocked_reason(cluster, model, views, spec);
}

void JobStarter::launch(JobSlot job, const JobSpec& spec, Launcher& launcher) {
  --queued_;
  if (spec.gpus == 0) {
    --cpu_only_queued_;
    launcher.start_on_node(job, chosen_node_);
  } else {
    launcher.start(job, chosen_);
  }
}

void JobStarter::launch_pooled(JobSlot job, Launcher& launcher) {
  --queued_;
  launcher.start(job, {});
}

}  // namespace gpumux
