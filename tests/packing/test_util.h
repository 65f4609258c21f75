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

// A tiny openb cluster for the command's tests: two 8-GPU G2 nodes and two 2-GPU T4 nodes, and
// five pods (shares of a GPU, whole GPUs, a T4-only pod and a CPU-only one), each list as its
// CSV with a header.
inline constexpr const char* kTinyOpenbNodes =
    "sn,cpu_milli,memory_mib,gpu,model\n"
    "n0,96000,393216,8,G2\n"
    "n1,96000,393216,8,G2\n"
    "n2,32000,131072,2,T4\n"
    "n3,32000,131072,2,T4\n";
inline constexpr const char* kTinyOpenbPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "p0,4000,8192,1,500,,LS,Running,0,10,0\n"
    "p1,6000,12288,1,250,,LS,Running,0,10,0\n"
    "p2,8000,16384,1,1000,,BE,Running,0,10,0\n"
    "p3,16000,32768,2,1000,T4,LS,Running,0,10,0\n"
    "p4,12000,24576,0,0,,LS,Running,0,10,0\n";

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
