#include "sim/placement/share_view.h"

#include <algorithm>
#include <limits>

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

// The GpuClustering kind of a job: 0 for a share of one GPU, else its GPU count.
std::size_t tag_of(const JobSpec& job) {
  if (job.gpus == 1 && job.gpu_milli < packing::kGpuMilli) return 0;
  return static_cast<std::size_t>(std::min(job.gpus, packing::kMaxGpusPerNode));
}

packing::GpuModelTable device_models(const Cluster& cluster) {
  packing::GpuModelTable t;
  for (const auto& d : cluster.devices()) t.intern(d.name, "device '" + d.name + "'");
  return t;
}

}  // namespace

packing::PodDemand share_demand(const JobSpec& job) {
  packing::PodDemand d;
  d.cpu_milli = 0;
  d.score_cpu_milli = 100;  // Kubernetes' scoring view of a pod without a CPU request
  d.memory_mib = 0;
  d.num_gpus = job.gpus;
  d.gpu_milli = job.gpu_milli;
  d.any_model = true;
  return d;
}

packing::TypicalPods JobKindCounts::typical_pods(const packing::GpuModelTable& models) const {
  std::vector<packing::TypicalPod> groups;
  groups.reserve(counts_.size());
  for (const auto& [kind, count] : counts_) {
    packing::PodSpec pod;  // no CPU, no memory, any GPU model: a job of `run` as a pod
    pod.num_gpus = kind.first;
    pod.gpu_milli = kind.second;
    groups.push_back({packing::make_demand(pod, models), std::string(), count});
  }
  return packing::select_typical_pods(std::move(groups));
}

ShareView::ShareView(const Cluster& cluster, const JobKindCounts& workload,
                     const std::string& where)
    : cluster_(cluster),
      models_(device_models(cluster)),
      typical_(workload.typical_pods(models_)),
      frag_(typical_, static_cast<int>(models_.names().size())) {
  nodes_.reserve(cluster.node_count());
  for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
    const NodeSpec& spec = cluster.node(n);
    if (spec.gpus > packing::kMaxGpusPerNode) {
      throw InputError(where, "placement",
                       "the share-aware placement policies handle nodes of at most " +
                           std::to_string(packing::kMaxGpusPerNode) + " GPUs; node '" +
                           spec.name + "' has " + std::to_string(spec.gpus));
    }
    packing::NodeState s;
    s.cpu_capacity = s.cpu_left = packing::kMaxSpecCpuMilli;
    s.memory_left_mib = std::numeric_limits<std::int64_t>::max() / 4;
    s.num_gpus = spec.gpus;
    // A node without GPUs (a CPU pool's) has no GPU model, as the openb list's CPU nodes.
    s.model = spec.gpus == 0 ? packing::NodeState::kNoModel : spec.device;
    for (int g = 0; g < spec.gpus; ++g) s.gpu_left[static_cast<std::size_t>(g)] = packing::kGpuMilli;
    nodes_.push_back(s);
    units_.push_back(frag_.units(s));
    units_total_ += units_.back();
    total_milli_ += std::int64_t{spec.gpus} * packing::kGpuMilli;
  }
  versions_.assign(nodes_.size(), 1);
}

void ShareView::change(const std::vector<GpuIndex>& gpus, int milli, std::size_t tag, int sign) {
  const Topology& topo = cluster_.topology();
  NodeIndex last = static_cast<NodeIndex>(-1);
  for (GpuIndex g : gpus) {
    const NodeIndex n = cluster_.gpu(g).node;
    packing::NodeState& s = nodes_[n];
    const auto i = static_cast<std::size_t>(g - topo.first_gpu(n));
    s.gpu_left[i] -= sign * milli;
    allocated_milli_ += sign * milli;
    if (n != last) {  // a job counts once per node for GpuClustering
      if (sign > 0 && s.affinity[tag]++ == 0) ++s.affinity_kinds;
      if (sign < 0 && --s.affinity[tag] == 0) --s.affinity_kinds;
      last = n;
    }
  }
  // Units after all GPUs of a node changed (a gang's GPUs are adjacent in `gpus` per node).
  last = static_cast<NodeIndex>(-1);
  for (GpuIndex g : gpus) {
    const NodeIndex n = cluster_.gpu(g).node;
    if (n == last) continue;
    last = n;
    const std::int64_t u = frag_.units(nodes_[n]);
    units_total_ += u - units_[n];
    units_[n] = u;
    ++versions_[n];
  }
}

void ShareView::on_job_started(Time, const ActiveJob& job) {
  Held h{job.gpus, job.spec.gpu_milli, tag_of(job.spec)};
  change(h.gpus, h.milli, h.tag, +1);
  held_[job.ordinal] = std::move(h);
}

void ShareView::on_job_finished(Time, const ActiveJob& job) {
  auto it = held_.find(job.ordinal);
  if (it == held_.end()) return;
  change(it->second.gpus, it->second.milli, it->second.tag, -1);
  held_.erase(it);
}

void ShareView::on_job_killed(Time now, const ActiveJob& job, double) {
  on_job_finished(now, job);
}

}  // namespace gpumux
