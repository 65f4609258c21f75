// The cluster as the FGD study's policies see it (sim/placement/fgd/node_state.h): per node, the milli-GPU
// left on each GPU (1000 less the compute shares, JobSpec::gpu_milli, of the jobs on it) and
// the kinds of jobs placed there, with each node's fragmentation (sim/placement/fgd/fragmentation.h)
// against the typical jobs of the run's workload. Kept up to date as an engine observer, in
// O(GPUs of the job) per start and end, so that a placement decision or a time-series sample
// reads it without rebuilding it.
//
// The view has no CPUs or host memory: every node has the study's largest CPU spec
// (kMaxSpecCpuMilli, never consumed) and unbounded host memory, and jobs ask for no CPU, so the
// CPU terms of the policies' scores are the same on every node and only GPUs decide (node CPUs,
// where declared, only leave nodes out: sim/placement/share_placement.h). Each
// device type of the cluster is one GPU model; jobs accept every model.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/placement/fgd/fragmentation.h"
#include "sim/placement/fgd/node_state.h"
#include "sim/placement/fgd/policy.h"
#include "sim/state/cluster.h"
#include "sim/state/job_table.h"
#include "sim/state/observer.h"

namespace gpumux {

// A job's demand in the policies' terms.
packing::PodDemand share_demand(const JobSpec& job);

// The jobs of a workload counted by kind, (gang size, gpu_milli): all the typical pods need
// (every other part of their key is the same for every job in `run`). Memory grows with the
// distinct kinds, not the jobs, so a trace can be counted as it streams.
class JobKindCounts {
 public:
  void add(const JobSpec& job) { ++counts_[{job.gpus, job.gpu_milli}]; }
  std::size_t kinds() const { return counts_.size(); }
  // The typical pods (packing::select_typical_pods) of the jobs counted, as
  // packing::compute_typical_pods gives them for the same jobs as pods.
  packing::TypicalPods typical_pods(const packing::GpuModelTable& models) const;

 private:
  std::map<std::pair<int, int>, std::int64_t> counts_;  // (gpus, gpu_milli) -> jobs
};

class ShareView : public EngineObserver {
 public:
  // `workload` gives the typical pods (usually every job of the trace). Throws InputError
  // (naming `where`) when a node has more than packing::kMaxGpusPerNode GPUs.
  ShareView(const Cluster& cluster, const JobKindCounts& workload, const std::string& where);

  void on_job_started(Time now, const ActiveJob& job) override;
  void on_job_finished(Time now, const ActiveJob& job) override;
  void on_job_killed(Time now, const ActiveJob& job, double lost_work_us) override;

  std::span<const packing::NodeState> nodes() const { return nodes_; }
  std::span<const std::int64_t> units() const { return units_; }
  std::span<const std::uint32_t> versions() const { return versions_; }
  const packing::FragmentationModel& fragmentation() const { return frag_; }
  std::size_t typical_pod_kinds() const { return typical_.pods.size(); }

  std::int64_t total_milli() const { return total_milli_; }
  std::int64_t allocated_milli() const { return allocated_milli_; }
  // The cluster's fragmentation (sum over nodes), in milli-GPU.
  double fragmentation_milli() const {
    return static_cast<double>(units_total_) / static_cast<double>(frag_.denominator());
  }

 private:
  struct Held {
    std::vector<GpuIndex> gpus;
    int milli = 0;
    std::size_t tag = 0;
  };
  void change(const std::vector<GpuIndex>& gpus, int milli, std::size_t tag, int sign);

  const Cluster& cluster_;
  packing::GpuModelTable models_;
  packing::TypicalPods typical_;
  packing::FragmentationModel frag_;
  std::vector<packing::NodeState> nodes_;
  std::vector<std::int64_t> units_;
  std::vector<std::uint32_t> versions_;
  std::int64_t units_total_ = 0;
  std::int64_t total_milli_ = 0;
  std::int64_t allocated_milli_ = 0;
  std::unordered_map<std::uint64_t, Held> held_;  // running jobs by ordinal
};

}  // namespace gpumux
