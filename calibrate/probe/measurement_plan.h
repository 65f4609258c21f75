// Which measurements a probe run makes, in which order, and what the time budget leaves out.
//
// Candidates are considered in priority order (solo kernels, identical pairs, capped MPS
// pairs, mixed pairs, containment, triples); each is kept when its estimated duration still
// fits the budget, else recorded as skipped, and smaller later ones may still fit. The kept
// items are then ordered for execution: solo, then every time-slicing item, then every MPS
// item (one daemon for all of them) with the fault test last, because a fault tears the MPS
// server down.
#pragma once

#include <string>
#include <vector>

#include "calibrate/probe/probe_options.h"

namespace gpumux::calibration {

// One measured process: its kernel footprint, kernel length alone and nominal duty.
struct MemberSpec {
  int blocks = 1;  // one block per SM
  double kernel_us = 0;
  double duty = 1;
};

enum class ItemKind { kSolo, kSet, kMemoryContainment, kFaultContainment };

struct PlanItem {
  ItemKind kind = ItemKind::kSet;
  std::string mode;                     // "timeslice" or "mps"; empty for kSolo
  int active_thread_pct = 100;          // MPS cap of every member (100 = none)
  std::string name;                     // unique: set name ("mps_atp50-pair2") or item label
  std::vector<MemberSpec> members;      // kSet: the processes that run together
  std::vector<MemberSpec> alone_first;  // kSet: members' alone runs not measured earlier
  std::vector<MemberSpec> solo_points;  // kSolo: kernels timed alone
  double estimate_s = 0;
};

struct SkippedItem {
  std::string name;
  std::string reason;
  double estimate_s = 0;
};

// Duration model behind the estimates (seconds). Defaults are generous for a data-centre
// GPU: a process start includes creating its CUDA context (and connecting to MPS).
struct PlanTimes {
  double spawn_s = 1.0;                 // fork + context creation + warm-up kernels
  double mps_start_s = 3.0;             // starting and later quitting the MPS daemon
  double reserve_s = 3.0;               // device query and writing outputs
  double memory_test_s = 3.0;           // containment (a), after spawn
  double fault_test_timeslice_s = 4.0;  // containment (b), after spawn
  double fault_test_mps_s = 12.0;       // MPS teardown takes seconds (docs/gpu-facts.md)
};

struct PlanContext {
  int sm_count = 132;
  int compute_mode = 0;  // cudaComputeMode of the device (0 default)
  PlanTimes times;
};

struct MeasurementPlan {
  std::vector<PlanItem> items;  // in execution order
  std::vector<SkippedItem> skipped;
  double estimate_s = 0;  // items + reserve + MPS start when any MPS item is kept
};

MeasurementPlan build_plan(const ProbeOptions& options, const PlanContext& context);

// Seconds one loop measurement of `m` takes after its process is ready: warm-up, window
// and a tail that keeps it loading its neighbours until they finish counting.
double loop_seconds(const ProbeOptions& options, const MemberSpec& m);
// Tail after the window (seconds): two of the member's loop periods, at least 20 ms.
double tail_seconds(const MemberSpec& m);

// Solo points: footprints 1, 1/8 .. 1 of the SMs, and 1 SM and 2x beyond (two waves), for
// every kernel length.
std::vector<MemberSpec> solo_points(const ProbeOptions& options, int sm_count);
// Kernels timed per solo point: about 0.1 s of them, between 20 and 2000.
int solo_repeats(double kernel_us);

// "timeslice", "mps", "mps_atp50": the set-name prefix of a mode and cap.
std::string mode_label(const std::string& mode, int active_thread_pct);

// Text listing of the plan (one line per item, then the skipped ones), for --dry-run.
std::string describe_plan(const MeasurementPlan& plan, int sm_count);

}  // namespace gpumux::calibration
