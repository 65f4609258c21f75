// `gpumux models` (the tables of sharing models, service engines, queue and placement policies,
// trace formats; `models NAME`: one sharing model's or service engine's declared parameters)
// and `gpumux metrics` (the metric catalogue).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/metrics/metric_catalogue.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "models/sharing_registry.h"
#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/placement/placement_registry.h"
#include "sim/scheduling/queue_policy_table.h"
#include "sim/services/registry.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {

namespace {

void print_parameters(const std::vector<ModelParameter>& parameters, std::ostream& out) {
  for (const auto& p : parameters) {
    std::string value = p.kind == ModelParameter::Kind::kSwitch ? (p.value != 0 ? "true" : "false")
                        : p.kind == ModelParameter::Kind::kChoice ? std::string(p.choice)
                                                                  : nlohmann::json(p.value).dump();
    out << "  " << p.name << " = " << value << (p.unit.empty() ? "" : " " + p.unit) << "\n"
        << "      " << p.description << "\n"
        << "      source: " << p.source << "\n";
    if (!p.accepts.empty()) out << "      accepts: " << p.accepts << "\n";
  }
}

// One service engine's declared parameters, at their defaults.
int run_engine_parameters(const ServiceEngineInfo& engine, std::ostream& out) {
  out << engine.name << ": service engine (services.mode): " << engine.summary << "\n";
  const auto parameters = default_parameters(engine);
  if (parameters.empty()) {
    out << "no parameters\n";
    return kExitOk;
  }
  out << "parameters (keys of the services object, at their defaults):\n";
  print_parameters(parameters, out);
  return kExitOk;
}

// One sharing model's declared parameters, as the model declares them when built with its
// smallest valid params (its defaults; mig's example layout): the same declarations every run
// echoes in summary.json.
int run_model_parameters(const std::string& name, std::ostream& out) {
  const auto& models = sharing_models();
  const auto it = std::find_if(models.begin(), models.end(),
                               [&](const SharingModelInfo& m) { return m.name == name; });
  if (it == models.end()) {
    for (const auto& e : service_engines()) {
      if (e.name == name) return run_engine_parameters(e, out);
    }
    std::vector<std::string> valid;
    for (const auto& m : models) valid.push_back(m.name);
    throw InputError("gpumux models " + name, "NAME",
                     "unknown sharing model '" + name + "' (valid: " + join_names(valid) + ")");
  }
  const nlohmann::json params = nlohmann::json::parse(it->example_params);
  JsonObject object(params, "gpumux models " + name, "/sharing/params");
  const auto model = make_sharing_model(name, object, "gpumux models " + name);
  out << name << ": " << it->summary << "\n";
  if (it->example_params != "{}") out << "example sharing.params: " << it->example_params << "\n";
  const auto parameters = model->parameters();
  if (parameters.empty()) {
    out << "no parameters\n";
    return kExitOk;
  }
  out << "parameters (sharing.params; value as declared with the params above, a device's "
         "measured value replaces a default where the source says so):\n";
  print_parameters(parameters, out);
  return kExitOk;
}

int run_models(std::ostream& out) {
  out << "sharing models (scenario sharing.model; `gpumux models NAME` lists one's parameters):\n";
  for (const auto& m : sharing_models()) out << "  " << m.name << "  " << m.summary << "\n";
  out << "service engines (services.mode; `gpumux models NAME` lists one's parameters):\n";
  for (const auto& e : service_engines()) out << "  " << e.name << "  " << e.summary << "\n";
  out << "queue policies (scheduler.queue):\n";
  for (const auto& q : queue_policies()) out << "  " << q.name << "  " << q.summary << "\n";
  out << "placement policies (scheduler.placement):\n";
  for (const auto& p : placement_policies()) {
    out << "  " << p.name << "  " << p.summary
        << (p.needs == PlacementNeeds::kFractionalJobs
                ? " (needs a model that admits fractional jobs: fractional, timeslice, mps)"
                : "")
        << "\n";
  }
  out << "trace formats (trace.format):\n";
  for (const auto& f : trace_formats()) out << "  " << f.name << "  " << f.summary << "\n";
  return kExitOk;
}

struct ModelsArgs {
  std::string model_name;
};

int run_models_command(const ModelsArgs& a, std::ostream& out, std::ostream&) {
  return a.model_name.empty() ? run_models(out) : run_model_parameters(a.model_name, out);
}

struct MetricsArgs {};

int run_metrics_command(const MetricsArgs&, std::ostream& out, std::ostream&) {
  out << metric_catalogue_text();
  return kExitOk;
}

}  // namespace

void configure_models_command(CLI::App& models, CommandContext& ctx) {
  auto a = std::make_shared<ModelsArgs>();
  models.add_option("NAME", a->model_name, "a sharing model or service engine, e.g. timeslice");
  models.footer("Example: gpumux models timeslice");
  set_action(models, ctx, a, run_models_command);
}

void configure_metrics_command(CLI::App& metrics, CommandContext& ctx) {
  set_action(metrics, ctx, std::make_shared<MetricsArgs>(), run_metrics_command);
}

}  // namespace gpumux
