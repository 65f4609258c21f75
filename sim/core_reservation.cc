#include "sim/core_reservation.h"

#include <algorithm>
#include <functional>

namespace gpumux {

std::int64_t CoreReservation::contribution(NodeIndex n) const {
  if (gang_ == 0) return cluster_->declares_cpus(n) && free_[n] >= cpu_ ? 1 : 0;
  // floor(free x gang / cpu), as Cluster::gpus_within_cpus: no overflow (see cluster.cc).
  return std::min(empty_[n], free_[n] * gang_ / cpu_);
}

void CoreReservation::change(NodeIndex n, std::int64_t gpus, std::int64_t cores) {
  total_ -= contribution(n);
  empty_[n] = std::max<std::int64_t>(0, empty_[n] + gpus);
  free_[n] += cores;
  total_ += contribution(n);
}

template <class F>
void CoreReservation::for_each_share(std::span<const GpuIndex> gpus, std::int64_t cpu, F&& f) {
  const auto gang = static_cast<std::int64_t>(gpus.size());
  for (GpuIndex g : gpus) ++on_node_[cluster_->gpu(g).node];
  for (GpuIndex g : gpus) {
    const NodeIndex n = cluster_->gpu(g).node;
    const std::int64_t k = on_node_[n];
    if (k == 0) continue;  // this node is already counted
    on_node_[n] = 0;
    // ceil(cpu x k / gang): the node's share, as Cluster::take_cpus counts it.
    f(n, k, cpu > 0 ? (cpu * k + gang - 1) / gang : 0);
  }
}

Time CoreReservation::reserve(const JobSpec& head, const Cluster& cluster, const JobTable& jobs,
                              const std::vector<JobSlot>& running) {
  cluster_ = &cluster;
  gang_ = head.gpus;
  cpu_ = job_cpu_hundredths(head);
  need_ = std::max(gang_, 1);
  const std::size_t nodes = cluster.node_count();
  empty_.resize(nodes);
  free_.resize(nodes);
  on_node_.assign(nodes, 0);
  total_ = 0;
  for (NodeIndex n = 0; n < nodes; ++n) {
    empty_[n] = cluster.empty_gpus(n);
    free_[n] = cluster.cpu_free(n);
    total_ += contribution(n);
  }
  if (fits()) return Time::zero();
  releases_.clear();
  for (JobSlot s : running) releases_.emplace_back(jobs[s].expected_finish, s);
  // A min-heap: only the releases up to the shadow time are ordered.
  std::make_heap(releases_.begin(), releases_.end(), std::greater<>());
  while (!releases_.empty()) {
    std::pop_heap(releases_.begin(), releases_.end(), std::greater<>());
    const auto [when, slot] = releases_.back();
    releases_.pop_back();
    const ActiveJob& job = jobs[slot];
    const std::int64_t cpu = job_cpu_hundredths(job.spec);
    if (job.gpus.empty()) {
      change(job.cpu_node, 0, cpu);  // a CPU-only job's cores on its node
    } else {
      for_each_share(job.gpus, cpu, [&](NodeIndex n, std::int64_t k, std::int64_t share) {
        change(n, k, share);
      });
    }
    if (fits()) return when;
  }
  return Time::infinity();
}

bool CoreReservation::hold_if_spare(std::span<const GpuIndex> gpus, NodeIndex node,
                                    std::int64_t cpu) {
  if (gpus.empty()) {
    change(node, 0, -cpu);
    if (fits()) return true;
    change(node, 0, cpu);
    return false;
  }
  // GPUs are taken back at most to 0 per node: undo by recounting from saved values.
  held_.clear();
  for_each_share(gpus, cpu, [&](NodeIndex n, std::int64_t k, std::int64_t share) {
    held_.push_back(Held{n, empty_[n], free_[n]});
    change(n, -k, -share);
  });
  if (fits()) return true;
  for (const Held& h : held_) {
    total_ -= contribution(h.node);
    empty_[h.node] = h.empty;
    free_[h.node] = h.free;
    total_ += contribution(h.node);
  }
  return false;
}

}  // namespace gpumux
