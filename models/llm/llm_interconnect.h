// The link a tensor-parallel LLM endpoint's all-reduces cross between the GPUs of one node
// (docs/llm-serving.md "Larger than one GPU"): NVLink on the SXM datacenter GPUs, PCIe
// otherwise. Per device, with its source; the all-reduce built on it has no shared measurement
// to check it against.
#pragma once

#include <string>

#include "sim/core/device.h"

namespace gpumux {

struct LlmInterconnect {
  std::string kind;             // "NVLink 3", "PCIe 4.0 x16", ...
  double bandwidth_gbps = 0.0;  // per GPU, per direction, GB/s
  // Bus bandwidth an all-reduce reaches, as a share of bandwidth_gbps (NCCL's busbw over the
  // link's rate; stated, not measured here).
  double efficiency = 0.8;
  double latency_us = 0.0;  // one all-reduce of a small message, kernel launch included
  std::string source;
};

// The device's link between GPUs of a node; PCIe 4.0 x16 for a device the table lacks.
LlmInterconnect llm_interconnect(const DeviceProfile& device);

// One ring all-reduce of `bytes` over `gpus` GPUs on `link`, microseconds: every GPU sends and
// receives 2 (gpus - 1) / gpus of the message at the link's bus bandwidth, plus the latency.
// 0 for one GPU.
double ring_allreduce_us(double bytes, int gpus, const LlmInterconnect& link);

}  // namespace gpumux
