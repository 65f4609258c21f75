// fifo-backfill's reservation for a blocked head that asks for node CPU cores (a cluster of
// nodes with CPUs, Cluster::tracks_cpus, and a head whose JobSpec::cpus rounds above 0): the
// shadow time counts cores as well as GPUs, per node, so that a head waiting for cores (not
// GPUs) is not passed by backfilled jobs that take the cores it waits for.
//
// The count, per node n, at a moment: GPUs empty E(n) and cores free F(n) (hundredths). A head
// of G >= 1 GPUs asking for C hundredths fits by count when the sum over nodes of
// min(E(n), floor(F(n) x G / C)) reaches G (a node takes only the GPUs whose share of the
// cores it has, as placement counts them); a CPU-only head (G = 0) when some node that declares
// CPUs has F(n) >= C. The shadow time is the earliest expected finish (ActiveJob::
// expected_finish, from current rates) after which, with every running job finished by then
// gone (its GPUs empty and its cores free on its nodes), the head fits by count. As the GPU-only
// reservation, it is an estimate: a released GPU counts as empty even if others share it, and
// topology and the sharing model's admission are not looked at.
//
// A backfill candidate that would still run at the shadow time may start only if the head
// still fits by count with the candidate held then, wherever placement puts it: the test is a
// bound, checked before placement (which is the costly part of a pass, as in the GPU-only
// reservation). A candidate of at most one GPU takes from the head's count at most
// max(its GPUs, ceil(its cores x G / C)) (on a node, min(E - k, floor((F - s) G / C)) >=
// min(E, floor(F G / C)) - max(k, ceil(s G / C))); one of g >= 2 GPUs, which placement may
// spread over up to g nodes, at most 2g + ceil((its cores + g) x G / C). For a CPU-only head a
// candidate with cores removes at most one fitting node per node it touches (1, or g). Once
// started, the candidate's actual GPUs and cores are counted as held (hold).
//
// Cost: O(nodes + running jobs) to set up, O(log running) per release counted (a heap), O(1)
// per spare test and O(the candidate's GPUs) per hold. No allocation once the scratch has grown.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/state/cluster.h"
#include "sim/state/job_table.h"

namespace gpumux {

class CoreReservation {
 public:
  // The shadow time for `head` (which must ask for cores, see above) from the cluster's state
  // now and the running jobs: Time::zero() when it fits by count now (it is blocked by something
  // else), Time::infinity() when it never does. Resets the counts hold() updates.
  Time reserve(const JobSpec& head, const Cluster& cluster, const JobTable& jobs,
               const std::vector<JobSlot>& running);

  // Whether a job of `gpus` GPUs (0: CPU-only) asking for `cpu` hundredths, started now and
  // still running at the shadow time, surely leaves the head able to fit by count then (the
  // bound above). Precondition: reserve() was called with the same cluster during this pass.
  bool surely_spare(int gpus, std::int64_t cpu) const;
  // Counts a job just started that will still run at the shadow time as held then: on `gpus`
  // holding `cpu` hundredths, or, with no GPUs (a CPU-only job), `cpu` hundredths on `node`.
  void hold(std::span<const GpuIndex> gpus, NodeIndex node, std::int64_t cpu);

 private:
  // What node n adds to the head's count (usable GPUs; for a CPU-only head 1 when it can
  // hold it).
  std::int64_t contribution(NodeIndex n) const;
  // Adds `gpus` empty GPUs (at least 0 left) and `cores` free hundredths to node n's count.
  void change(NodeIndex n, std::int64_t gpus, std::int64_t cores);
  // Calls f(node, gpus on it, its share of `cpu`) for each node of `gpus` (Cluster's shares).
  template <class F>
  void for_each_share(std::span<const GpuIndex> gpus, std::int64_t cpu, F&& f);
  bool fits() const { return total_ >= need_; }

  const Cluster* cluster_ = nullptr;
  int gang_ = 0;
  std::int64_t cpu_ = 0;
  std::int64_t need_ = 0;
  std::int64_t total_ = 0;
  std::vector<std::int64_t> empty_;  // per node: GPUs empty at the moment counted
  std::vector<std::int64_t> free_;   // per node: hundredths free then
  std::vector<int> on_node_;         // for_each_share scratch, zero between calls
  std::vector<std::pair<Time, JobSlot>> releases_;  // a min-heap by expected finish
};

}  // namespace gpumux
