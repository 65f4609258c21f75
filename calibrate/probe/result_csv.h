// The probe's CSV outputs. overlap.csv has exactly the schema of the H200 reference data
// (shared data README, "H200 overlap"), so gpumux's calibration reads both alike.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpumux::calibration {

// One process of a measured set.
struct OverlapResultRow {
  std::string mode;       // "timeslice" or "mps"
  std::string set;        // rows with the same set ran together
  int member = 0;         // 0-based index in the set
  std::string device;     // profile name (device_naming.h)
  double sm_share = 0;    // blocks / SM count
  double kernel_us = 0;   // nominal kernel length alone
  double duty = 0;        // nominal duty
  double alone_duty = 0;  // measured busy fraction alone
  int active_thread_pct = 100;
  double speed = 0;  // kernels/s together / kernels/s alone
};

// One kernel alone (solo.csv).
struct SoloRow {
  double sm_share = 0;  // blocks / SM count; above 1 when the kernel needs several waves
  int blocks = 0;
  double kernel_us_nominal = 0;
  double kernel_us_measured = 0;
  double launch_overhead_us = 0;
};

extern const char* const kOverlapCsvHeader;
extern const char* const kSoloCsvHeader;

// Writes the header line and one line per row, in the given order. Numbers: sm_share,
// alone_duty and speed with 4 decimals; kernel_us and duty in their shortest form with at
// least one decimal for duty ("0.5", "1.0"), as in the reference data.
void write_overlap_csv(std::ostream& out, const std::vector<OverlapResultRow>& rows);
void write_solo_csv(std::ostream& out, const std::vector<SoloRow>& rows);

// Shortest decimal form of `value` (up to 6 significant digits); with `min_one_decimal`
// an integral value gets ".0".
std::string format_number(double value, bool min_one_decimal);

}  // namespace gpumux::calibration
