// Measured job speeds on MIG profiles, in the layout of ../shared/data/miso-a100-mig/ (MISO,
// SoCC'22, A100-40GB): a workloads file with what a trace can carry of each workload, measured
// on the whole GPU, and a speeds file with its speed on each profile relative to the largest.
//
// WORKLOADS.csv columns (any order; others, e.g. memory_mib, iter_s_7g, profiles_measured, are
// read past):
//   workload          family name (e.g. resnet); with batch, the key
//   batch             integer >= 1
//   sm_util_pct       SM (duty-cycle) utilization alone on the whole GPU, (0, 100]
//   mem_bw_util_pct   memory-bandwidth utilization alone on the whole GPU, [0, 100]; 0 reads
//                     as not measured, as the trace field mem_bw_util does
// SPEEDS.csv columns (any order; others, e.g. median_iter_s, batches_measured, read past):
//   workload, batch   a key of WORKLOADS.csv
//   profile           a MIG profile of the device (e.g. 1g.5gb)
//   speed_vs_7g       speed on the profile / speed on the device's largest profile, (0, 2]
#pragma once

#include <string>
#include <vector>

namespace gpumux::calibration {

struct MigWorkload {
  std::string workload;
  int batch = 0;
  double sm_util = 1.0;      // fraction, from sm_util_pct
  double mem_bw_util = 0.0;  // fraction, from mem_bw_util_pct
  int line = 0;
};

struct MigSpeedRow {
  std::string workload, profile;
  int batch = 0;
  double speed = 0.0;      // speed_vs_7g
  int workload_index = 0;  // into MigSpeedData::workloads
  int line = 0;
};

struct MigSpeedData {
  std::string speeds_file, workloads_file;
  std::vector<MigWorkload> workloads;
  std::vector<MigSpeedRow> rows;  // in file order
};

// Reads and checks both files. Throws InputError naming file:line and the field for a missing
// file or column, a malformed row or value, a workload key given twice, and a speeds row whose
// workload and batch the workloads file does not have. Profile names are checked against a
// device by the prediction (mig_speed_fit.h). Blank and '#' lines are skipped.
MigSpeedData read_mig_speeds(const std::string& speeds_csv, const std::string& workloads_csv);

// The families present (workload names), in order of first appearance in the speeds file.
std::vector<std::string> mig_speed_families(const MigSpeedData& data);

}  // namespace gpumux::calibration
