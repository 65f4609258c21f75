// Helpers shared by the packing tests: temporary CSV files and tiny hand-built clusters.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "packing/openb_csv.h"

namespace gpumux::packing::testing {

// A file under the test's temporary directory holding `text`; removed by the destructor.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_((std::filesystem::path(::testing::TempDir()) / name).string()) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline NodeSpec node(const std::string& name, std::int64_t cpu, int gpus,
                     const std::string& model = "T4", std::int64_t mem = 1 << 20) {
  return NodeSpec{name, cpu, MemoryMiB(mem), gpus, model};
}

inline PodSpec pod(const std::string& name, std::int64_t cpu, int gpus, int milli,
                   std::vector<std::string> spec = {}, std::int64_t mem = 1024) {
  return PodSpec{name, cpu, MemoryMiB(mem), gpus, milli, std::move(spec)};
}

// ${GPUMUX_SOURCE_DIR}/../shared/data, or "" when the variable is unset.
inline std::string shared_data_dir() {
  const char* src = std::getenv("GPUMUX_SOURCE_DIR");
  if (src == nullptr) return "";
  return std::string(src) + "/../shared/data";
}

}  // namespace gpumux::packing::testing
