// Shared helpers of the overlap tests: temporary files and the shared H200 measurements.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "calibrate/overlap/calibrate_command.h"

namespace gpumux::testing {

// The measured H200 file beside the source tree, or "" when it is not there.
inline std::string h200_measurements() {
  const char* root = std::getenv("GPUMUX_SOURCE_DIR");
  const std::filesystem::path path = std::filesystem::path(root ? root : ".") / ".." / "shared" /
                                     "data" / "h200" / "overlap_train.csv";
  return std::filesystem::exists(path) ? path.string() : "";
}

// A file under the test's temporary folder holding `text`; returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpumux_overlap_test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

inline calibration::CalibrateFitCommand fit_command(std::string measurements, std::string out_json,
                                                    std::string mode, std::string workloads = "") {
  calibration::CalibrateFitCommand c;
  c.measurements = std::move(measurements);
  c.out_json = std::move(out_json);
  c.mode = std::move(mode);
  c.workloads = std::move(workloads);
  return c;
}

inline calibration::CalibrateCheckCommand check_command(std::string measurements,
                                                        std::string calibration, std::string mode,
                                                        std::string format,
                                                        std::string workloads = "") {
  calibration::CalibrateCheckCommand c;
  c.measurements = std::move(measurements);
  c.calibration = std::move(calibration);
  c.mode = std::move(mode);
  c.format = std::move(format);
  c.workloads = std::move(workloads);
  return c;
}

inline constexpr const char* kOverlapHeader =
    "mode,set,member,device,sm_share,kernel_us,duty,alone_duty,active_thread_pct,speed\n";

}  // namespace gpumux::testing
