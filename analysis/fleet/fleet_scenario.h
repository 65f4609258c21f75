// The scenarios a fleet plan runs (analysis/fleet/fleet_plan.h): the user's scenario read once
// (its LLM endpoints and plain services, device and node size), and from it one scenario per GPU
// group or per whole fleet, with the planner's cluster, sharing model, per-endpoint engine and
// sharing settings and a trace of its own (every endpoint starting at 0 s, GPU by GPU).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/device.h"
#include "sim/core/job.h"

namespace gpumux {

struct FleetRequest;

struct FleetEndpointInfo {
  std::string id;      // the endpoint's, or a replica's: "<parent>-r<index+1>of<replicas>"
  std::string parent;  // the scenario's endpoint (== id without replicas)
  int replica = 0;     // round-robin replica index, [0, replicas)
  int replicas = 1;
  // The longest request of its load (prompt + output tokens): the planner's max_model_len
  // unless the scenario sets one.
  std::int64_t longest_request_tokens = 0;
  bool max_model_len_given = false;
  int block_size = 16;  // its engine's KV block, tokens
  // GPUs of one node it spans (llm.tensor_parallel): a gang of whole GPUs that no other endpoint
  // shares and that MIG leaves whole.
  int tensor_parallel = 1;
  std::string service_class;
  std::string llm_model;
  double lifetime_s = 0.0;  // the trace row's runtime_s
  // Memory the engine holds whatever its load, MiB: weights + the runtime reserve.
  double fixed_mib = 0.0;
  // Its KV cache on a whole GPU at the scenario's engine settings, MiB.
  double kv_cache_mib = 0.0;
  // A plain service (services.by_id without `llm`: one request's service time, no engine) rather
  // than an LLM endpoint: `row` is its trace row as read (memory, sm_util, sm_share, kernel
  // length, ...), which the planner's traces repeat; fixed_mib is its memory, kv_cache_mib 0.
  bool plain = false;
  JobSpec row;
};

struct FleetBase {
  std::string name;
  std::string file;
  std::string base_dir;
  std::uint64_t seed = 0;
  nlohmann::json document;    // --set applied; endpoints' own sharing and memory share removed
  std::string sharing_model;  // the scenario's own, whose params a plan under it keeps
  nlohmann::json sharing_params;
  DeviceProfile device;
  int gpus_per_node = 0;
  std::vector<FleetEndpointInfo> endpoints;  // in trace order
  int index_of(const std::string& id) const;
};

// `e` as `replicas` round-robin replicas (llm.load.round_robin), in replica order.
std::vector<FleetEndpointInfo> replicas_of(const FleetEndpointInfo& e, int replicas);

// Reads the scenario. Throws InputError unless it has node groups of one device type and a trace
// file whose every row is a service named in services.by_id: an LLM endpoint asking for its
// tensor_parallel GPUs (at most a node's), or a plain service of one GPU.
FleetBase load_fleet_base(const FleetRequest& request);

// One endpoint's settings on its GPU.
struct FleetEndpointSettings {
  int index = 0;  // into FleetBase::endpoints
  double gpu_memory_utilization = 0.9;
  std::string mig_profile;        // mig
  int mps_thread_percentage = 0;  // mps; 0: none
  std::int64_t mps_memory_limit_mib = 0;
  double load_scale = 1.0;  // its load this many times as fast as the scenario gives it (times its
                            // own llm.load.rate_scale); headroom
};

// One group's GPUs: one GPU, or a tensor-parallel endpoint's gang of `width` whole GPUs.
struct FleetGpuSettings {
  std::vector<FleetEndpointSettings> endpoints;
  int width = 1;  // GPUs: 1, or the gang's endpoint's tensor_parallel
};

struct FleetDocument {
  nlohmann::json scenario;  // trace.file left as "trace.csv": the caller points it at trace_csv
  std::string trace_csv;
};

// The scenario running `gpus` under `model` (exclusive, mig, mps or timeslice): one node of
// all the groups' GPUs, first-fit placement, the trace listing the first group's endpoints
// first; under mig an inline mig-parted config gives each GPU exactly its endpoints' instances
// and leaves a gang's GPUs whole. A plain service's settings go where a plain service takes
// them: its trace row (mig_profile, memory_limit_mib; outside MIG its memory_mib raised to its
// gpu_memory_utilization share of the device, so that first fit keeps GPUs as planned) and
// services.by_id
// (mps_active_thread_percentage; load_scale multiplies request_rate_per_s, the only arrival it
// scales: InputError for the others).
FleetDocument fleet_document(const FleetBase& base, const std::string& model,
                             const std::vector<FleetGpuSettings>& gpus);

}  // namespace gpumux
