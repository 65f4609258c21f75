#include "calibrate/probe/result_csv.h"

#include <cmath>
#include <cstdio>

namespace gpumux::calibration {

const char* const kOverlapCsvHeader =
    "mode,set,member,device,sm_share,kernel_us,duty,alone_duty,active_thread_pct,speed";
const char* const kSoloCsvHeader =
    "sm_share,blocks,kernel_us_nominal,kernel_us_measured,launch_overhead_us";

namespace {

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

}  // namespace

std::string format_number(double value, bool min_one_decimal) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  std::string s = buf;
  if (min_one_decimal && std::isfinite(value) && s.find_first_of(".e") == std::string::npos) {
    s += ".0";
  }
  return s;
}

void write_overlap_csv(std::ostream& out, const std::vector<OverlapResultRow>& rows) {
  out << kOverlapCsvHeader << '\n';
  for (const OverlapResultRow& r : rows) {
    out << r.mode << ',' << r.set << ',' << r.member << ',' << r.device << ','
        << fixed(r.sm_share, 4) << ',' << format_number(r.kernel_us, false) << ','
        << format_number(r.duty, true) << ',' << fixed(r.alone_duty, 4) << ','
        << r.active_thread_pct << ',' << fixed(r.speed, 4) << '\n';
  }
}

void write_solo_csv(std::ostream& out, const std::vector<SoloRow>& rows) {
  out << kSoloCsvHeader << '\n';
  for (const SoloRow& r : rows) {
    out << fixed(r.sm_share, 4) << ',' << r.blocks << ','
        << format_number(r.kernel_us_nominal, false) << ',' << fixed(r.kernel_us_measured, 2) << ','
        << fixed(r.launch_overhead_us, 2) << '\n';
  }
}

}  // namespace gpumux::calibration
