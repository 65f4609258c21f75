// Measured kernel overlap: speeds of sets of processes sharing one GPU, as written by the probe
// (`gpumux-probe`, calibrate/) and as in ../shared/data/h200/overlap_train.csv.
//
// CSV columns (any order, all required):
//   mode               timeslice (default compute mode) | mps
//   set                rows with the same set ran together
//   member             index within the set
//   device             a device profile name (e.g. H200-141GB)
//   sm_share           SMs its kernel occupies / SMs of the GPU, (0, 1]
//   kernel_us          kernel length alone, us, > 0
//   duty               nominal duty cycle, (0, 1] (the CPU gap after each kernel is
//                      kernel_us * (1 - duty) / duty)
//   alone_duty         measured busy fraction alone (launch + synchronise included), (0, 1]
//   active_thread_pct  MPS active-thread cap of every member, [1, 100] (100 without MPS)
//   speed              kernels/s together / kernels/s alone (same mode and cap), > 0
#pragma once

#include <string>
#include <vector>

namespace gpumux::calibration {

struct OverlapRow {
  std::string mode, set, device;
  int member = 0;
  double sm_share = 1.0, kernel_us = 0.0, duty = 1.0, alone_duty = 1.0;
  double active_thread_pct = 100.0;
  double speed = 0.0;
  int line = 0;  // 1-based line in the file, for messages
};

// The rows of one set, in file order.
struct OverlapSet {
  std::string name, mode;
  std::vector<int> rows;  // indices into OverlapData::rows
};

struct OverlapData {
  std::string file;
  std::vector<OverlapRow> rows;
  std::vector<OverlapSet> sets;  // in order of first appearance
};

// Reads and checks a measurement file. Throws InputError naming file:line and the field for a
// missing column, a bad value, an unknown mode, a set whose rows disagree on mode, device or
// active-thread cap, or a duplicated member. Blank and '#' lines are skipped.
OverlapData read_overlap_csv(const std::string& path);

// The modes present, in {"timeslice", "mps"} order.
std::vector<std::string> overlap_modes(const OverlapData& data);

}  // namespace gpumux::calibration
