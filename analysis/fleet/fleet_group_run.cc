#include "analysis/fleet/fleet_group_run.h"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>

#include "analysis/metrics/endpoint_selector.h"
#include "analysis/metrics/json_path.h"
#include "analysis/run/run.h"
#include "scenarios/scenario.h"

namespace gpumux {

namespace fs = std::filesystem;

double fleet_number_at(const nlohmann::json& row, const char* path) {
  const nlohmann::json* v = json_at_path(row, path);
  return v && v->is_number() ? v->get<double>() : std::nan("");
}

GroupRun judge_group(const nlohmann::json& summary, const std::vector<Objective>& objectives,
                     const std::vector<FleetEndpointInfo>& members) {
  GroupRun g;
  const nlohmann::json* rows = json_at_path(summary, "metrics.requests.services");
  for (const FleetEndpointInfo& e : members) {
    FleetEndpoint out;
    out.id = e.id;
    out.plain = e.plain;
    if (rows && rows->is_array()) {
      for (const auto& row : *rows) {
        if (row.value("id", "") != e.id) continue;
        out.ttft_p50_ms = fleet_number_at(row, "llm.ttft_ms.p50");
        out.ttft_p99_ms = fleet_number_at(row, "llm.ttft_ms.p99");
        out.tpot_p50_ms = fleet_number_at(row, "llm.tpot_ms.p50");
        out.tpot_p99_ms = fleet_number_at(row, "llm.tpot_ms.p99");
        out.output_tokens_per_s = fleet_number_at(row, "llm.output_tokens_per_s");
        out.latency_p50_ms = fleet_number_at(row, "latency_ms.p50");
        out.latency_p99_ms = fleet_number_at(row, "latency_ms.p99");
        g.kv_cache_use[e.id] = fleet_number_at(row, "llm.kv_cache_use");
        const double end_s = fleet_number_at(summary, "engine.end_time_s");
        g.busy_share[e.id] = end_s > 0 ? fleet_number_at(row, "llm.busy_s") / end_s : std::nan("");
        g.served[e.id] = fleet_number_at(row, "served");
      }
    }
    for (const Objective& o : objectives) {
      if (!o.endpoints->selects(e.parent, e.service_class)) continue;
      if (e.plain && metric_of_llm_endpoints_only(o.metric)) continue;
      Objective one = o;
      one.endpoints = EndpointSelector{EndpointSelector::Kind::kName, e.id};
      const ObjectiveCheck c = check_objective(one, summary);
      out.checks.push_back({o.text(), c.value, c.met});
      g.values[e.id].push_back(c.value);
      if (!c.met && !g.miss) g.miss = FleetMiss{e.id, o.text(), c.value, o.limit};
      g.met = g.met && c.met;
    }
    g.endpoints.emplace(e.id, std::move(out));
  }
  return g;
}

GroupRunner::GroupRunner(const std::string& scratch_dir, const std::string& scenario_file,
                         int seeds, const std::vector<Objective>& objectives)
    : seeds_(std::max(1, seeds)), objectives_(objectives) {
  if (scratch_dir.empty()) {
    scratch_ =
        fs::temp_directory_path() /
        ("gpumux-fleet-" + std::to_string(std::hash<std::string>{}(
                               fs::absolute(scenario_file).string() + std::to_string(::getpid()) +
                               std::to_string(reinterpret_cast<std::uintptr_t>(this)))));
    owned_scratch_ = true;
  } else {
    scratch_ = scratch_dir;
  }
  fs::create_directories(scratch_);
}

GroupRunner::~GroupRunner() {
  if (owned_scratch_) {
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
  }
}

GroupRun GroupRunner::run(const FleetBase& base, const std::string& model,
                          const std::vector<FleetGpuSettings>& layout) {
  const FleetDocument d = fleet_document(base, model, layout);
  const fs::path trace = scratch_ / ("trace-" + std::to_string(counter_++) + ".csv");
  {
    std::ofstream out(trace);
    out << d.trace_csv;
  }
  nlohmann::json doc = d.scenario;
  doc["trace"]["file"] = trace.string();
  std::vector<FleetEndpointInfo> members;
  for (const auto& gpu : layout) {
    for (const auto& e : gpu.endpoints) {
      members.push_back(base.endpoints[static_cast<std::size_t>(e.index)]);
    }
  }
  // Every seed must meet; the numbers shown are the first seed's, the values compared by the
  // verification every seed's in order.
  GroupRun g;
  for (int k = 0; k < seeds_; ++k) {
    doc["seed"] = base.seed + static_cast<std::uint64_t>(k);
    const Scenario s = parse_scenario(doc, base.file, base.base_dir);
    RunOptions options;
    options.write_outputs = false;
    const RunReport report = run_scenario(s, options);
    GroupRun one = judge_group(report.summary, objectives_, members);
    if (k == 0) {
      g = std::move(one);
      for (const auto& e : members) {
        const nlohmann::json& fields = s.resolved["services"]["by_id"][e.id];
        if (e.plain) {
          nlohmann::json echo = fields;
          echo["row"] = {{"sm_util", e.row.sm_util},
                         {"sm_share", e.row.sm_share},
                         {"memory_mib", e.row.memory.mib()}};
          g.llm_echoes[e.id] = std::move(echo);
          continue;
        }
        g.engines[e.id] = fields["llm"]["engine"];
        g.llm_echoes[e.id] = fields["llm"];
      }
      for (const LlmEndpointCdfs& c : report.llm_cdfs) g.cdfs[c.id] = c;
      if (const auto* shared = json_at_path(report.summary, "metrics.requests.llm_shared_gpus")) {
        g.shared_gpus = *shared;
      }
      continue;
    }
    if (!one.met && g.met) g.miss = one.miss;
    g.met = g.met && one.met;
    for (auto& [id, e] : g.endpoints) {
      auto& checks = e.checks;
      const auto& more = one.endpoints.at(id).checks;
      for (std::size_t c = 0; c < checks.size() && c < more.size(); ++c) {
        checks[c].met = checks[c].met && more[c].met;
      }
    }
    for (auto& [id, values] : g.values) {
      const auto& more = one.values.at(id);
      values.insert(values.end(), more.begin(), more.end());
    }
  }
  return g;
}

}  // namespace gpumux
