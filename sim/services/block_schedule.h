// The block schedule a service's requests meet on an MPS GPU (docs/services.md "Requests under
// MPS"): the rules of the block-level MPS reference
// (bench/validation/mps/lib/mps_block_reference.h), simulated only around the service's own
// bursts.
//
// - The GPU has `sms` SMs; a kernel is `blocks` thread blocks of one SM each, and a client may
//   hold at most `cap` SMs at once. Kernels queue in launch order; whenever SMs free up or a
//   kernel is launched, each queued kernel in turn takes the free SMs it may (blocks are never
//   preempted), and a kernel that cannot start all its blocks runs the rest in later waves.
// - A block lasts its kernel's length alone, stretched by (1 + interference x the share of SMs
//   the other clients hold when it starts).
// - The other clients alternate kernels and CPU gaps (means from duty cycle and kernel length,
//   fixed or exponential, gaps at least the launch gap).
// - The service's burst (a batch of requests) is ONE kernel of service_blocks blocks lasting the
//   burst's work alone: its kernels are queued back to back and, at batch 1, each uses the same
//   few SMs (its sm_share), so the burst holds those SMs for its whole length.
//
// So a request's latency is its work alone, stretched by interference, plus the wait for SMs:
// beside a co-runner whose kernels hold every SM it waits for their blocks to end; beside one
// that leaves room it starts at once. After an idle stretch longer than `horizon` the others
// restart `horizon` before the burst in their stationary state (each in a kernel or a gap with
// a residual length, independently), so a request costs the events of a few of their kernels
// however rarely they launch; their throughput comes from the sharing model's fluid rates, not
// from here. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/service_gpu_context.h"
#include "sim/services/burst_schedule.h"

namespace gpumux {

class BlockSchedule : public BurstSchedule {
 public:
  explicit BlockSchedule(std::uint64_t seed) : BurstSchedule(seed) {}

  // The GPU's clients from t_us on: the others restart in their stationary state at t_us.
  // Preconditions: the BlockContext field contracts (service_gpu_context.h).
  void reset(double t_us, const BlockContext& context);

 private:
  // Blocks of one client that started together (and so end together).
  struct Group {
    double end = 0;
    std::uint64_t order = 0;  // start order: equal ends come out in it
    int client = 0;
    int blocks = 0;
  };
  // Min-heap order on (end, client, order): the next group to end on top; equal ends go by
  // client, as the reference breaks ties (fixed lengths lock into patterns that depend on it).
  static bool later(const Group& a, const Group& b) {
    if (a.end != b.end) return a.end > b.end;
    if (a.client != b.client) return a.client > b.client;
    return a.order > b.order;
  }
  struct Client {
    double kernel_us = 0;  // mean kernel alone (the others)
    double gap_us = 0;     // mean CPU gap (the others); 0: launches at once
    int blocks = 1;
    int cap = 1;
    bool launched = false;  // a kernel queued or running
    int waiting = 0;        // blocks not started
    int held = 0;           // SMs held now
    double block_us = 0;    // this kernel's block length alone
    double ready_at = 0;    // next launch, while not launched (the others)
  };

  // The others restart in their stationary state.
  void restart_others(double t_us) override;
  // The burst is one kernel of the service's blocks, queued behind the others' launches.
  void start_burst(double work_us) override;
  double run(double until_us, bool until_service) override;
  void launch(int who, double block_us);
  void dispatch();

  int sms_ = 1;
  double interference_ = 0;
  std::vector<Client> clients_;  // [0] the service, then the others
  std::vector<int> queue_;       // launched kernels with blocks not started, launch order
  // Every running group of blocks, a heap (later): contended kernels start in many small
  // groups as SMs free up one by one, so the next end is found in O(log groups).
  std::vector<Group> groups_;
  std::uint64_t started_groups_ = 0;
  int free_sms_ = 1;
};

}  // namespace gpumux
