#include "sim/placement/share_placement.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace gpumux {

SharePlacement::SharePlacement(std::string name, packing::Policy policy, ShareView& view,
                               std::uint64_t seed)
    : name_(std::move(name)),
      view_(view),
      rng_(seed),
      chooser_(policy, packing::TieBreak::kNodeOrder, view.nodes().size(), rng_),
      across_nodes_(make_first_fit_placement()),
      masks_(view.nodes().size(), 0) {}

// What place() asks of every node for one job.
struct SharePlacement::NodeOffer {
  packing::PodDemand pod;
  double need = 0.0;      // the model's room need, or -kUnboundedRoom without a room bound
  int gpu_need = 0;       // milli-GPU left a GPU must have
  std::int64_t cpu = 0;   // hundredths the node must have free (0: none)
};

packing::GpuMask SharePlacement::node_mask(const Cluster& cluster, const SharingModel& model,
                                           GpuViewBuilder& views, const JobSpec& job,
                                           const NodeOffer& offer, NodeIndex n) const {
  packing::GpuMask mask = 0;
  if (!(cluster.node_room(n) >= offer.need) ||
      (offer.cpu > 0 && cluster.cpu_free(n) < offer.cpu)) {
    return mask;
  }
  const packing::NodeState& s = view_.nodes()[n];
  const GpuIndex first = cluster.topology().first_gpu(n);
  for (int i = 0; i < s.num_gpus; ++i) {
    // Cluster::open_room: NaN while unavailable, so the test also leaves those out.
    if (s.gpu_left[static_cast<std::size_t>(i)] < offer.gpu_need ||
        !(cluster.open_room(first + static_cast<GpuIndex>(i)) >= offer.need)) {
      continue;
    }
    if (model.admits(views.view(first + static_cast<GpuIndex>(i)), job)) {
      mask |= packing::GpuMask{1} << i;
    }
  }
  return mask;
}

bool SharePlacement::surely_refused(const Cluster& cluster, const SharingModel& model,
                                    GpuViewBuilder& views, const JobSpec& job) {
  if (!model.admission_by_key() || job.gpus == 0 || job.gpus > cluster.max_gpus_per_node()) {
    return false;
  }
  NodeOffer offer;
  offer.pod = share_demand(job);
  offer.need = job_need(model, job);
  offer.gpu_need = offer.pod.is_share() ? offer.pod.gpu_milli : packing::kGpuMilli;
  offer.cpu = cluster.tracks_cpus() ? job_cpu_hundredths(job) : 0;
  const auto nodes = view_.nodes();
  return refused_.still_refused(request_kind(model, job), cluster.changes(), nodes.size(),
                                [&](NodeIndex n) {
                                  const packing::GpuMask m =
                                      node_mask(cluster, model, views, job, offer, n);
                                  return m != 0 && packing::fits(nodes[n], offer.pod, m);
                                });
}

bool SharePlacement::place(const Cluster& cluster, const SharingModel& model,
                           GpuViewBuilder& views, const JobSpec& job,
                           std::vector<GpuIndex>& out) {
  out.clear();
  if (job.gpus > cluster.max_gpus_per_node()) {
    return across_nodes_->place(cluster, model, views, job, out);
  }
  if (surely_refused(cluster, model, views, job)) return false;
  NodeOffer offer;
  offer.pod = share_demand(job);
  offer.need = job_need(model, job);
  // A node whose milli left cannot take the job needs no `admits`: its mask stays empty.
  offer.gpu_need = offer.pod.is_share() ? offer.pod.gpu_milli : packing::kGpuMilli;
  // The job goes to one node, which must have all its cores free (node CPUs).
  offer.cpu = cluster.tracks_cpus() ? job_cpu_hundredths(job) : 0;
  const packing::PodDemand& pod = offer.pod;
  const auto nodes = view_.nodes();
  bool any = false;
  for (NodeIndex n = 0; n < nodes.size(); ++n) {
    masks_[n] = node_mask(cluster, model, views, job, offer, n);
    any = any || (masks_[n] != 0 && packing::fits(nodes[n], pod, masks_[n]));
  }
  // The chooser picks only among nodes that fit: with none, its answer is known (and it draws
  // nothing from the RNG then).
  if (!any) {
    if (model.admission_by_key()) {
      refused_.refused(request_kind(model, job), cluster.changes().now());
    }
    return false;
  }
  const packing::NodeChoice c = chooser_.choose(nodes, view_.units(), view_.versions(),
                                                view_.fragmentation(), pod, masks_, rng_);
  if (c.node < 0) return false;
  const GpuIndex first = cluster.topology().first_gpu(static_cast<NodeIndex>(c.node));
  if (pod.is_share()) {
    out.push_back(first + static_cast<GpuIndex>(c.share_gpu));
    return true;
  }
  std::array<std::int8_t, packing::kMaxGpusPerNode> gpus{};
  const int n = packing::whole_gpus(nodes[static_cast<std::size_t>(c.node)], pod.num_gpus,
                                    masks_[static_cast<std::size_t>(c.node)], gpus);
  for (int i = 0; i < n; ++i) out.push_back(first + static_cast<GpuIndex>(gpus[static_cast<std::size_t>(i)]));
  return true;
}

void SharePlacement::tally_node(const Cluster& cluster, GpuRefusals& refusals, int gpu_need,
                                std::int64_t cpu, NodeIndex n, BlockedTally& tally) const {
  const packing::NodeState& s = view_.nodes()[n];
  const GpuIndex first = cluster.topology().first_gpu(n);
  std::int64_t taken = 0;
  for (int i = 0; i < s.num_gpus; ++i) {
    const GpuIndex g = first + static_cast<GpuIndex>(i);
    QueueReason why{};
    // Cluster::open_room: NaN while out of service (counted as such by `refusals`).
    const bool in_service = !std::isnan(cluster.open_room(g));
    if (in_service && s.gpu_left[static_cast<std::size_t>(i)] < gpu_need) {
      ++tally.refused[static_cast<std::size_t>(QueueReason::kGpus)];
    } else if (refusals.takes(g, why)) {
      ++taken;
    } else {
      ++tally.refused[static_cast<std::size_t>(why)];
    }
  }
  // The job goes to one node, which must have all its cores free.
  if (cpu > 0 && cluster.cpu_free(n) < cpu) {
    tally.refused[static_cast<std::size_t>(QueueReason::kCpuCores)] += taken;
  } else {
    tally.passing += taken;
  }
}

QueueReason SharePlacement::blocked_reason(const Cluster& cluster, const SharingModel& model,
                                           GpuViewBuilder& views, const JobSpec& job) {
  if (job.gpus > cluster.max_gpus_per_node()) {
    return across_nodes_->blocked_reason(cluster, model, views, job);
  }
  const packing::PodDemand pod = share_demand(job);
  const int gpu_need = pod.is_share() ? pod.gpu_milli : packing::kGpuMilli;
  const std::int64_t cpu = cluster.tracks_cpus() ? job_cpu_hundredths(job) : 0;
  const std::size_t nodes = view_.nodes().size();
  GpuRefusals refusals(cluster, model, views, job);
  const NodeChangeLog& log = cluster.changes();
  const bool by_key = model.admission_by_key();
  const RequestKind kind = by_key ? request_kind(model, job) : RequestKind{};
  if (by_key && tally_kept_ && tally_kind_ == kind && log.touches_since(tally_at_) <= 8 * nodes) {
    // Recount the nodes changed since: each node's part replaces its old one.
    log.visit_since(tally_at_, [&](NodeIndex n) {
      BlockedTally& part = node_tally_[n];
      for (std::size_t r = 0; r < kQueueReasonCount; ++r) tally_.refused[r] -= part.refused[r];
      tally_.passing -= part.passing;
      part = BlockedTally{};
      tally_node(cluster, refusals, gpu_need, cpu, n, part);
      for (std::size_t r = 0; r < kQueueReasonCount; ++r) tally_.refused[r] += part.refused[r];
      tally_.passing += part.passing;
      return true;
    });
  } else {
    node_tally_.resize(nodes);
    tally_ = BlockedTally{};
    for (NodeIndex n = 0; n < nodes; ++n) {
      BlockedTally& part = node_tally_[n];
      part = BlockedTally{};
      tally_node(cluster, refusals, gpu_need, cpu, n, part);
      for (std::size_t r = 0; r < kQueueReasonCount; ++r) tally_.refused[r] += part.refused[r];
      tally_.passing += part.passing;
    }
  }
  tally_kept_ = by_key;
  tally_kind_ = kind;
  tally_at_ = log.now();
  // Enough GPUs pass but the policy found no node for the job: kGang.
  return first_binding_reason(tally_, static_cast<std::int64_t>(cluster.gpu_count()), job.gpus);
}

}  // namespace gpumux
