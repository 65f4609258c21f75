#include "analysis/fleet/fleet_scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "analysis/fleet/endpoint_groups.h"
#include "analysis/fleet/fleet_form.h"
#include "analysis/fleet/fleet_plan.h"
#include "analysis/metrics/json_path.h"
#include "analysis/output/number_text.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/llm/llm_endpoint.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {

namespace fs = std::filesystem;

int FleetBase::index_of(const std::string& id) const {
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    if (endpoints[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

std::vector<FleetEndpointInfo> replicas_of(const FleetEndpointInfo& e, int replicas) {
  std::vector<FleetEndpointInfo> out;
  for (int i = 0; i < replicas; ++i) {
    FleetEndpointInfo r = e;
    r.replica = i;
    r.replicas = replicas;
    r.id = replicas == 1
               ? e.parent
               : e.parent + "-r" + std::to_string(i + 1) + "of" + std::to_string(replicas);
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

std::int64_t longest_request(const LlmLoad& load) {
  std::int64_t longest = 0;
  if (load.rows) {
    for (const LlmRequestRow& r : *load.rows) {
      longest = std::max<std::int64_t>(longest, std::int64_t{r.prompt_tokens} + r.output_tokens);
    }
  }
  if (load.tokens.pairs) {
    for (const auto& [prompt, output] : *load.tokens.pairs) {
      longest = std::max<std::int64_t>(longest, std::int64_t{prompt} + output);
    }
  }
  return std::max<std::int64_t>(
      longest, std::int64_t{load.tokens.prompt_tokens} + load.tokens.output_tokens);
}

// A plain service's endpoint: its trace row kept whole; its arrivals and service time must come
// from services.by_id or services.default (the planner's traces repeat only the row's GPU
// columns).
FleetEndpointInfo plain_service(const Scenario& own, const JobSpec& job,
                                const ServiceFields& fields) {
  const std::string where = own.trace.path;
  if (job.kind != JobKind::kInference) {
    throw InputError(where, "kind",
                     "'" + job.id + "' is named in services.by_id but is of kind " +
                         std::string(job_kind_name(job.kind)));
  }
  if (job.gpus != 1) {
    throw InputError(where, "gpus",
                     "plain service '" + job.id + "' asks for " + std::to_string(job.gpus) +
                         " GPUs; a fleet plan places plain services on one GPU each (an LLM "
                         "endpoint spans GPUs with llm.tensor_parallel)");
  }
  const ServiceFields* defaults = own.services.defaults.get();
  const bool arrivals = fields.arrival_given || (defaults && defaults->arrival_given);
  const bool service_ms =
      !std::isnan(fields.spec->service_ms) || (defaults && !std::isnan(defaults->spec->service_ms));
  if (!arrivals || !service_ms) {
    throw InputError(fields.where, arrivals ? "service_ms" : "request_rate_per_s",
                     "a fleet plan takes plain service '" + job.id + "'s " +
                         (arrivals ? "service_ms" : "arrivals") +
                         " from services.by_id or services.default, not from trace columns");
  }
  FleetEndpointInfo e;
  e.id = job.id;
  e.parent = job.id;
  e.plain = true;
  e.row = job;
  e.row.service.reset();
  e.service_class = fields.spec->service_class;
  if (e.service_class.empty() && defaults) e.service_class = defaults->spec->service_class;
  e.lifetime_s = job.runtime.seconds();
  e.fixed_mib = static_cast<double>(job.memory.mib());
  return e;
}

}  // namespace

FleetBase load_fleet_base(const FleetRequest& request) {
  FleetBase base;
  base.file = request.scenario_file;
  base.base_dir = fs::path(request.scenario_file).parent_path().string();
  nlohmann::json doc = read_json_file(request.scenario_file);
  if (!doc.is_object()) throw InputError(base.file, "", "a scenario is a JSON object");
  for (const auto& a : request.sets) apply_override(doc, a);
  if (request.seed) doc["seed"] = *request.seed;
  // The scenario as written must be valid first.
  const Scenario own = parse_scenario(doc, base.file, base.base_dir);
  if (!doc["cluster"].contains("node_groups")) {
    throw InputError(base.file + "#/cluster", "node_groups",
                     "a fleet plan needs the cluster as node_groups (their device and "
                     "gpus_per_node say what a GPU and a node are)");
  }
  if (own.devices.size() != 1) {
    throw InputError(base.file + "#/cluster/node_groups", "device",
                     "a fleet plan places endpoints on one device type; this cluster has " +
                         std::to_string(own.devices.size()));
  }
  if (own.trace.generated) {
    throw InputError(base.file + "#/trace", "file",
                     "a fleet plan reads its endpoints from a trace file, not a generator");
  }
  base.name = own.name;
  base.seed = own.seed;
  base.device = own.devices.front();
  base.gpus_per_node = own.resolved["cluster"]["node_groups"][0]["gpus_per_node"].get<int>();
  base.sharing_model = own.resolved["sharing"]["model"].get<std::string>();
  if (doc.contains("sharing") && doc["sharing"].contains("params")) {
    base.sharing_params = doc["sharing"]["params"];
  }
  const auto& by_id = own.services.by_id;
  auto source = open_scenario_trace(own.trace.path, own.trace.format, own.trace.defaults, own.seed);
  JobSpec job;
  while (source->next(job)) {
    const auto it = by_id.find(job.id);
    const auto* llm = it != by_id.end() && it->second.spec ? it->second.spec->llm.get() : nullptr;
    if (llm == nullptr) {
      if (it == by_id.end() || !it->second.spec) {
        throw InputError(own.trace.path, "id",
                         "a fleet plan places services named in services.by_id: LLM endpoints (an "
                         "`llm` object) and plain services; job '" +
                             job.id + "' is not named there");
      }
      if (base.index_of(job.id) >= 0) {
        throw InputError(own.trace.path, "id", "endpoint '" + job.id + "' listed twice");
      }
      base.endpoints.push_back(plain_service(own, job, it->second));
      continue;
    }
    if (llm->tensor_parallel > base.gpus_per_node) {
      throw InputError(base.file + "#/services/by_id/" + job.id + "/llm", "tensor_parallel",
                       "'" + job.id + "' spans " + std::to_string(llm->tensor_parallel) +
                           " GPUs of one node, and a node here has " +
                           std::to_string(base.gpus_per_node));
    }
    FleetEndpointInfo e;
    e.tensor_parallel = llm->tensor_parallel;
    e.id = job.id;
    e.parent = job.id;
    e.longest_request_tokens = longest_request(llm->load);
    e.block_size = llm->engine.block_size;
    {
      const auto& fields = doc["services"]["by_id"][job.id]["llm"];
      e.max_model_len_given =
          fields.contains("engine") && fields["engine"].contains("max_model_len");
    }
    e.service_class = it->second.spec->service_class;
    e.llm_model = own.resolved["services"]["by_id"][job.id]["llm"]["model"].get<std::string>();
    e.lifetime_s = job.runtime.seconds();
    constexpr double kMiB = 1024.0 * 1024.0;
    e.kv_cache_mib = static_cast<double>(llm->engine.kv_blocks) * llm->engine.block_size *
                     llm->model.kv_bytes_per_token() / kMiB;
    e.fixed_mib = static_cast<double>(llm->engine_memory_mib) - e.kv_cache_mib;
    if (base.index_of(e.id) >= 0) {
      throw InputError(own.trace.path, "id", "endpoint '" + e.id + "' listed twice");
    }
    base.endpoints.push_back(std::move(e));
  }
  if (base.endpoints.empty()) throw InputError(own.trace.path, "", "no endpoints to plan");
  if (base.endpoints.size() > static_cast<std::size_t>(kMaxEndpoints)) {
    throw InputError(own.trace.path, "",
                     "a fleet plan places at most " + std::to_string(kMaxEndpoints) +
                         " endpoints; this trace has " + std::to_string(base.endpoints.size()));
  }
  // The planner sets every endpoint's memory share and sharing settings.
  for (auto& [id, fields] : doc["services"]["by_id"].items()) {
    fields.erase("mps_active_thread_percentage");
    if (!fields.contains("llm")) continue;
    fields["llm"].erase("sharing");
    if (fields["llm"].contains("engine")) fields["llm"]["engine"].erase("gpu_memory_utilization");
  }
  doc.erase("expect");
  base.document = std::move(doc);
  return base;
}

FleetDocument fleet_document(const FleetBase& base, const std::string& model,
                             const std::vector<FleetGpuSettings>& gpus) {
  FleetDocument out;
  nlohmann::json doc = base.document;
  int total = 0;
  for (const auto& g : gpus) total += g.width;
  doc["cluster"] = {{"node_groups", nlohmann::json::array({{{"name", "fleet"},
                                                            {"nodes", 1},
                                                            {"gpus_per_node", total},
                                                            {"device", base.device.name}}})}};
  nlohmann::json sharing = {{"model", model}};
  if (fleet_form(model) == FleetForm::kInstances) {
    nlohmann::json entries = nlohmann::json::array();
    int index = 0;
    for (const auto& g : gpus) {
      if (g.width > 1) {
        // A gang: its GPUs stay whole.
        for (int k = 0; k < g.width; ++k, ++index) {
          entries.push_back({{"devices", nlohmann::json::array({index})},
                             {"mig-enabled", false},
                             {"mig-devices", nlohmann::json::object()}});
        }
        continue;
      }
      std::map<std::string, int> counts;
      for (const auto& e : g.endpoints) ++counts[e.mig_profile];
      entries.push_back({{"devices", nlohmann::json::array({index++})},
                         {"mig-enabled", true},
                         {"mig-devices", counts}});
    }
    sharing["params"] = {{"mig_parted", {{"version", "v1"}, {"mig-configs", {{"fleet", entries}}}}},
                         {"config", "fleet"}};
  } else if (model == base.sharing_model && !base.sharing_params.is_null()) {
    sharing["params"] = base.sharing_params;
  }
  doc["sharing"] = sharing;
  if (!doc.contains("scheduler")) doc["scheduler"] = nlohmann::json::object();
  doc["scheduler"]["placement"] = "first-fit";
  doc["scheduler"].erase("params");
  doc["trace"] = {{"file", "trace.csv"}};
  doc.erase("faults");
  doc["outputs"] = {{"dir", "out/" + base.name + "-fleet-" + model}};
  nlohmann::json by_id = nlohmann::json::object();
  std::ostringstream trace;
  // Plain services need their GPU columns; LLM endpoints leave them empty (the defaults).
  const bool plain_columns = std::any_of(base.endpoints.begin(), base.endpoints.end(),
                                         [](const FleetEndpointInfo& e) { return e.plain; });
  trace << "id,submit_s,gpus,runtime_s,kind"
        << (plain_columns
                ? ",sm_util,sm_share,memory_mib,mig_profile,kernel_us,memory_limit_mib,mem_bw_util"
                : "")
        << "\n";
  for (const auto& gpu : gpus) {
    for (const auto& s : gpu.endpoints) {
      const FleetEndpointInfo& e = base.endpoints[static_cast<std::size_t>(s.index)];
      nlohmann::json fields = base.document["services"]["by_id"][e.parent];
      if (e.plain) {
        if (s.mps_thread_percentage > 0) {
          fields["mps_active_thread_percentage"] = s.mps_thread_percentage;
        }
        if (s.load_scale != 1.0) {
          // Its own rate, else services.default's.
          const nlohmann::json* defaults = json_at_path(base.document, "services.default");
          auto rate = fields.find("request_rate_per_s");
          if (rate == fields.end() && !fields.contains("rate_series") &&
              !fields.contains("request_times") && defaults && defaults->is_object() &&
              defaults->contains("request_rate_per_s")) {
            fields["request_rate_per_s"] = (*defaults)["request_rate_per_s"];
            rate = fields.find("request_rate_per_s");
          }
          if (rate == fields.end() || !rate->is_number()) {
            throw InputError(base.file + "#/services/by_id/" + e.id, "request_rate_per_s",
                             "a plain service's load scales by its request_rate_per_s; '" + e.id +
                                 "' gives its arrivals otherwise");
          }
          fields["request_rate_per_s"] = rate->get<double>() * s.load_scale;
        }
        by_id[e.id] = fields;
        const JobSpec& r = e.row;
        const std::int64_t limit =
            s.mps_memory_limit_mib > 0 ? s.mps_memory_limit_mib : r.memory_limit.mib();
        // Outside MIG it holds its GPU share of memory, as an engine holds its
        // gpu_memory_utilization: first fit then puts nothing else on its GPU.
        std::int64_t memory = r.memory.mib();
        if (s.mig_profile.empty()) {
          memory = std::max(memory, static_cast<std::int64_t>(
                                        std::floor(s.gpu_memory_utilization *
                                                   static_cast<double>(base.device.memory.mib()))));
        }
        trace << csv_field(e.id) << ",0,1," << csv_number(e.lifetime_s) << ",inference,"
              << csv_number(r.sm_util) << "," << csv_number(r.sm_share) << "," << memory << ","
              << csv_field(s.mig_profile) << "," << r.kernel_length.us() << "," << limit << ","
              << csv_number(r.mem_bw_util) << "\n";
        continue;
      }
      fields["llm"]["engine"]["gpu_memory_utilization"] = s.gpu_memory_utilization;
      if (!e.max_model_len_given) {
        const std::int64_t block = e.block_size;
        fields["llm"]["engine"]["max_model_len"] =
            (e.longest_request_tokens + block - 1) / block * block;
      }
      // Headroom scales the load as the scenario gives it (its own rate_scale included).
      if (s.load_scale != 1.0) {
        nlohmann::json& load = fields["llm"]["load"];
        const auto given = load.find("rate_scale");
        const double own = given != load.end() && given->is_number() ? given->get<double>() : 1.0;
        load["rate_scale"] = own * s.load_scale;
      }
      if (e.replicas > 1) {
        fields["llm"]["load"]["round_robin"] = {{"replicas", e.replicas}, {"index", e.replica}};
      }
      nlohmann::json share = nlohmann::json::object();
      if (!s.mig_profile.empty()) share["mig_profile"] = s.mig_profile;
      if (s.mps_thread_percentage > 0) {
        share["mps_active_thread_percentage"] = s.mps_thread_percentage;
        share["mps_pinned_memory_limit_mib"] = s.mps_memory_limit_mib;
      }
      if (!share.empty()) fields["llm"]["sharing"] = share;
      by_id[e.id] = fields;
      trace << csv_field(e.id) << ",0," << e.tensor_parallel << "," << csv_number(e.lifetime_s)
            << ",inference" << (plain_columns ? ",,,,,,," : "") << "\n";
    }
  }
  doc["services"]["by_id"] = by_id;
  out.scenario = std::move(doc);
  out.trace_csv = trace.str();
  return out;
}

}  // namespace gpumux
