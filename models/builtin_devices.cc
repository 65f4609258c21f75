// Built-in device profiles, as data in the same JSON schema scenarios use to define or override
// devices (see docs/scenario-format.md "Scenario format", cluster.devices). Sources per device in "source".
#include "models/builtin_devices.h"

namespace gpumux {

std::string_view builtin_devices_json() {
  return R"json([
 {
  "name": "A100-40GB",
  "memory_mib": 40960,
  "sms": 108,
  "architecture": "ampere",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 1555,
  "mig": {"memory_slices": 8, "compute_slices": 7, "profiles": [
    {"name": "1g.5gb", "compute_slices": 1, "memory_slices": 1, "memory_mib": 4864, "sms": 14, "max_count": 7, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.5gb+me", "compute_slices": 1, "memory_slices": 1, "memory_mib": 4864, "sms": 14, "max_count": 1, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.10gb", "compute_slices": 1, "memory_slices": 2, "memory_mib": 9851, "sms": 14, "max_count": 4, "start_offsets": [0, 2, 4, 6]},
    {"name": "2g.10gb", "compute_slices": 2, "memory_slices": 2, "memory_mib": 9851, "sms": 28, "max_count": 3, "start_offsets": [0, 2, 4]},
    {"name": "3g.20gb", "compute_slices": 3, "memory_slices": 4, "memory_mib": 19968, "sms": 42, "max_count": 2, "start_offsets": [0, 4]},
    {"name": "4g.20gb", "compute_slices": 4, "memory_slices": 4, "memory_mib": 19968, "sms": 56, "max_count": 1, "start_offsets": [0]},
    {"name": "7g.40gb", "compute_slices": 7, "memory_slices": 8, "memory_mib": 40192, "sms": 98, "max_count": 1, "start_offsets": [0]}]},
  "source": "GPU-FACTS.md (NVIDIA MIG User Guide profile table; SMs and usable GiB per profile)"
 },
 {
  "name": "A100-80GB",
  "memory_mib": 81920,
  "sms": 108,
  "architecture": "ampere",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 2039,
  "mig": {"memory_slices": 8, "compute_slices": 7, "profiles": [
    {"name": "1g.10gb", "compute_slices": 1, "memory_slices": 1, "memory_mib": 9728, "sms": 14, "max_count": 7, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.10gb+me", "compute_slices": 1, "memory_slices": 1, "memory_mib": 9728, "sms": 14, "max_count": 1, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.20gb", "compute_slices": 1, "memory_slices": 2, "memory_mib": 19968, "sms": 14, "max_count": 4, "start_offsets": [0, 2, 4, 6]},
    {"name": "2g.20gb", "compute_slices": 2, "memory_slices": 2, "memory_mib": 19968, "sms": 28, "max_count": 3, "start_offsets": [0, 2, 4]},
    {"name": "3g.40gb", "compute_slices": 3, "memory_slices": 4, "memory_mib": 40192, "sms": 42, "max_count": 2, "start_offsets": [0, 4]},
    {"name": "4g.40gb", "compute_slices": 4, "memory_slices": 4, "memory_mib": 40192, "sms": 56, "max_count": 1, "start_offsets": [0]},
    {"name": "7g.80gb", "compute_slices": 7, "memory_slices": 8, "memory_mib": 80896, "sms": 98, "max_count": 1, "start_offsets": [0]}]},
  "source": "GPU-FACTS.md (NVIDIA MIG User Guide); SMs per profile as A100-40GB"
 },
 {
  "name": "H100-80GB",
  "memory_mib": 81920,
  "sms": 132,
  "architecture": "hopper",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 3350,
  "mig": {"memory_slices": 8, "compute_slices": 7, "profiles": [
    {"name": "1g.10gb", "compute_slices": 1, "memory_slices": 1, "memory_mib": 9984, "sms": 16, "max_count": 7, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.10gb+me", "compute_slices": 1, "memory_slices": 1, "memory_mib": 9984, "sms": 16, "max_count": 1, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.20gb", "compute_slices": 1, "memory_slices": 2, "memory_mib": 20091, "sms": 26, "max_count": 4, "start_offsets": [0, 2, 4, 6]},
    {"name": "2g.20gb", "compute_slices": 2, "memory_slices": 2, "memory_mib": 20091, "sms": 32, "max_count": 3, "start_offsets": [0, 2, 4]},
    {"name": "3g.40gb", "compute_slices": 3, "memory_slices": 4, "memory_mib": 40448, "sms": 60, "max_count": 2, "start_offsets": [0, 4]},
    {"name": "4g.40gb", "compute_slices": 4, "memory_slices": 4, "memory_mib": 40448, "sms": 64, "max_count": 1, "start_offsets": [0]},
    {"name": "7g.80gb", "compute_slices": 7, "memory_slices": 8, "memory_mib": 81152, "sms": 132, "max_count": 1, "start_offsets": [0]}]},
  "source": "GPU-FACTS.md (NVIDIA MIG User Guide; H100 SXM SMs and usable GiB per profile)"
 },
 {
  "name": "H100-94GB",
  "memory_mib": 96256,
  "sms": 132,
  "architecture": "hopper",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 3900,
  "mig": {"memory_slices": 8, "compute_slices": 7, "profiles": [
    {"name": "1g.12gb", "compute_slices": 1, "memory_slices": 1, "memory_mib": 12288, "sms": 16, "max_count": 7, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.12gb+me", "compute_slices": 1, "memory_slices": 1, "memory_mib": 12288, "sms": 16, "max_count": 1, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.24gb", "compute_slices": 1, "memory_slices": 2, "memory_mib": 24576, "sms": 26, "max_count": 4, "start_offsets": [0, 2, 4, 6]},
    {"name": "2g.24gb", "compute_slices": 2, "memory_slices": 2, "memory_mib": 24576, "sms": 32, "max_count": 3, "start_offsets": [0, 2, 4]},
    {"name": "3g.47gb", "compute_slices": 3, "memory_slices": 4, "memory_mib": 48128, "sms": 60, "max_count": 2, "start_offsets": [0, 4]},
    {"name": "4g.47gb", "compute_slices": 4, "memory_slices": 4, "memory_mib": 48128, "sms": 64, "max_count": 1, "start_offsets": [0]},
    {"name": "7g.94gb", "compute_slices": 7, "memory_slices": 8, "memory_mib": 96256, "sms": 132, "max_count": 1, "start_offsets": [0]}]},
  "source": "GPU-FACTS.md profile names; per-profile SMs assumed as H100-80GB and memory read from profile names (unverified)"
 },
 {
  "name": "H200-141GB",
  "memory_mib": 144384,
  "sms": 132,
  "architecture": "hopper",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 4800,
  "mig": {"memory_slices": 8, "compute_slices": 7, "profiles": [
    {"name": "1g.18gb", "compute_slices": 1, "memory_slices": 1, "memory_mib": 18432, "sms": 16, "max_count": 7, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.18gb+me", "compute_slices": 1, "memory_slices": 1, "memory_mib": 18432, "sms": 16, "max_count": 1, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.35gb", "compute_slices": 1, "memory_slices": 2, "memory_mib": 35840, "sms": 26, "max_count": 4, "start_offsets": [0, 2, 4, 6]},
    {"name": "2g.35gb", "compute_slices": 2, "memory_slices": 2, "memory_mib": 35840, "sms": 32, "max_count": 3, "start_offsets": [0, 2, 4]},
    {"name": "3g.71gb", "compute_slices": 3, "memory_slices": 4, "memory_mib": 72704, "sms": 60, "max_count": 2, "start_offsets": [0, 4]},
    {"name": "4g.71gb", "compute_slices": 4, "memory_slices": 4, "memory_mib": 72704, "sms": 64, "max_count": 1, "start_offsets": [0]},
    {"name": "7g.141gb", "compute_slices": 7, "memory_slices": 8, "memory_mib": 144384, "sms": 132, "max_count": 1, "start_offsets": [0]}]},
  "source": "GPU-FACTS.md profile names; placements assumed as H100 (unverified); SMs as H100-80GB and memory from profile names (unverified)"
 },
 {
  "name": "B200-180GB",
  "memory_mib": 184320,
  "sms": 148,
  "architecture": "blackwell",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 8000,
  "mig": {"memory_slices": 8, "compute_slices": 7, "profiles": [
    {"name": "1g.23gb", "compute_slices": 1, "memory_slices": 1, "memory_mib": 23552, "sms": 17, "max_count": 7, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.23gb+me", "compute_slices": 1, "memory_slices": 1, "memory_mib": 23552, "sms": 17, "max_count": 1, "start_offsets": [0, 1, 2, 3, 4, 5, 6]},
    {"name": "1g.45gb", "compute_slices": 1, "memory_slices": 2, "memory_mib": 46080, "sms": 29, "max_count": 4, "start_offsets": [0, 2, 4, 6]},
    {"name": "2g.45gb", "compute_slices": 2, "memory_slices": 2, "memory_mib": 46080, "sms": 35, "max_count": 3, "start_offsets": [0, 2, 4]},
    {"name": "3g.90gb", "compute_slices": 3, "memory_slices": 4, "memory_mib": 92160, "sms": 67, "max_count": 2, "start_offsets": [0, 4]},
    {"name": "4g.90gb", "compute_slices": 4, "memory_slices": 4, "memory_mib": 92160, "sms": 71, "max_count": 1, "start_offsets": [0]},
    {"name": "7g.180gb", "compute_slices": 7, "memory_slices": 8, "memory_mib": 184320, "sms": 148, "max_count": 1, "start_offsets": [0]}]},
  "source": "GPU-FACTS.md profile names; placements assumed as H100 (unverified); SMs scaled from H100 by 148/132 and memory from profile names (unverified)"
 },
 {
  "name": "A30-24GB",
  "memory_mib": 24576,
  "sms": 56,
  "architecture": "ampere",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 933,
  "mig": {"memory_slices": 4, "compute_slices": 4, "profiles": [
    {"name": "1g.6gb", "compute_slices": 1, "memory_slices": 1, "memory_mib": 6016, "sms": 14, "max_count": 4, "start_offsets": [0, 1, 2, 3]},
    {"name": "1g.6gb+me", "compute_slices": 1, "memory_slices": 1, "memory_mib": 6016, "sms": 14, "max_count": 1, "start_offsets": [0, 1, 2, 3]},
    {"name": "2g.12gb", "compute_slices": 2, "memory_slices": 2, "memory_mib": 12032, "sms": 28, "max_count": 2, "start_offsets": [0, 2]},
    {"name": "2g.12gb+me", "compute_slices": 2, "memory_slices": 2, "memory_mib": 12032, "sms": 28, "max_count": 1, "start_offsets": [0, 2]},
    {"name": "4g.24gb", "compute_slices": 4, "memory_slices": 4, "memory_mib": 24064, "sms": 56, "max_count": 1, "start_offsets": [0]}]},
  "source": "GPU-FACTS.md (A30 table; 1g/2g usable memory as a share of 23.5 GiB: unverified)"
 },
 {
  "name": "T4",
  "memory_mib": 15360,
  "sms": 40,
  "architecture": "turing",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 320,
  "source": "NVIDIA T4 datasheet (16 GB GDDR6, 40 SMs); GPU type of the Alibaba openb trace"
 },
 {
  "name": "P100",
  "memory_mib": 16384,
  "sms": 56,
  "architecture": "pascal",
  "mps_client_limit": 16,
  "memory_bandwidth_gbps": 732,
  "source": "NVIDIA P100 16 GB datasheet; pre-Volta MPS client limit 16 (GPU-FACTS)"
 },
 {
  "name": "V100M16",
  "memory_mib": 16384,
  "sms": 80,
  "architecture": "volta",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 900,
  "source": "NVIDIA V100 16 GB datasheet; GPU type of the Alibaba openb trace"
 },
 {
  "name": "V100M32",
  "memory_mib": 32768,
  "sms": 80,
  "architecture": "volta",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 900,
  "source": "NVIDIA V100 32 GB datasheet; GPU type of the Alibaba openb trace"
 },
 {
  "name": "A10",
  "memory_mib": 24576,
  "sms": 72,
  "architecture": "ampere",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 600,
  "source": "NVIDIA A10 datasheet (24 GB, 72 SMs); GPU type of the Alibaba openb trace"
 },
 {
  "name": "G2",
  "memory_mib": 32768,
  "sms": 80,
  "architecture": "unknown",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 900,
  "source": "anonymised GPU model of the Alibaba openb trace: capacities are undisclosed; generic placeholder values (unverified), override in the scenario"
 },
 {
  "name": "G3",
  "memory_mib": 32768,
  "sms": 80,
  "architecture": "unknown",
  "mps_client_limit": 48,
  "memory_bandwidth_gbps": 900,
  "source": "anonymised GPU model of the Alibaba openb trace: capacities are undisclosed; generic placeholder values (unverified), override in the scenario"
 }
])json";
}

}  // namespace gpumux
