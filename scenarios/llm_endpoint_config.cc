#include "scenarios/llm_endpoint_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "models/device_registry.h"
#include "models/llm/llm_catalog.h"
#include "models/llm/llm_efficiency_defaults.h"
#include "models/llm/llm_interconnect.h"
#include "models/llm/roofline_time_model.h"
#include "sim/base/input_error.h"
#include "traces/requests/llm_request_trace.h"

namespace gpumux {

namespace fs = std::filesystem;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// vLLM's serve defaults (EngineArgs.get_batch_defaults, OPENAI_API_SERVER): larger on devices of
// at least 70 GiB that are not A100s.
bool large_defaults(const DeviceProfile& device) {
  return device.memory.gib() >= 70.0 && lower(device.name).find("a100") == std::string::npos;
}

const DeviceProfile& pick_device(JsonObject& o, const std::vector<DeviceProfile>& devices) {
  if (o.has("device")) {
    const std::string name = o.required_string("device");
    for (const DeviceProfile& d : devices) {
      if (d.name == name) return d;
    }
    std::string known;
    for (const DeviceProfile& d : devices) known += (known.empty() ? "" : ", ") + d.name;
    throw InputError(o.where("device"), "device",
                     "'" + name + "' is not a device type of the cluster (" + known + ")");
  }
  o.allow("device");
  if (devices.size() != 1) {
    throw InputError(o.where(), "device",
                     "the cluster has several device types: name the endpoint's device");
  }
  return devices.front();
}

std::int32_t token_count(JsonObject& o, const char* key) {
  return static_cast<std::int32_t>(o.optional_int(key, 0, 1, 100'000'000));
}

void parse_tokens(JsonObject& l, const std::string& base_dir, LlmLoad& load, nlohmann::json& echo,
                  std::vector<InputFile>& files) {
  const bool fixed = l.has("prompt_tokens") || l.has("output_tokens");
  if (l.has("token_lengths")) {
    if (fixed) {
      throw InputError(l.where("token_lengths"), "token_lengths",
                       "give token_lengths or prompt_tokens and output_tokens, not both");
    }
    const std::string file = l.required_string("token_lengths");
    const LlmRequestTrace trace = read_llm_request_trace(
        input_path(files, input_role(l.where("token_lengths")), file, base_dir));
    load.tokens.pairs = std::make_shared<const std::vector<std::pair<std::int32_t, std::int32_t>>>(
        token_pairs(trace));
    echo["token_lengths"] = {{"file", file}, {"pairs", trace.rows.size()}};
    l.allow("prompt_tokens");
    l.allow("output_tokens");
    return;
  }
  l.allow("token_lengths");
  load.tokens.prompt_tokens = token_count(l, "prompt_tokens");
  load.tokens.output_tokens = token_count(l, "output_tokens");
  if (load.tokens.prompt_tokens <= 0 || load.tokens.output_tokens <= 0) {
    throw InputError(l.where(), load.tokens.prompt_tokens <= 0 ? "prompt_tokens" : "output_tokens",
                     "a generated or closed-loop load needs its token counts: prompt_tokens and "
                     "output_tokens (integers >= 1) or token_lengths (a request trace)");
  }
  echo["prompt_tokens"] = load.tokens.prompt_tokens;
  echo["output_tokens"] = load.tokens.output_tokens;
}

// `round_robin: {"replicas": r, "index": i}`: this endpoint is replica i of r behind a
// round-robin router, so it receives every r-th request of the load starting with the i-th: a
// trace's rows i, i + r, ...; a generated load's every r-th arrival, which for gamma gaps of
// coefficient of variation c is again a gamma renewal at rate / r with c / sqrt(r). A closed
// loop has no arrivals to split (its clients are the replicas' own): refused.
void apply_round_robin(JsonObject& l, LlmLoad& load, nlohmann::json& echo) {
  JsonObject rr = l.object("round_robin");
  const int replicas = static_cast<int>(rr.required_int("replicas", 1, 1024));
  const int index = static_cast<int>(rr.required_int("index", 0, replicas - 1));
  rr.finish();
  if (load.kind == LlmLoadKind::kClosed) {
    throw InputError(l.where("round_robin"), "round_robin",
                     "a closed loop has no arrivals to split between replicas (give each "
                     "replica its own clients instead)");
  }
  if (load.kind == LlmLoadKind::kTrace) {
    std::vector<LlmRequestRow> kept;
    for (std::size_t k = static_cast<std::size_t>(index); k < load.rows->size();
         k += static_cast<std::size_t>(replicas)) {
      kept.push_back((*load.rows)[k]);
    }
    if (kept.empty()) {
      throw InputError(l.where("round_robin"), "index",
                       "replica " + std::to_string(index) + " of " + std::to_string(replicas) +
                           " receives none of the load's " + std::to_string(load.rows->size()) +
                           " requests");
    }
    echo["round_robin"] = {{"replicas", replicas}, {"index", index}, {"requests", kept.size()}};
    load.rows = std::make_shared<const std::vector<LlmRequestRow>>(std::move(kept));
  } else {
    load.rate_per_s /= replicas;
    load.arrival_cv /= std::sqrt(static_cast<double>(replicas));
    echo["round_robin"] = {{"replicas", replicas},
                           {"index", index},
                           {"rate_per_s", load.rate_per_s},
                           {"arrival_cv", load.arrival_cv}};
  }
}

// The roofline model of these inputs, tabulated for the engine's budgets. Tabulating evaluates
// every operator at every token count (about 130,000 pow() for an 8,192-token budget), which
// dominated parsing a scenario; commands that parse one scenario many times (plan, compare,
// sweep) share the tables through this process-wide cache, keyed by every input exactly
// (hexadecimal floats), so a model from the cache is the model that would be built.
std::shared_ptr<const IterationTimeModel> tabulated_time_model(const LlmShape& shape,
                                                               const LlmDevicePeaks& peaks,
                                                               const LlmEfficiency& efficiency,
                                                               int tp, const LlmEngineConfig& e,
                                                               const LlmInterconnect& link) {
  std::string key;
  char buf[64];
  const auto add = [&](double x) {
    std::snprintf(buf, sizeof buf, "%a,", x);
    key += buf;
  };
  key += shape.name + "|";
  for (double x : {double(shape.layers), double(shape.hidden), double(shape.q_heads),
                   double(shape.kv_heads), double(shape.head_dim), double(shape.ffn),
                   double(shape.gated_mlp), double(shape.vocab), double(shape.tied_embeddings),
                   double(shape.dtype_bytes), peaks.tflops_16bit, peaks.bandwidth_gbps, double(tp),
                   double(e.cuda_graphs), link.bandwidth_gbps, link.efficiency, link.latency_us,
                   double(e.max_num_batched_tokens), double(e.max_num_seqs)}) {
    add(x);
  }
  for (const LlmEfficiencyField& f : llm_efficiency_fields()) add(efficiency.*(f.member));
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const RooflineTimeModel>> cache;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto model =
      std::make_shared<RooflineTimeModel>(shape, peaks, efficiency, tp, e.cuda_graphs, link);
  // An iteration never holds more tokens than the budget nor samples more than max_num_seqs.
  model->tabulate(e.max_num_batched_tokens, e.max_num_seqs);
  const std::lock_guard<std::mutex> lock(mutex);
  // Bounded: a sweep over many engine settings keeps at most this many tables (about 0.3 MB
  // each at an 8,192-token budget).
  constexpr std::size_t kMaxEntries = 64;
  if (cache.size() >= kMaxEntries) cache.clear();
  return cache.emplace(key, std::move(model)).first->second;
}

// `rate_scale: k`: the load k times as fast, its tokens unchanged: a trace's arrivals compressed
// towards its first (times / k), a generated load at k x its rate. A planner's "the same traffic,
// k times more". A closed loop has no rate (its clients set it): refused.
void apply_rate_scale(JsonObject& l, LlmLoad& load, nlohmann::json& echo) {
  const double k = l.required_number("rate_scale", 1e-6, 1e6);
  if (load.kind == LlmLoadKind::kClosed) {
    throw InputError(l.where("rate_scale"), "rate_scale",
                     "a closed loop's rate is set by its clients, not scaled");
  }
  echo["rate_scale"] = k;
  if (load.kind == LlmLoadKind::kGenerated) {
    load.rate_per_s *= k;
    return;
  }
  std::vector<LlmRequestRow> rows = *load.rows;
  const double first = rows.empty() ? 0.0 : rows.front().arrival_s;
  for (LlmRequestRow& r : rows) r.arrival_s = first + (r.arrival_s - first) / k;
  load.rows = std::make_shared<const std::vector<LlmRequestRow>>(std::move(rows));
}

LlmLoad parse_load(JsonObject& l, const std::string& base_dir, nlohmann::json& echo,
                   std::vector<InputFile>& files) {
  LlmLoad load;
  const int kinds = (l.has("trace") ? 1 : 0) + (l.has("rate_per_s") ? 1 : 0) +
                    (l.has("clients") ? 1 : 0);
  if (kinds != 1) {
    throw InputError(l.where(), "trace",
                     kinds == 0 ? "a load needs one of trace (open loop from a request trace), "
                                  "rate_per_s (open loop, generated) or clients (closed loop)"
                                : "give only one of trace, rate_per_s and clients");
  }
  if (l.has("trace")) {
    const std::string file = l.required_string("trace");
    const LlmRequestTrace trace =
        read_llm_request_trace(input_path(files, input_role(l.where("trace")), file, base_dir));
    load.kind = LlmLoadKind::kTrace;
    std::vector<LlmRequestRow> rows = trace.rows;
    echo["trace"] = {{"file", file}, {"format", trace.format}, {"requests", trace.rows.size()}};
    // Time-scaling: the recorded arrivals stretched or compressed to a mean rate, the tokens as
    // recorded (a planner's "this trace's shape at 3 requests/s"), then cut at a duration.
    if (l.has("target_rate_per_s")) {
      const double target = l.required_number("target_rate_per_s", 1e-6, 1e6);
      const double span = rows.size() < 2 ? 0.0 : rows.back().arrival_s - rows.front().arrival_s;
      if (span <= 0.0) {
        throw InputError(l.where("target_rate_per_s"), "target_rate_per_s",
                         "the trace's arrivals span no time, so it has no rate to scale (" +
                             std::to_string(rows.size()) + " requests)");
      }
      const double recorded = static_cast<double>(rows.size() - 1) / span;
      const double stretch = recorded / target;
      const double first = rows.front().arrival_s;
      for (LlmRequestRow& r : rows) r.arrival_s = first + (r.arrival_s - first) * stretch;
      echo["trace"]["recorded_rate_per_s"] = recorded;
      echo["trace"]["target_rate_per_s"] = target;
    }
    if (l.has("duration_s")) {
      const double duration = l.required_number("duration_s", 1e-6, 1e9);
      const double first = rows.front().arrival_s;
      const auto end = std::find_if(rows.begin(), rows.end(), [&](const LlmRequestRow& r) {
        return r.arrival_s - first >= duration;
      });
      rows.erase(end, rows.end());
      echo["trace"]["duration_s"] = duration;
      echo["trace"]["requests_kept"] = rows.size();
    }
    load.rows = std::make_shared<const std::vector<LlmRequestRow>>(std::move(rows));
    for (const char* key : {"rate_per_s", "arrival_cv", "clients", "warmup_requests", "requests",
                            "prompt_tokens", "output_tokens", "token_lengths"}) {
      if (l.has(key)) {
        throw InputError(l.where(key), key, "a trace load takes its arrivals and tokens from the trace");
      }
      l.allow(key);
    }
  } else if (l.has("rate_per_s")) {
    for (const char* key : {"target_rate_per_s", "duration_s"}) {
      if (l.has(key)) throw InputError(l.where(key), key, "goes with a trace load");
    }
    load.kind = LlmLoadKind::kGenerated;
    load.rate_per_s = l.required_number("rate_per_s", 1e-9, 1e6);
    load.arrival_cv = l.optional_number("arrival_cv", 1.0, 0.01, 100.0);
    echo["rate_per_s"] = load.rate_per_s;
    echo["arrival_cv"] = load.arrival_cv;
    echo["arrivals"] = load.arrival_cv == 1.0 ? "poisson" : "gamma";
    parse_tokens(l, base_dir, load, echo, files);
    for (const char* key : {"clients", "warmup_requests", "requests"}) l.allow(key);
  } else {
    load.kind = LlmLoadKind::kClosed;
    load.clients = static_cast<int>(l.optional_int("clients", 0, 1, 1'000'000));
    load.warmup_requests = l.optional_int("warmup_requests", 0, 0, 1'000'000'000);
    load.measured_requests = l.optional_int("requests", 0, 0, 1'000'000'000);
    echo["clients"] = load.clients;
    echo["warmup_requests"] = load.warmup_requests;
    echo["requests"] = load.measured_requests;
    parse_tokens(l, base_dir, load, echo, files);
    l.allow("arrival_cv");
  }
  if (l.has("round_robin")) apply_round_robin(l, load, echo);
  if (l.has("rate_scale")) apply_rate_scale(l, load, echo);
  l.finish();
  return load;
}

}  // namespace

double llm_runtime_reserve_bytes(const LlmShape& m, const LlmEngineConfig& e) {
  // Outside PyTorch's allocator: CUDA context, cuBLAS and NCCL workspaces (about 0.4 GiB on a
  // datacenter GPU). The forward pass's activation peak: per token the residual stream, the
  // QKV and attention outputs and the MLP's gate and up outputs, in the model's dtype. The
  // sampler's profile run holds float32 logits and probabilities of max_num_seqs sequences.
  // CUDA graphs keep their own memory pool (about 0.3 GiB for an 8B model).
  const double per_token = (4.0 * m.hidden + (static_cast<double>(m.q_heads) + 2.0 * m.kv_heads) * m.head_dim +
                            2.0 * m.ffn) * m.dtype_bytes;
  const double activations = per_token * e.max_num_batched_tokens;
  const double logits = 2.0 * 4.0 * static_cast<double>(m.vocab) * e.max_num_seqs;
  return 0.4 * kGiB + activations + logits + (e.cuda_graphs ? 0.3 * kGiB : 0.0);
}

std::int64_t kv_cache_blocks(const LlmShape& model, const LlmEngineConfig& engine,
                             const DeviceProfile& device, const std::string& where) {
  const double memory = static_cast<double>(device.memory.mib()) * 1024.0 * 1024.0 *
                        engine.gpu_memory_utilization;
  const double weights = model.weight_bytes();
  char text[400];
  if (weights >= memory) {
    std::snprintf(text, sizeof text,
                  "%s's weights (%.2f GiB) do not fit the engine's memory on %s (%.2f GiB = "
                  "gpu_memory_utilization %.2f x %.2f GiB)",
                  model.name.c_str(), weights / kGiB, device.name.c_str(), memory / kGiB,
                  engine.gpu_memory_utilization, device.memory.gib());
    throw InputError(where, "model", text);
  }
  const double left = memory - weights - llm_runtime_reserve_bytes(model, engine);
  const double block_bytes = engine.block_size * model.kv_bytes_per_token();
  const double blocks = std::floor(left / block_bytes);
  if (!(blocks >= 1.0)) {
    std::snprintf(text, sizeof text,
                  "no room for one KV-cache block on %s: %.2f GiB of engine memory, %.2f GiB of "
                  "weights and %.2f GiB of runtime reserve leave %.2f GiB (one block is %.0f KiB); "
                  "raise gpu_memory_utilization or use a larger device",
                  device.name.c_str(), memory / kGiB, weights / kGiB,
                  llm_runtime_reserve_bytes(model, engine) / kGiB, left / kGiB, block_bytes / 1024.0);
    throw InputError(where, "gpu_memory_utilization", text);
  }
  return static_cast<std::int64_t>(blocks);
}

std::int64_t llm_engine_memory_mib(const LlmEndpointSpec& spec, const DeviceProfile& device) {
  return static_cast<std::int64_t>(
      std::floor(static_cast<double>(device.memory.mib()) * spec.engine.gpu_memory_utilization));
}

namespace {

// The share of a GPU an engine sees (LlmSharing): its memory as a device profile, and the
// shares of the device's SMs and bandwidth its time model gets.
struct LlmResources {
  DeviceProfile profile;
  double sm_fraction = 1.0;
  double bandwidth_fraction = 1.0;
};

LlmResources parse_sharing(JsonObject& o, const DeviceProfile& device, LlmSharing& sharing,
                           nlohmann::json& echo) {
  LlmResources r{device, 1.0, 1.0};
  if (!o.has("sharing")) {
    o.allow("sharing");
    return r;
  }
  JsonObject so = o.object("sharing");
  nlohmann::json out = nlohmann::json::object();
  if (so.has("mig_profile")) {
    const std::string name = so.required_string("mig_profile");
    const MigProfile* profile = nullptr;
    std::string names;
    for (const MigProfile& p : device.mig_profiles) {
      if (p.name == name) profile = &p;
      names += (names.empty() ? "" : ", ") + p.name;
    }
    if (!profile) {
      throw InputError(so.where("mig_profile"), "mig_profile",
                       device.supports_mig()
                           ? "'" + name + "' is not a MIG profile of " + device.name +
                                 " (its profiles: " + names + ")"
                           : device.name + " has no MIG profiles");
    }
    sharing.mig_profile = name;
    r.profile.name = device.name + " " + name;
    r.profile.memory = profile->memory;
    r.profile.sms = profile->sms;
    r.sm_fraction = static_cast<double>(profile->sms) / device.sms;
    r.bandwidth_fraction =
        static_cast<double>(profile->memory_slices) / device.mig_memory_slices;
    out["mig_profile"] = name;
    out["instance_memory_mib"] = profile->memory.mib();
    out["instance_sms"] = profile->sms;
    out["sm_share"] = r.sm_fraction;
    out["bandwidth_share"] = r.bandwidth_fraction;
  } else {
    so.allow("mig_profile");
  }
  const double percentage = so.optional_number("mps_active_thread_percentage", 0.0, 0.0, 100.0);
  if (so.has("mps_active_thread_percentage") && !(percentage > 0.0)) {
    throw InputError(so.where("mps_active_thread_percentage"), "mps_active_thread_percentage",
                     "must be in (0, 100] (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE)");
  }
  sharing.mps_thread_fraction = percentage / 100.0;
  const std::int64_t device_mib = device.memory.mib();
  sharing.pinned_memory_limit_mib =
      so.optional_int("mps_pinned_memory_limit_mib", 0, 1, device_mib);
  sharing.memory_cap_mib = so.optional_int("memory_cap_mib", 0, 1, device_mib);
  if (!sharing.mig_profile.empty() &&
      (percentage > 0.0 || sharing.pinned_memory_limit_mib > 0 || sharing.memory_cap_mib > 0)) {
    throw InputError(so.where(), "mig_profile",
                     "a MIG instance is isolated: it takes no MPS thread percentage, pinned "
                     "limit or memory cap (its memory is the instance's)");
  }
  if (sharing.pinned_memory_limit_mib > 0 && sharing.memory_cap_mib > 0) {
    throw InputError(so.where(), "memory_cap_mib",
                     "give an MPS pinned-memory limit or a memory cap, not both");
  }
  if (sharing.memory_cap_mib > 0) {
    r.profile.memory = MemoryMiB(sharing.memory_cap_mib);
    r.profile.name = device.name + " (memory cap " + std::to_string(sharing.memory_cap_mib) +
                     " MiB)";
    out["memory_cap_mib"] = sharing.memory_cap_mib;
  }
  if (percentage > 0.0) out["mps_active_thread_percentage"] = percentage;
  if (sharing.pinned_memory_limit_mib > 0) {
    out["mps_pinned_memory_limit_mib"] = sharing.pinned_memory_limit_mib;
  }
  out["memory_from"] = !sharing.mig_profile.empty() ? "mig_instance"
                       : sharing.memory_cap_mib > 0  ? "memory_cap"
                                                     : "device";
  so.finish();
  echo["sharing"] = out;
  return r;
}

// `tensor_parallel`: 1, 2, 4 or 8 GPUs, whose count must split the model's heads as vLLM
// requires (query heads divisible by it; K/V heads divisible by it or dividing it).
int parse_tensor_parallel(JsonObject& o, const LlmShape& model) {
  const int tp = static_cast<int>(o.optional_int("tensor_parallel", 1, 1, 8));
  const std::string where = o.where("tensor_parallel");
  if (tp != 1 && tp != 2 && tp != 4 && tp != 8) {
    throw InputError(where, "tensor_parallel",
                     "expected 1, 2, 4 or 8 GPUs, got " + std::to_string(tp));
  }
  if (model.q_heads % tp != 0) {
    throw InputError(where, "tensor_parallel",
                     model.name + "'s " + std::to_string(model.q_heads) +
                         " attention heads do not split over " + std::to_string(tp) +
                         " GPUs (vLLM requires them divisible by tensor_parallel)");
  }
  if (model.kv_heads % tp != 0 && tp % model.kv_heads != 0) {
    throw InputError(where, "tensor_parallel",
                     model.name + "'s " + std::to_string(model.kv_heads) +
                         " key/value heads neither split over nor divide " + std::to_string(tp) +
                         " GPUs, as vLLM requires");
  }
  return tp;
}

// vLLM takes gpu_memory_utilization x the device's memory at start: under an MPS pinned limit
// below that, its allocation fails and the engine does not start.
void check_pinned_limit(const LlmEndpointSpec& spec, const std::string& where) {
  const std::int64_t limit = spec.sharing.pinned_memory_limit_mib;
  if (limit <= 0) return;
  char text[400];
  const double weights_mib = spec.model.weight_bytes() / (1024.0 * 1024.0);
  if (static_cast<double>(limit) <= weights_mib) {
    std::snprintf(text, sizeof text,
                  "the pinned-memory limit of %lld MiB is below %s's weights (%.0f MiB)",
                  static_cast<long long>(limit), spec.model.name.c_str(), weights_mib);
    throw InputError(where, "mps_pinned_memory_limit_mib", text);
  }
  if (spec.engine_memory_mib > limit) {
    std::snprintf(text, sizeof text,
                  "the engine takes %lld MiB at start (gpu_memory_utilization %.2f of the whole "
                  "device: MPS does not isolate memory), over its pinned-memory limit of %lld "
                  "MiB, so vLLM would fail at start; lower gpu_memory_utilization to at most %.3f",
                  static_cast<long long>(spec.engine_memory_mib),
                  spec.engine.gpu_memory_utilization, static_cast<long long>(limit),
                  std::floor(spec.engine.gpu_memory_utilization * static_cast<double>(limit) /
                             static_cast<double>(spec.engine_memory_mib) * 1000.0) /
                      1000.0);
    throw InputError(where, "mps_pinned_memory_limit_mib", text);
  }
}

}  // namespace

std::shared_ptr<const LlmEndpointSpec> parse_llm_endpoint(JsonObject& o,
                                                          const std::string& base_dir,
                                                          const std::vector<DeviceProfile>& devices,
                                                          nlohmann::json& echo,
                                                          std::vector<InputFile>& files) {
  auto spec = std::make_shared<LlmEndpointSpec>();
  spec->model = find_llm_model(o.required_string("model"), o.where("model"), "model");
  const DeviceProfile& device = pick_device(o, devices);
  spec->device = device.name;
  echo["model"] = spec->model.name;
  echo["device"] = device.name;

  spec->tensor_parallel = parse_tensor_parallel(o, spec->model);
  const int tp = spec->tensor_parallel;
  // What one GPU holds: the model's share of it under tensor parallelism.
  const LlmShape gpu_shape = spec->model.per_gpu(tp);
  if (tp > 1) echo["tensor_parallel"] = tp;

  // What the engine sees of its GPU: the whole device, a MIG instance, or a memory cap.
  LlmResources seen = parse_sharing(o, device, spec->sharing, echo);
  const DeviceProfile& base = seen.profile;
  if (tp > 1 && !spec->sharing.mig_profile.empty()) {
    throw InputError(o.where("tensor_parallel"), "tensor_parallel",
                     "tensor parallelism needs NCCL between the GPUs, and MIG instances have "
                     "none: a tensor-parallel endpoint cannot run on MIG instances");
  }

  LlmEngineConfig& e = spec->engine;
  // vLLM picks its defaults from the memory CUDA reports: the instance's or the cap's.
  const bool large = large_defaults(base);
  std::int64_t override_blocks = 0;
  if (o.has("engine")) {
    JsonObject en = o.object("engine");
    e.max_num_seqs = static_cast<int>(en.optional_int("max_num_seqs", large ? 1024 : 256, 1, 1'000'000));
    e.max_num_batched_tokens = static_cast<int>(
        en.optional_int("max_num_batched_tokens", large ? 8192 : 2048, 1, 100'000'000));
    e.max_model_len = en.optional_int("max_model_len", 0, 1, 100'000'000);
    e.chunked_prefill = en.optional_bool("chunked_prefill", true);
    e.block_size = static_cast<int>(en.optional_int("block_size", 16, 1, 1024));
    if (en.has("gpu_memory_utilization")) {
      e.gpu_memory_utilization = en.required_number("gpu_memory_utilization", 0.0, 1.0);
      if (!(e.gpu_memory_utilization > 0.0)) {
        throw InputError(en.where("gpu_memory_utilization"), "gpu_memory_utilization",
                         "must be in (0, 1]: the share of the device's memory the engine takes");
      }
    } else {
      en.allow("gpu_memory_utilization");
    }
    e.cuda_graphs = en.optional_bool("cuda_graphs", true);
    override_blocks = en.optional_int("num_gpu_blocks_override", 0, 1, 1'000'000'000);
    en.finish();
  } else {
    o.allow("engine");
    e.max_num_seqs = large ? 1024 : 256;
    e.max_num_batched_tokens = large ? 8192 : 2048;
  }
  const std::string engine_where = o.where("engine");
  if (e.max_model_len == 0) {
    e.max_model_len = spec->model.max_positions > 0 ? spec->model.max_positions : 4096;
  }
  if (e.max_num_batched_tokens < e.max_num_seqs) {
    throw InputError(engine_where, "max_num_batched_tokens",
                     "must be at least max_num_seqs (" + std::to_string(e.max_num_seqs) +
                         "), as vLLM requires");
  }
  if (e.max_num_batched_tokens < e.block_size) {
    throw InputError(engine_where, "max_num_batched_tokens",
                     "must be at least one KV block (block_size " + std::to_string(e.block_size) +
                         " tokens)");
  }
  if (!e.chunked_prefill && e.max_num_batched_tokens < e.max_model_len) {
    throw InputError(engine_where, "max_num_batched_tokens",
                     "without chunked prefill it must be at least max_model_len (" +
                         std::to_string(e.max_model_len) + "), as vLLM requires");
  }
  e.kv_blocks = override_blocks > 0 ? override_blocks
                                    : kv_cache_blocks(gpu_shape, e, base, o.where("model"));
  spec->engine_memory_mib = llm_engine_memory_mib(*spec, base);
  check_pinned_limit(*spec, o.where("sharing"));
  const std::int64_t kv_tokens = e.kv_blocks * e.block_size;
  if (e.max_model_len > kv_tokens) {
    throw InputError(engine_where, "max_model_len",
                     "the model's context of " + std::to_string(e.max_model_len) +
                         " tokens exceeds what the KV cache holds (" + std::to_string(kv_tokens) +
                         " tokens); vLLM refuses to start: give a smaller max_model_len or raise "
                         "gpu_memory_utilization");
  }
  echo["engine"] = {{"max_num_seqs", e.max_num_seqs},
                    {"max_num_batched_tokens", e.max_num_batched_tokens},
                    {"max_model_len", e.max_model_len},
                    {"chunked_prefill", e.chunked_prefill},
                    {"block_size", e.block_size},
                    {"gpu_memory_utilization", e.gpu_memory_utilization},
                    {"cuda_graphs", e.cuda_graphs},
                    {"engine_memory_mib", spec->engine_memory_mib},
                    {"kv_cache_blocks", e.kv_blocks},
                    {"kv_cache_tokens", kv_tokens},
                    {"kv_cache_blocks_from", override_blocks > 0 ? "num_gpu_blocks_override"
                                                                   : "memory"}};

  LlmEfficiency efficiency;
  if (o.has("calibration")) {
    const std::string file = o.required_string("calibration");
    efficiency =
        read_llm_efficiency(input_path(files, input_role(o.where("calibration")), file, base_dir));
    echo["calibration"] = file;
  } else {
    o.allow("calibration");
    efficiency = default_llm_efficiency(device);
    echo["calibration"] = nullptr;
  }
  echo["performance_model"] = {{"efficiencies_from", efficiency.device},
                               {"source", efficiency.source}};
  LlmDevicePeaks peaks = llm_device_peaks(device);
  peaks.tflops_16bit *= seen.sm_fraction;
  peaks.bandwidth_gbps *= seen.bandwidth_fraction;
  const LlmInterconnect link = llm_interconnect(device);
  if (tp > 1) {
    echo["interconnect"] = {{"kind", link.kind}, {"bandwidth_gbps", link.bandwidth_gbps},
                            {"efficiency", link.efficiency}, {"latency_us", link.latency_us},
                            {"source", link.source}};
  }
  spec->time_model = tabulated_time_model(spec->model, peaks, efficiency, tp, e, link);
  LlmDevicePeaks half = peaks;
  half.bandwidth_gbps *= 0.5;
  spec->half_bandwidth_model = tabulated_time_model(spec->model, half, efficiency, tp, e, link);

  JsonObject l = o.object("load");
  nlohmann::json load_echo = nlohmann::json::object();
  spec->load = parse_load(l, base_dir, load_echo, files);
  echo["load"] = load_echo;

  spec->ttft_slo_ms = o.optional_number("ttft_slo_ms", 0.0, 1e-6, 1e12);
  spec->tpot_slo_ms = o.optional_number("tpot_slo_ms", 0.0, 1e-6, 1e12);
  echo["ttft_slo_ms"] = spec->ttft_slo_ms > 0 ? nlohmann::json(spec->ttft_slo_ms) : nlohmann::json();
  echo["tpot_slo_ms"] = spec->tpot_slo_ms > 0 ? nlohmann::json(spec->tpot_slo_ms) : nlohmann::json();
  o.finish();
  return spec;
}

}  // namespace gpumux
