// The LLM endpoints that share one GPU, simulated together (docs/llm-serving.md "On shared
// GPUs"). An endpoint alone is simulated by itself at the rate its sharing model gives it; when
// several share a GPU, what one engine's iteration costs depends on what the others do at that
// moment, so their iterations are interleaved on one clock here.
//
// Every iteration is a host part (scheduling, input preparation: the performance model's
// split().host_us, when the GPU is free for others) followed by a GPU part (the forward pass,
// taken as one submission: vLLM launches it from CUDA graphs). The GPU part is split by the
// roofline itself: its memory-bound time M is what the same iteration gains at half the
// bandwidth (M = T(B/2) - T(B)), the rest C is compute-bound.
//
// - Concurrent (MPS): the GPU parts in flight run at once. An engine with active-thread share f
//   alone takes D = C/f + M; while running it holds SMs for x = C/D of the device and
//   bandwidth for y = M/D. Engines in flight together all progress at 1/k of their alone speed,
//   k = max(1, sum x, sum y): neither the SMs nor the bandwidth are oversubscribed, and two
//   decode batches (memory-bound) at once each take twice as long.
// - Turns (time-slicing): one context computes at a time, at full speed. A GPU part that
//   becomes ready while another context holds the GPU waits (first come, first served); the
//   holder hands over when its GPU part ends, or when its time slice expires while others wait;
//   loading another context costs switch_us, during which nobody computes.
//
// Other processes on the GPU (not LLM endpoints) are not seen here (documented limitation).
// Times are double microseconds on the run's clock. Deterministic: members are visited in the
// order they joined.
#pragma once

#include <cstddef>
#include <vector>

namespace gpumux {

class LlmReplica;

class LlmGpuGroup {
 public:
  enum class Mode { kConcurrent, kTurns };

  // kTurns: slice_us > 0, switch_us >= 0.
  LlmGpuGroup(Mode mode, double slice_us = 0.0, double switch_us = 0.0);

  Mode mode() const { return mode_; }
  // Runs every member until t_us (non-decreasing).
  void advance_to(double t_us);
  // Members join and leave at the group's current time (advance_to first).
  void join(LlmReplica& member);
  void leave(LlmReplica& member);
  bool empty() const { return members_.empty(); }
  double now() const { return now_; }

  // How often the GPU was handed to another context (time-slicing).
  long long switches() const { return switches_; }
  // What the GPU did while the group had members, microseconds: any GPU part running
  // (busy_us), and SMs and bandwidth in use integrated over time as shares of the device's
  // (sm_us, bandwidth_us: a part holding x of the SMs for t adds x t).
  struct Usage {
    double first_us = -1.0;  // the first join; < 0: never joined
    double span_us = 0.0;    // from the first join to the group's clock
    double busy_us = 0.0;
    double sm_us = 0.0;
    double bandwidth_us = 0.0;
    std::size_t peak_members = 0;
  };
  const Usage& usage() const { return usage_; }

 private:
  enum class Gpu { kIdle, kRunning, kSwitching };
  void set_speeds();
  double own_event() const;
  void handle_own();
  void wants_gpu(LlmReplica* m);
  void released_gpu(LlmReplica* m);
  void grant(LlmReplica* m);
  // The holder gave the GPU up: the first waiting part gets it, else the GPU idles.
  void hand_over();
  // Adds [now_, to) at the current speeds to usage_.
  void account(double to_us);
  // Time-slicing with several GPU parts waiting: whole rounds of the rotation (each part one
  // slice, each hand-over one switch) that end before any part ends, before until_us and before
  // any other member's next event, are taken at once instead of slice by slice. The state after
  // them is the state at a slice's start with the same holder and queue. Returns whether any was.
  bool skip_rounds(double until_us);

  Mode mode_;
  double slice_us_;
  double switch_us_;
  double now_ = 0.0;
  bool advancing_ = false;
  std::vector<LlmReplica*> members_;
  std::vector<char> due_;  // scratch, by member

  // kTurns.
  Gpu gpu_ = Gpu::kIdle;
  LlmReplica* holder_ = nullptr;    // computing, or being switched in
  LlmReplica* resident_ = nullptr;  // whose context is loaded
  double slice_end_ = 0.0;
  double slice_start_ = -1.0;
  double switch_end_ = 0.0;
  std::vector<LlmReplica*> waiting_;  // ready GPU parts, first come first served
  long long switches_ = 0;
  Usage usage_;
};

}  // namespace gpumux
