// `gpumux models` (the tables of sharing models, service engines, queue and placement policies,
// trace formats; `models NAME`: one sharing model's, service engine's, queue or placement
// policy's declared parameters) and `gpumux metrics` (the metric catalogue).
#include <nlohmann/json.hpp>

#include "analysis/metrics/metric_catalogue.h"
#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "models/registry.h"
#include "sim/base/closest_names.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/registry.h"
#include "sim/services/registry.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {

namespace {

// Each declared parameter: value (with the params the entry was read from), description,
// source and what it accepts.
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
int run_model_parameters(const SharingModelInfo& info, std::ostream& out) {
  const std::string& name = info.name;
  const nlohmann::json params = nlohmann::json::parse(info.example_params);
  JsonObject object(params, "gpumux models " + name, "/sharing/params");
  const auto model = info.make(object);
  out << name << ": " << info.summary << "\n";
  if (info.example_params != "{}") out << "example sharing.params: " << info.example_params << "\n";
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

// A queue or placement policy's declared parameters, read from an empty `scheduler.params`:
// their defaults.
template <typename Info>
int run_policy_parameters(const Info& info, std::string_view family, std::string_view key,
                          ParameterSet (*read)(const Info&, JsonObject&), std::ostream& out) {
  const std::string name(info.name);
  const nlohmann::json params = nlohmann::json::object();
  JsonObject object(params, "gpumux models " + name, "/scheduler/params");
  const ParameterSet parameters = read(info, object);
  out << name << ": " << info.summary << "\n" << family << " (" << key << ")\n";
  if (parameters.empty()) {
    out << "no parameters\n";
    return kExitOk;
  }
  out << "parameters (scheduler.params; their defaults):\n";
  print_parameters(parameters.declared(), out);
  return kExitOk;
}

// `gpumux models NAME`: the entry NAME of the sharing models, queue policies or placement
// policies (their names do not overlap).
int run_entry_parameters(const std::string& name, std::ostream& out) {
  if (const auto* model = sharing_models().find(name)) return run_model_parameters(*model, out);
  if (const auto* engine = service_engines().find(name)) return run_engine_parameters(*engine, out);
  if (const auto* queue = queue_policies().find(name)) {
    return run_policy_parameters(*queue, "queue policy", "scheduler.queue", read_queue_params, out);
  }
  if (const auto* placement = placement_policies().find(name)) {
    return run_policy_parameters(*placement, "placement policy", "scheduler.placement",
                                 read_placement_params, out);
  }
  // The closest name of any family, beside the sharing model table's "valid: ..." list.
  std::vector<std::string> known = sharing_models().names();
  for (const std::string& q : queue_policies().names()) known.push_back(q);
  for (const std::string& p : placement_policies().names()) known.push_back(p);
  const auto near = closest_names(name, known, 1);
  const std::string all = "unknown sharing model, queue or placement policy '" + name +
                          "' (valid: " + sharing_models().names_text() + "; or a queue policy: " +
                          queue_policies().names_text() +
                          "; or a placement policy: " + placement_policies().names_text() + ")";
  throw InputError("gpumux models " + name, "NAME",
                   all + (near.empty() ? "" : " (did you mean '" + near[0] + "'?)"));
}

int run_models(std::ostream& out) {
  out << "sharing models (scenario sharing.model; `gpumux models NAME` lists one's parameters):\n"
      << sharing_models().help_text();
  out << "service engines (services.mode; `gpumux models NAME` lists one's parameters):\n";
  out << service_engines().help_text();
  out << "queue policies (scheduler.queue):\n" << queue_policies().help_text();
  out << "placement policies (scheduler.placement):\n";
  for (const auto& p : placement_policies()) {
    out << "  " << p.name << "  " << p.summary
        << (p.needs == PlacementNeeds::kFractionalJobs
                ? " (needs a model that admits fractional jobs: fractional, timeslice, mps)"
                : "")
        << "\n";
  }
  out << "trace formats (trace.format):\n" << trace_formats().help_text();
  return kExitOk;
}

struct ModelsArgs {
  std::string model_name;
};

int run_models_command(const ModelsArgs& a, std::ostream& out, std::ostream&) {
  return a.model_name.empty() ? run_models(out) : run_entry_parameters(a.model_name, out);
}

struct MetricsArgs {};

int run_metrics_command(const MetricsArgs&, std::ostream& out, std::ostream&) {
  out << metric_catalogue_text();
  return kExitOk;
}

}  // namespace

void configure_models_command(CLI::App& models, CommandContext& ctx) {
  auto a = std::make_shared<ModelsArgs>();
  models.add_option("NAME", a->model_name,
                    "a sharing model, service engine, queue or placement policy, e.g. timeslice");
  models.footer("Example: gpumux models timeslice");
  set_action(models, ctx, a, run_models_command);
}

void configure_metrics_command(CLI::App& metrics, CommandContext& ctx) {
  set_action(metrics, ctx, std::make_shared<MetricsArgs>(), run_metrics_command);
}

}  // namespace gpumux
