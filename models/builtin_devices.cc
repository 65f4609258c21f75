// Built-in device profiles, as a table of rows (one struct per device, one per MIG profile)
// turned into the JSON schema scenarios use to define or override devices (see
// docs/scenario-format.md "Scenario format", cluster.devices), so that the built-ins go through
// the same checks as a scenario's devices. Sources per device in `source`.
#include "models/builtin_devices.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace gpumux {

namespace {

// Where a MIG profile sits on the GPU: the slices it takes, how many fit at once and the
// compute slices it may start at. GPUs of one MIG generation share these; profile names,
// memory and SMs are the device's own (MigSized below, in the same order).
struct MigShape {
  std::uint64_t compute_slices;
  std::uint64_t memory_slices;
  std::uint64_t max_count;
  std::vector<std::uint64_t> start_offsets;
};

// The profiles of a GPU with 8 memory and 7 compute slices (A100, H100, H200, B200): 1g, 1g+me,
// 1g with two memory slices, 2g, 3g, 4g, 7g (NVIDIA MIG User Guide placement tables).
const std::vector<MigShape> kSevenSliceShapes = {{1, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
                                                 {1, 1, 1, {0, 1, 2, 3, 4, 5, 6}},
                                                 {1, 2, 4, {0, 2, 4, 6}},
                                                 {2, 2, 3, {0, 2, 4}},
                                                 {3, 4, 2, {0, 4}},
                                                 {4, 4, 1, {0}},
                                                 {7, 8, 1, {0}}};
// The A30's (4 memory and 4 compute slices): 1g, 1g+me, 2g, 2g+me, 4g.
const std::vector<MigShape> kFourSliceShapes = {{1, 1, 4, {0, 1, 2, 3}},
                                                {1, 1, 1, {0, 1, 2, 3}},
                                                {2, 2, 2, {0, 2}},
                                                {2, 2, 1, {0, 2}},
                                                {4, 4, 1, {0}}};

// A profile's name, usable memory and SMs on one device.
struct MigSized {
  std::string_view name;
  std::uint64_t memory_mib;
  std::uint64_t sms;
};

struct MigRow {
  std::uint64_t memory_slices = 0;  // 0: the device has no MIG
  std::uint64_t compute_slices = 0;
  const std::vector<MigShape>* shapes = nullptr;
  std::vector<MigSized> profiles;  // one per shape, in its order
};

struct DeviceRow {
  std::string_view name;
  std::uint64_t memory_mib;
  std::uint64_t sms;
  std::string_view architecture;
  std::uint64_t mps_client_limit;
  std::uint64_t memory_bandwidth_gbps;
  double peak_tflops_16bit;  // dense bf16/fp16 tensor peak, no sparsity; 0: not known
  MigRow mig;
  std::string_view source;
};

const std::vector<DeviceRow>& device_rows() {
  // One device a block: name, memory MiB, SMs, architecture, MPS client limit, bandwidth GB/s,
  // dense 16-bit tensor peak TFLOP/s (without sparsity: half a datasheet's "with sparsity"
  // figure); its MIG slices and profiles {name, memory MiB, SMs} in the order of their shapes;
  // source.
  // clang-format off
  static const std::vector<DeviceRow> rows = {
      {"A100-40GB", 40960, 108, "ampere", 48, 1555, 312,
       {8, 7, &kSevenSliceShapes,
        {{"1g.5gb", 4864, 14}, {"1g.5gb+me", 4864, 14}, {"1g.10gb", 9851, 14},
         {"2g.10gb", 9851, 28}, {"3g.20gb", 19968, 42}, {"4g.20gb", 19968, 56},
         {"7g.40gb", 40192, 98}}},
       "GPU-FACTS.md (NVIDIA MIG User Guide profile table; SMs and usable GiB per profile); "
       "16-bit peak: NVIDIA A100 datasheet: BF16/FP16 tensor 312 TFLOPS dense"},
      {"A100-80GB", 81920, 108, "ampere", 48, 2039, 312,
       {8, 7, &kSevenSliceShapes,
        {{"1g.10gb", 9728, 14}, {"1g.10gb+me", 9728, 14}, {"1g.20gb", 19968, 14},
         {"2g.20gb", 19968, 28}, {"3g.40gb", 40192, 42}, {"4g.40gb", 40192, 56},
         {"7g.80gb", 80896, 98}}},
       "GPU-FACTS.md (NVIDIA MIG User Guide); SMs per profile as A100-40GB; 16-bit peak: NVIDIA "
       "A100 datasheet: BF16/FP16 tensor 312 TFLOPS dense"},
      {"H100-80GB", 81920, 132, "hopper", 48, 3350, 989,
       {8, 7, &kSevenSliceShapes,
        {{"1g.10gb", 9984, 16}, {"1g.10gb+me", 9984, 16}, {"1g.20gb", 20091, 26},
         {"2g.20gb", 20091, 32}, {"3g.40gb", 40448, 60}, {"4g.40gb", 40448, 64},
         {"7g.80gb", 81152, 132}}},
       "GPU-FACTS.md (NVIDIA MIG User Guide; H100 SXM SMs and usable GiB per profile); 16-bit "
       "peak: NVIDIA H100 SXM datasheet: BF16/FP16 tensor 1979 TFLOPS with sparsity, 989 dense"},
      {"H100-94GB", 96256, 132, "hopper", 48, 3900, 835,
       {8, 7, &kSevenSliceShapes,
        {{"1g.12gb", 12288, 16}, {"1g.12gb+me", 12288, 16}, {"1g.24gb", 24576, 26},
         {"2g.24gb", 24576, 32}, {"3g.47gb", 48128, 60}, {"4g.47gb", 48128, 64},
         {"7g.94gb", 96256, 132}}},
       "GPU-FACTS.md profile names; per-profile SMs assumed as H100-80GB and memory read from "
       "profile names (unverified); 16-bit peak: NVIDIA H100 NVL datasheet: BF16/FP16 tensor "
       "1671 TFLOPS with sparsity, 835 dense"},
      {"H200-141GB", 144384, 132, "hopper", 48, 4800, 989,
       {8, 7, &kSevenSliceShapes,
        {{"1g.18gb", 18432, 16}, {"1g.18gb+me", 18432, 16}, {"1g.35gb", 35840, 26},
         {"2g.35gb", 35840, 32}, {"3g.71gb", 72704, 60}, {"4g.71gb", 72704, 64},
         {"7g.141gb", 144384, 132}}},
       "GPU-FACTS.md profile names; placements assumed as H100 (unverified); SMs as H100-80GB and "
       "memory from profile names (unverified); 16-bit peak: NVIDIA H200 SXM datasheet: "
       "BF16/FP16 tensor 1979 TFLOPS with sparsity, 989 dense"},
      {"B200-180GB", 184320, 148, "blackwell", 48, 8000, 2250,
       {8, 7, &kSevenSliceShapes,
        {{"1g.23gb", 23552, 17}, {"1g.23gb+me", 23552, 17}, {"1g.45gb", 46080, 29},
         {"2g.45gb", 46080, 35}, {"3g.90gb", 92160, 67}, {"4g.90gb", 92160, 71},
         {"7g.180gb", 184320, 148}}},
       "GPU-FACTS.md profile names; placements assumed as H100 (unverified); SMs scaled from H100 "
       "by 148/132 and memory from profile names (unverified); 16-bit peak: NVIDIA B200 (HGX "
       "B200) datasheet: BF16/FP16 tensor 4.5 PFLOPS with sparsity, 2250 TFLOPS dense"},
      {"A30-24GB", 24576, 56, "ampere", 48, 933, 165,
       {4, 4, &kFourSliceShapes,
        {{"1g.6gb", 6016, 14}, {"1g.6gb+me", 6016, 14}, {"2g.12gb", 12032, 28},
         {"2g.12gb+me", 12032, 28}, {"4g.24gb", 24064, 56}}},
       "GPU-FACTS.md (A30 table; 1g/2g usable memory as a share of 23.5 GiB: unverified); 16-bit "
       "peak: NVIDIA A30 datasheet: BF16/FP16 tensor 330 TFLOPS with sparsity, 165 dense"},
      {"T4", 15360, 40, "turing", 48, 320, 65,
       {},
       "NVIDIA T4 datasheet (16 GB GDDR6, 40 SMs); GPU type of the Alibaba openb trace; 16-bit "
       "peak: NVIDIA T4 datasheet: mixed-precision FP16/FP32 tensor 65 TFLOPS"},
      {"P100", 16384, 56, "pascal", 16, 732, 18.7,
       {},
       "NVIDIA P100 16 GB datasheet; pre-Volta MPS client limit 16 (GPU-FACTS); 16-bit peak: "
       "NVIDIA P100 PCIe 16 GB datasheet: FP16 18.7 TFLOPS (no tensor cores)"},
      {"V100M16", 16384, 80, "volta", 48, 900, 125,
       {},
       "NVIDIA V100 16 GB datasheet; GPU type of the Alibaba openb trace; 16-bit peak: NVIDIA "
       "V100 SXM2 datasheet: tensor 125 TFLOPS"},
      {"V100M32", 32768, 80, "volta", 48, 900, 125,
       {},
       "NVIDIA V100 32 GB datasheet; GPU type of the Alibaba openb trace; 16-bit peak: NVIDIA "
       "V100 SXM2 datasheet: tensor 125 TFLOPS"},
      {"A10", 24576, 72, "ampere", 48, 600, 125,
       {},
       "NVIDIA A10 datasheet (24 GB, 72 SMs); GPU type of the Alibaba openb trace; 16-bit peak: "
       "NVIDIA A10 datasheet: BF16/FP16 tensor 250 TFLOPS with sparsity, 125 dense"},
      {"RTX4090", 24080, 128, "ada", 48, 1008, 165.2,
       {},
       "NVIDIA Ada GPU architecture whitepaper (GeForce RTX 4090: 128 SMs, 24 GB GDDR6X, 1008 "
       "GB/s; "
       "16-bit peak: FP16/BF16 tensor with FP32 accumulate 165.2 TFLOPS dense, which vLLM's bf16 "
       "GEMMs use; 330.3 with FP16 accumulate); memory 24080 MiB: the total CUDA reports "
       "(25,250,627,584 bytes in the LLMServingSim RTX 4090 run's meta.json; nvidia-smi shows "
       "24564 MiB), which is what vLLM's gpu_memory_utilization multiplies; GPU of the "
       "LLMServingSim RTX4090 profiles"},
      {"RTX-PRO-6000", 97887, 188, "blackwell", 48, 1792, 503.8,
       {},
       "NVIDIA RTX PRO 6000 Blackwell Server Edition (188 SMs, 96 GB GDDR7, 1792 GB/s); 16-bit "
       "peak: FP16/BF16 tensor 1007.6 TFLOPS with sparsity halved to 503.8 dense (spec tables "
       "quoting NVIDIA's RTX Blackwell figures; not read from the datasheet itself: unverified); "
       "memory 97887 MiB as nvidia-smi reports it; MIG (up to 4 instances) left off: no profile "
       "table; GPU of the LLMServingSim RTXPRO6000 profiles"},
      {"G2", 32768, 80, "unknown", 48, 900, 0,
       {},
       "anonymised GPU model of the Alibaba openb trace: capacities are undisclosed; generic "
       "placeholder values (unverified), override in the scenario; 16-bit peak unknown (0)"},
      {"G3", 32768, 80, "unknown", 48, 900, 0,
       {},
       "anonymised GPU model of the Alibaba openb trace: capacities are undisclosed; generic "
       "placeholder values (unverified), override in the scenario; 16-bit peak unknown (0)"},
  };
  // clang-format on
  return rows;
}

nlohmann::json mig_json(const MigRow& mig) {
  nlohmann::json profiles = nlohmann::json::array();
  for (std::size_t i = 0; i < mig.profiles.size(); ++i) {
    const MigShape& shape = (*mig.shapes)[i];
    const MigSized& sized = mig.profiles[i];
    profiles.push_back({{"name", sized.name},
                        {"compute_slices", shape.compute_slices},
                        {"memory_slices", shape.memory_slices},
                        {"memory_mib", sized.memory_mib},
                        {"sms", sized.sms},
                        {"max_count", shape.max_count},
                        {"start_offsets", shape.start_offsets}});
  }
  return {{"memory_slices", mig.memory_slices},
          {"compute_slices", mig.compute_slices},
          {"profiles", std::move(profiles)}};
}

}  // namespace

nlohmann::json builtin_devices_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const DeviceRow& row : device_rows()) {
    nlohmann::json device = {{"name", row.name},
                             {"memory_mib", row.memory_mib},
                             {"sms", row.sms},
                             {"architecture", row.architecture},
                             {"mps_client_limit", row.mps_client_limit},
                             {"memory_bandwidth_gbps", row.memory_bandwidth_gbps},
                             {"peak_tflops_16bit", row.peak_tflops_16bit},
                             {"source", row.source}};
    if (row.mig.shapes) device["mig"] = mig_json(row.mig);
    list.push_back(std::move(device));
  }
  return list;
}

}  // namespace gpumux
