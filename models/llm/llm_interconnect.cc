#include "models/llm/llm_interconnect.h"

#include <string_view>

namespace gpumux {

namespace {

struct Row {
  std::string_view device;
  std::string_view kind;
  double bandwidth_gbps;
  double latency_us;
  std::string_view source;
};

// NVLink rates are the per-GPU totals of NVIDIA's datasheets halved (they count both
// directions). Latencies are NCCL's small-message all-reduce times as commonly reported (about
// 10 us within an NVLink node, 20 us over PCIe): an assumption, stated.
constexpr Row kRows[] = {
    {"A100-40GB", "NVLink 3", 300.0, 10.0,
     "NVIDIA A100 datasheet: NVLink 600 GB/s per GPU (SXM4), both directions"},
    {"A100-80GB", "NVLink 3", 300.0, 10.0,
     "NVIDIA A100 datasheet: NVLink 600 GB/s per GPU (SXM4), both directions"},
    {"H100-80GB", "NVLink 4", 450.0, 10.0,
     "NVIDIA H100 datasheet: NVLink 900 GB/s per GPU (SXM5), both directions"},
    {"H100-94GB", "NVLink bridge", 300.0, 10.0,
     "NVIDIA H100 NVL datasheet: NVLink bridge 600 GB/s between a pair, both directions"},
    {"H200-141GB", "NVLink 4", 450.0, 10.0,
     "NVIDIA H200 datasheet: NVLink 900 GB/s per GPU (SXM), both directions"},
    {"B200-180GB", "NVLink 5", 900.0, 10.0,
     "NVIDIA HGX B200 datasheet: NVLink 1.8 TB/s per GPU, both directions"},
};

constexpr double kPcie3Gbps = 16.0;  // PCIe 3.0 x16 per direction
constexpr double kPcie4Gbps = 32.0;  // PCIe 4.0 x16 per direction
constexpr double kPcie5Gbps = 64.0;  // PCIe 5.0 x16 per direction

}  // namespace

LlmInterconnect llm_interconnect(const DeviceProfile& device) {
  for (const Row& r : kRows) {
    if (r.device == device.name) {
      return {std::string(r.kind), r.bandwidth_gbps, 0.8, r.latency_us, std::string(r.source)};
    }
  }
  if (device.architecture == "blackwell" || device.architecture == "hopper") {
    return {"PCIe 5.0 x16", kPcie5Gbps, 0.8, 20.0,
            "PCIe 5.0 x16: 64 GB/s per direction (PCI-SIG); no NVLink on this device"};
  }
  if (device.architecture == "volta" || device.architecture == "turing") {
    return {"PCIe 3.0 x16", kPcie3Gbps, 0.8, 20.0,
            "PCIe 3.0 x16: 16 GB/s per direction (PCI-SIG); NVLink, where the node has it, is "
            "not assumed"};
  }
  return {"PCIe 4.0 x16", kPcie4Gbps, 0.8, 20.0,
          "PCIe 4.0 x16: 32 GB/s per direction (PCI-SIG); no NVLink on this device"};
}

double ring_allreduce_us(double bytes, int gpus, const LlmInterconnect& link) {
  if (gpus <= 1 || bytes <= 0.0) return 0.0;
  const double n = gpus;
  const double bytes_per_us = link.bandwidth_gbps * link.efficiency * 1e3;
  return link.latency_us + 2.0 * (n - 1.0) / n * bytes / bytes_per_us;
}

}  // namespace gpumux
