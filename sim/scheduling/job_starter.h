// What every queue policy (sim/scheduling/queue_policy.h) starts jobs with: the placement
// policy, the counts of queued jobs, and the Launcher that carries a start out.
//
// A policy picks a queued job, asks place_now() where it can start, and on success calls
// launch() (or, on a pooled cluster, launch_pooled()), which takes the job out of the counts
// and starts it. The Scheduler counts a job in (count_in) before handing it to its policy.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/queue_reason.h"
#include "sim/core/sharing_model.h"
#include "sim/placement/placement.h"
#include "sim/placement/request_kind.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

// Receives the scheduler's decisions; the engine implements it.
class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual void start(JobSlot job, std::span<const GpuIndex> gpus) = 0;
  // A CPU-only job (JobSpec::gpus 0) on a cluster of nodes: its cores on `node`, no GPU.
  virtual void start_on_node(JobSlot job, NodeIndex node) = 0;
};

class JobStarter {
 public:
  explicit JobStarter(std::unique_ptr<PlacementPolicy> placement);

  const PlacementPolicy& placement() const { return *placement_; }
  bool pooled() const { return pooled_; }
  // Throws std::logic_error with jobs queued.
  void set_pooled(bool pooled);

  // The model whose admission keys group queued jobs by request kind
  // (sim/placement/request_kind.h), when the model has admission by key and the placement
  // places by kind; else none (by_kind() false). Throws std::logic_error with jobs queued.
  void set_model(const SharingModel& model);
  bool by_kind() const { return kind_model_ != nullptr; }
  // Precondition: by_kind().
  RequestKind kind_of(const JobSpec& spec) const { return request_kind(*kind_model_, spec); }

  std::size_t queued() const { return queued_; }
  // Queued CPU-only jobs of a cluster of nodes (not counted on a pooled cluster).
  std::size_t cpu_only_queued() const { return cpu_only_queued_; }
  void count_in(const JobSpec& spec);

  // Where `spec` can start now: its GPUs in chosen(), or a CPU-only job's node in
  // chosen_node(). Not for a pooled cluster (a job fits there by pool amount).
  bool place_now(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                 const JobSpec& spec);
  // True only when place_now() would return false for `spec` now, known without a whole look
  // (PlacementPolicy::surely_refused; a CPU-only job: no node has its cores free).
  bool surely_refused(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                      const JobSpec& spec);
  std::span<const GpuIndex> chosen() const { return chosen_; }
  NodeIndex chosen_node() const { return chosen_node_; }

  // Why `spec` cannot start now, for a queued job a pass just left queued
  // (sim/core/queue_reason.h). On a pooled cluster: kGpus when its GPU amount does not fit
  // what is free, else kCpuCores when its cores do not, else kPolicy (the policy held back a job
  // that fits). A CPU-only job: kCpuCores while no node has its cores free. Else the placement
  // policy's blocked_reason.
  QueueReason blocked_reason(const Cluster& cluster, const SharingModel& model,
                             GpuViewBuilder& views, const JobSpec& spec);

  // Starts the job place_now() just placed, after taking it out of the counts.
  void launch(JobSlot job, const JobSpec& spec, Launcher& launcher);
  // Starts a job that fits a pooled cluster's free amount, after taking it out of the count.
  void launch_pooled(JobSlot job, Launcher& launcher);

 private:
  std::unique_ptr<PlacementPolicy> placement_;
  bool pooled_ = false;
  const SharingModel* kind_model_ = nullptr;
  std::size_t queued_ = 0;
  std::size_t cpu_only_queued_ = 0;
  std::vector<GpuIndex> chosen_;
  NodeIndex chosen_node_ = 0;
};

}  // namespace gpumux
