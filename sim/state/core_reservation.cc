#include "sim/state/core_reservation.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

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

bool CoreReservation::surely_spare(int gpus, std::int64_t cpu) const {
  std::int64_t most_taken = 0;  // the most the job can take from the head's count
  if (gang_ == 0) {
    if (cpu > 0) most_taken = gpus <= 1 ? 1 : gpus;
  } else if (gpus <= 1) {
    // ceil(cpu x G / C): as in contribution(), no overflow.
    most_taken = std::max<std::int64_t>(gpus, (cpu * gang_ + cpu_ - 1) / cpu_);
  } else {
    most_taken = 2 * std::int64_t{gpus} + ((cpu + gpus) * gang_ + cpu_ - 1) / cpu_;
  }
  return total_ - need_ >= most_taken;
}

void CoreReservation::hold(std::span<const GpuIndex> gpus, NodeIndex node, std::int64_t cpu) {
  if (gpus.empty()) {
    change(node, 0, -cpu);
  } else {
    for_each_share(gpus, cpu, [&](NodeIndex n, std::int64_t k, std::int64_t share) {
      change(n, -k, -share);
    });
  }
  if (!fits()) throw std::logic_error("core reservation: a spare job took the head's room");
}

}  // namespace gpumux
