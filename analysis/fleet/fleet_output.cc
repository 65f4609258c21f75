#include "analysis/fleet/fleet_output.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "analysis/fleet/fleet_deploy.h"
#include "analysis/metrics/json_path.h"
#include "analysis/output/number_text.h"
#include "sim/base/atomic_file.h"

namespace gpumux {

namespace fs = std::filesystem;

namespace {

std::string ms(double x) { return std::isfinite(x) ? fixed_text(x, 1) : "n/a"; }

const FleetAnswer* exclusive_answer(const FleetResult& r) {
  for (const auto& a : r.answers) {
    if (a.form == FleetForm::kWhole && a.met) return &a;
  }
  return nullptr;
}

nlohmann::json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

}  // namespace

std::string fleet_placed_text(const FleetEndpoint& e, FleetForm form) {
  std::ostringstream o;
  o << e.id;
  if (e.tensor_parallel > 1) {
    o << " (tensor parallel " << e.tensor_parallel << ", whole GPUs)";
  } else if (e.plain && form != FleetForm::kInstances) {
    // A plain service has no memory share to set; under mps its client's thread share.
    if (e.mps_thread_percentage > 0) o << " (" << e.mps_thread_percentage << " % threads)";
  } else if (form == FleetForm::kInstances) {
    o << " (" << e.mig_profile << ")";
  } else if (form != FleetForm::kWhole) {
    o << " (" << std::lround(e.gpu_memory_utilization * 100) << " % memory";
    if (e.mps_thread_percentage > 0) o << ", " << e.mps_thread_percentage << " % threads";
    o << ")";
  }
  return o.str();
}

std::string fleet_headroom_text(const FleetEndpoint& e) {
  if (std::isnan(e.headroom)) return "n/a";
  if (e.headroom_open) return ">=x" + number_text(e.headroom);
  if (e.headroom <= 1.0) return "<x" + number_text(kHeadroomSteps[0]);
  return "x" + number_text(e.headroom);
}

namespace {

// A file as the assumptions name it: its name alone (paths differ between machines).
std::string file_name(const nlohmann::json& path) {
  return path.is_string() ? fs::path(path.get<std::string>()).filename().string() : "?";
}

std::string rate_text(const nlohmann::json& x) {
  return x.is_number() ? number_text(x.get<double>()) + " req/s" : "?";
}

// "trace conv.csv.gz (azure-llm, recorded 1.2 req/s) at 2 req/s, 3600 s", "2 req/s (poisson),
// prompt 200 and output 50 tokens", "8 clients, ...".
std::string traffic_text(const nlohmann::json& load) {
  std::ostringstream o;
  if (load.contains("trace") && load["trace"].is_object()) {
    const nlohmann::json& t = load["trace"];
    o << "trace " << file_name(t.value("file", nlohmann::json())) << " (" << t.value("format", "?")
      << ", recorded " << rate_text(t.value("recorded_rate_per_s", nlohmann::json())) << ")";
    if (t.contains("target_rate_per_s")) o << " at " << rate_text(t["target_rate_per_s"]);
    if (t.contains("duration_s") && t["duration_s"].is_number()) {
      o << ", " << number_text(t["duration_s"].get<double>()) << " s";
    }
    o << ", token lengths as recorded";
  } else {
    if (load.contains("rate_per_s")) {
      o << rate_text(load["rate_per_s"]) << " (" << load.value("arrivals", "poisson") << ")";
    } else if (load.contains("clients")) {
      o << load["clients"].dump() << " closed-loop clients";
    }
    if (load.contains("token_lengths") && load["token_lengths"].is_object()) {
      o << ", token lengths from "
        << file_name(load["token_lengths"].value("file", nlohmann::json()));
    } else if (load.contains("prompt_tokens") && load.contains("output_tokens")) {
      o << ", prompt " << load["prompt_tokens"].dump() << " and output "
        << load["output_tokens"].dump() << " tokens";
    }
  }
  if (load.contains("rate_scale") && load["rate_scale"].is_number()) {
    o << ", rate scaled x" << number_text(load["rate_scale"].get<double>());
  }
  return o.str();
}

std::string engine_text(const nlohmann::json& e) {
  std::ostringstream o;
  const auto number = [&](const char* key) {
    return e.contains(key) && e[key].is_number() ? number_text(e[key].get<double>()) : "?";
  };
  o << "max_num_seqs " << number("max_num_seqs") << ", max_num_batched_tokens "
    << number("max_num_batched_tokens") << ", max_model_len " << number("max_model_len")
    << ", block " << number("block_size") << ", chunked prefill "
    << (e.value("chunked_prefill", false) ? "on" : "off") << ", CUDA graphs "
    << (e.value("cuda_graphs", false) ? "on" : "off");
  return o.str();
}

// A plain service as it ran: its services.by_id echo (arrivals, service time, batching) and its
// trace row's GPU columns (`row`).
FleetAssumption plain_assumption(const std::string& id, const nlohmann::json& echo) {
  std::ostringstream o;
  const auto number = [&](const nlohmann::json& x) {
    return x.is_number() ? number_text(x.get<double>()) : std::string("?");
  };
  o << "plain service; traffic: ";
  if (echo.contains("request_rate_per_s")) {
    o << rate_text(echo["request_rate_per_s"]) << " (poisson)";
  } else if (echo.contains("rate_series")) {
    o << "a rate series";
  } else if (echo.contains("request_times")) {
    o << "request times from " << file_name(echo["request_times"].value("file", nlohmann::json()))
      << " (" << number(echo["request_times"].value("requests", nlohmann::json())) << " requests)";
  } else {
    o << "services.default's";
  }
  o << "; " << (echo.contains("service_ms") ? number(echo["service_ms"]) : "default's")
    << " ms per request alone";
  if (echo.contains("max_batch")) o << ", batches up to " << number(echo["max_batch"]);
  const nlohmann::json row = echo.value("row", nlohmann::json::object());
  o << "; GPU: sm_util " << number(row.value("sm_util", nlohmann::json())) << ", sm_share "
    << number(row.value("sm_share", nlohmann::json())) << ", memory "
    << number(row.value("memory_mib", nlohmann::json())) << " MiB";
  FleetAssumption a;
  a.id = id;
  a.text = o.str();
  a.detail = echo;
  a.detail["plain_service"] = true;
  return a;
}

}  // namespace

std::vector<FleetAssumption> fleet_assumptions(const FleetResult& r) {
  std::vector<FleetAssumption> out;
  for (const std::string& id : r.endpoint_ids) {
    const FleetEndpoint* found = nullptr;
    for (const FleetAnswer& a : r.answers) {
      for (const FleetEndpoint& e : a.endpoints) {
        if ((e.parent.empty() ? e.id : e.parent) == id && e.replica == 0 &&
            e.llm_echo.is_object()) {
          found = &e;
          break;
        }
      }
      if (found) break;
    }
    if (!found) continue;
    if (found->plain) {
      out.push_back(plain_assumption(id, found->llm_echo));
      continue;
    }
    const nlohmann::json& echo = found->llm_echo;
    nlohmann::json load = echo.value("load", nlohmann::json::object());
    load.erase("round_robin");  // the planner's split, said under replicas
    const nlohmann::json engine = echo.value("engine", nlohmann::json::object());
    nlohmann::json engine_kept = nlohmann::json::object();
    for (const char* key : {"max_num_seqs", "max_num_batched_tokens", "max_model_len", "block_size",
                            "chunked_prefill", "cuda_graphs"}) {
      if (engine.contains(key)) engine_kept[key] = engine[key];
    }
    const nlohmann::json* from = json_at_path(echo, "performance_model.efficiencies_from");
    const std::string efficiencies = from && from->is_string() ? from->get<std::string>() : "?";
    const nlohmann::json calibration = echo.value("calibration", nlohmann::json());
    FleetAssumption a;
    a.id = id;
    a.text = found->llm_model + "; traffic: " + traffic_text(load) +
             "; engine: " + engine_text(engine_kept) + "; efficiencies: " + efficiencies +
             (calibration.is_string() ? " (calibration " + file_name(calibration) + ")" : "");
    a.detail = {{"llm_model", found->llm_model},
                {"load", load},
                {"engine", engine_kept},
                {"efficiencies_from", efficiencies},
                {"calibration", calibration}};
    out.push_back(std::move(a));
  }
  return out;
}

void print_fleet_table(const FleetResult& r, std::ostream& out) {
  out << "gpumux plan --fleet  scenario '" << r.scenario_name << "' (" << r.scenario_file
      << ")  seed " << r.seed << "\n";
  out << "endpoints   " << r.endpoint_ids.size() - static_cast<std::size_t>(r.plain_services)
      << " LLM endpoints";
  if (r.plain_services > 0) out << " and " << r.plain_services << " plain services";
  out << " on " << r.device << ", " << r.gpus_per_node << " GPUs per node\n";
  out << "objectives ";
  for (std::size_t i = 0; i < r.objectives.size(); ++i) {
    out << (i == 0 ? " " : ", ") << r.objectives[i].text()
        << (r.objectives[i].implicit ? " (always)" : "");
  }
  out << "\n";
  if (!r.replicas.empty()) {
    out << "replicas   ";
    for (std::size_t i = 0; i < r.replicas.size(); ++i) {
      out << (i == 0 ? " " : ", ") << r.replicas[i].first << " x" << r.replicas[i].second;
    }
    out << " (round robin: one whole GPU misses an objective)\n";
  }
  out << "\n";
  const FleetAnswer* base = exclusive_answer(r);
  out << "  model        GPUs  nodes  saving  search  verified  answer\n";
  for (const FleetAnswer& a : r.answers) {
    const int gpus = a.gpu_count();
    std::string saving = "-";
    if (base && a.met && &a != base && !base->gpus.empty()) {
      saving = fixed_text(100.0 * (1.0 - static_cast<double>(gpus) / base->gpu_count()), 0) + " %";
    }
    out << "  " << std::left << std::setw(11) << a.model << std::right << std::setw(6) << gpus
        << std::setw(7) << a.nodes(r.gpus_per_node) << std::setw(8) << saving << "  " << std::left
        << std::setw(8) << (a.exact ? "exact" : "greedy") << std::setw(10)
        << (a.verified ? "yes" : "NO") << std::right
        << (a.met                     ? "met"
            : !a.alone_misses.empty() ? "NOT MET (an endpoint misses alone)"
                                      : "NOT MET (unverified)")
        << "\n";
  }
  out << "  memory-only packing (weights + reserve + mean KV alone, first fit into 90 %): "
      << r.naive_gpus << " GPUs";
  if (r.naive_miss) {
    out << "; time-sliced as packed it misses: " << r.naive_miss->text();
  } else if (r.naive_gpus > 0) {
    out << "; time-sliced as packed it meets every objective";
  }
  out << "\n";
  for (const FleetAnswer& a : r.answers) {
    out << "\n"
        << a.model << ": " << a.gpu_count() << " GPUs, " << a.nodes(r.gpus_per_node) << " nodes ("
        << a.groups_simulated << " simulations)\n";
    for (std::size_t g = 0; g < a.gpus.size(); ++g) {
      const FleetGpu& gpu = a.gpus[g];
      if (gpu.width == 1) {
        out << "  GPU " << std::setw(2) << gpu.first << "  ";
      } else {
        out << "  GPUs " << gpu.first << "-" << gpu.first + gpu.width - 1 << "  ";
      }
      for (std::size_t k = 0; k < a.gpus[g].endpoints.size(); ++k) {
        out << (k ? ", " : "")
            << fleet_placed_text(a.endpoints[static_cast<std::size_t>(a.gpus[g].endpoints[k])],
                                 a.form);
      }
      const bool plain = std::all_of(gpu.endpoints.begin(), gpu.endpoints.end(), [&](int i) {
        return a.endpoints[static_cast<std::size_t>(i)].plain;
      });
      if (plain) {
        out << "  (plain services)\n";
      } else {
        out << "  " << fixed_text(a.gpus[g].output_tokens_per_s, 0) << " output tokens/s\n";
      }
    }
    // Request latency columns where plain services are planned (their only numbers).
    const bool latency = r.plain_services > 0;
    out << "  endpoint            GPU  TTFT p50  TTFT p99  TPOT p50  TPOT p99  tokens/s  "
        << (latency ? "lat p50  lat p99  " : "") << "headroom\n";
    for (const FleetEndpoint& e : a.endpoints) {
      if (e.gpu < 0) continue;
      out << "  " << std::left << std::setw(18) << e.id << std::right << std::setw(5) << e.gpu
          << std::setw(10) << ms(e.ttft_p50_ms) << std::setw(10) << ms(e.ttft_p99_ms)
          << std::setw(10) << ms(e.tpot_p50_ms) << std::setw(10) << ms(e.tpot_p99_ms)
          << std::setw(10) << ms(e.output_tokens_per_s);
      if (latency)
        out << std::setw(9) << ms(e.latency_p50_ms) << std::setw(9) << ms(e.latency_p99_ms);
      out << std::setw(10) << fleet_headroom_text(e) << "\n";
    }
    for (const FleetMiss& m : a.alone_misses) out << "  misses alone: " << m.text() << "\n";
    if (!a.one_fewer_note.empty()) {
      out << "  one GPU fewer: " << a.one_fewer_note;
      if (a.one_fewer_miss) out << ": " << a.one_fewer_miss->text();
      out << "\n";
    }
    if (!a.search_note.empty()) out << "  search: " << a.search_note << "\n";
    out << "  verified: " << a.verification << "\n";
  }
  out << "\n";
  const std::vector<FleetAssumption> assumed = fleet_assumptions(r);
  if (!assumed.empty()) {
    out << "assumptions (each endpoint as simulated; --vary moves one):\n";
    for (const FleetAssumption& a : assumed) out << "  " << a.id << "  " << a.text << "\n";
    out << "\n";
  }
  for (const std::string& n : r.notes) out << "note  " << n << "\n";
}

nlohmann::json fleet_to_json(const FleetResult& r) {
  nlohmann::json j;
  j["scenario"] = {{"name", r.scenario_name}, {"file", r.scenario_file}, {"seed", r.seed}};
  j["device"] = r.device;
  j["gpus_per_node"] = r.gpus_per_node;
  j["objectives"] = nlohmann::json::array();
  for (const Objective& o : r.objectives) {
    j["objectives"].push_back({{"objective", o.text()}, {"implicit", o.implicit}});
  }
  j["replicas"] = nlohmann::json::object();
  for (const auto& [id, n] : r.replicas) j["replicas"][id] = n;
  j["answers"] = nlohmann::json::array();
  const auto miss_json = [](const FleetMiss& m) {
    return nlohmann::json{{"endpoint", m.endpoint},
                          {"objective", m.objective},
                          {"value", number_or_null(m.value)},
                          {"bound", m.bound}};
  };
  for (const FleetAnswer& a : r.answers) {
    nlohmann::json x;
    x["model"] = a.model;
    x["met"] = a.met;
    x["gpus"] = a.gpu_count();
    x["nodes"] = a.nodes(r.gpus_per_node);
    x["exact"] = a.exact;
    if (!a.search_note.empty()) x["search_note"] = a.search_note;
    x["groups_simulated"] = a.groups_simulated;
    x["verified"] = a.verified;
    x["verification"] = a.verification;
    x["map"] = nlohmann::json::array();
    for (const FleetGpu& g : a.gpus) {
      nlohmann::json gpu;
      gpu["first_gpu"] = g.first;
      gpu["gpus"] = g.width;
      gpu["endpoints"] = nlohmann::json::array();
      for (int i : g.endpoints)
        gpu["endpoints"].push_back(a.endpoints[static_cast<std::size_t>(i)].id);
      if (!g.mig_layout.empty()) gpu["mig_layout"] = g.mig_layout;
      gpu["output_tokens_per_s"] = g.output_tokens_per_s;
      gpu["busy"] = {{"gpu", number_or_null(g.gpu_busy)},
                     {"sm", number_or_null(g.sm_busy)},
                     {"bandwidth", number_or_null(g.bandwidth_busy)}};
      x["map"].push_back(gpu);
    }
    x["endpoints"] = nlohmann::json::array();
    for (const FleetEndpoint& e : a.endpoints) {
      nlohmann::json ej = {
          {"id", e.id},
          {"llm_model", e.llm_model},
          {"gpu", e.gpu},
          {"tensor_parallel", e.tensor_parallel},
          {"gpu_memory_utilization", e.gpu_memory_utilization},
          {"ttft_ms",
           {{"p50", number_or_null(e.ttft_p50_ms)}, {"p99", number_or_null(e.ttft_p99_ms)}}},
          {"tpot_ms",
           {{"p50", number_or_null(e.tpot_p50_ms)}, {"p99", number_or_null(e.tpot_p99_ms)}}},
          {"output_tokens_per_s", number_or_null(e.output_tokens_per_s)},
          {"headroom", {{"load_multiplier", e.headroom}, {"at_least", e.headroom_open}}},
          {"busy_share", number_or_null(e.busy_share)},
          {"kv_cache_use", number_or_null(e.kv_cache_use)},
          {"memory_mib", {{"weights_and_reserve", e.fixed_mib}, {"engine", e.engine_memory_mib}}}};
      if (!e.service_class.empty()) ej["class"] = e.service_class;
      if (e.plain) {
        ej["plain_service"] = true;
        ej["latency_ms"] = {{"p50", number_or_null(e.latency_p50_ms)},
                            {"p99", number_or_null(e.latency_p99_ms)}};
      }
      if (!e.mig_profile.empty()) ej["mig_profile"] = e.mig_profile;
      if (e.mps_thread_percentage > 0) {
        ej["mps_active_thread_percentage"] = e.mps_thread_percentage;
        ej["mps_pinned_memory_limit_mib"] = e.mps_memory_limit_mib;
      }
      ej["checks"] = nlohmann::json::array();
      for (const auto& c : e.checks) {
        ej["checks"].push_back(
            {{"objective", c.objective}, {"value", number_or_null(c.value)}, {"met", c.met}});
      }
      x["endpoints"].push_back(ej);
    }
    x["alone_misses"] = nlohmann::json::array();
    for (const FleetMiss& m : a.alone_misses) x["alone_misses"].push_back(miss_json(m));
    x["one_fewer"] = {{"note", a.one_fewer_note},
                      {"miss", a.one_fewer_miss ? miss_json(*a.one_fewer_miss) : nullptr}};
    j["answers"].push_back(x);
  }
  j["memory_only_packing"] = {
      {"gpus", r.naive_gpus},
      {"timeslice_miss", r.naive_miss ? miss_json(*r.naive_miss) : nullptr}};
  j["assumptions"] = nlohmann::json::array();
  for (const FleetAssumption& a : fleet_assumptions(r)) {
    nlohmann::json x = a.detail;
    x["endpoint"] = a.id;
    j["assumptions"].push_back(std::move(x));
  }
  j["notes"] = r.notes;
  return j;
}

void write_fleet_scenarios(const FleetResult& r, const std::string& dir,
                           const std::string& final_dir) {
  const fs::path scenario_dir = fs::absolute(fs::path(r.scenario_file)).parent_path();
  for (const FleetAnswer& a : r.answers) {
    if (a.gpus.empty()) continue;
    const fs::path where = fs::path(dir) / "fleet" / a.model;
    const fs::path final_where = fs::absolute(fs::path(final_dir) / "fleet" / a.model);
    fs::create_directories(where);
    nlohmann::json doc = a.scenario;
    // Request times, request traces and token-length files: relative to the scenario's new
    // folder.
    const auto move_path = [&](nlohmann::json& holder, const char* key) {
      if (!holder.contains(key) || !holder[key].is_string()) return;
      const fs::path p = holder[key].get<std::string>();
      const fs::path absolute = p.is_absolute() ? p : (scenario_dir / p).lexically_normal();
      holder[key] = absolute.lexically_relative(final_where).generic_string();
    };
    for (auto& [id, fields] : doc["services"]["by_id"].items()) {
      move_path(fields, "request_times");
      if (!fields.contains("llm") || !fields["llm"].contains("load")) continue;
      for (const char* key : {"trace", "token_lengths"}) move_path(fields["llm"]["load"], key);
    }
    doc["trace"]["file"] = "trace.csv";
    doc["description"] = "The " + a.model + " answer of gpumux plan --fleet for '" +
                         r.scenario_name + "': " + std::to_string(a.gpu_count()) +
                         " GPUs as one node (endpoints do not span GPUs)";
    AtomicFile s((where / "scenario.json").string(), (final_where / "scenario.json").string());
    s.stream() << doc.dump(2) << "\n";
    s.commit();
    AtomicFile t((where / "trace.csv").string(), (final_where / "trace.csv").string());
    t.stream() << a.trace_csv;
    t.commit();
    for (const FleetDeployFile& f : fleet_deploy_files(r, a)) {
      AtomicFile file((where / f.name).string(), (final_where / f.name).string());
      file.stream() << f.text;
      file.commit();
    }
  }
}

}  // namespace gpumux
