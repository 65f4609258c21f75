// Shared helpers of the overlap tests: temporary files and the shared H200 measurements.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

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

inline constexpr const char* kOverlapHeader =
    "mode,set,member,device,sm_share,kernel_us,duty,alone_duty,active_thread_pct,speed\n";

}  // namespace gpumux::testing
