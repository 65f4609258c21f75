// The `sharing` section: the sharing model, its params and their declared echo.
#include "scenarios/sections/sections.h"

#include "models/sharing_registry.h"
#include "sim/base/json_fields.h"

namespace gpumux::scenario_sections {

namespace {

// A declared parameter's value as summary.json echoes it: a number, true / false for a switch,
// the chosen name for a choice.
nlohmann::json parameter_value(const ModelParameter& p) {
  switch (p.kind) {
    case ModelParameter::Kind::kSwitch:
      return p.value != 0.0;
    case ModelParameter::Kind::kChoice:
      return p.choice;
    case ModelParameter::Kind::kNumber:
      break;
  }
  return p.value;
}

}  // namespace

void parse_sharing(Scenario& s, JsonObject& root, const std::string& base_dir) {
  std::string model = "exclusive";
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json echo_params = params;  // as written: paths stay relative in the summary
  std::string params_pointer = "/sharing/params";
  if (root.has("sharing")) {
    JsonObject sharing = root.object("sharing");
    model = sharing.optional_string("model", model);
    if (sharing.has("params")) {
      params = sharing.raw("params");
      echo_params = params;
      // A calibration file is relative to the scenario, like every other path.
      // Files named in the params are relative to the scenario, like every other path.
      for (const char* key : {"calibration", "mig_parted"}) {
        if (params.is_object() && params.contains(key) && params[key].is_string()) {
          params[key] = resolve_path(base_dir, params[key].get<std::string>());
        }
      }
    } else {
      sharing.allow("params");
    }
    JsonObject p(params, root.file(), params_pointer);
    s.model = make_sharing_model(model, p, sharing.where("model"));
    sharing.finish();
  } else {
    root.allow("sharing");
    JsonObject p(params, root.file(), params_pointer);
    s.model = make_sharing_model(model, p, root.where("sharing"));
  }
  if (s.pool && s.model->name() != "exclusive") {
    throw InputError(root.has("sharing") ? root.where("sharing") + "/model" : root.where("sharing"),
                     "model",
                     "a pooled cluster (cluster.pool) runs every job at full speed on its share "
                     "of the pool: sharing.model must be 'exclusive' (the default), got '" +
                         model + "'");
  }
  for (const auto& device : s.devices) s.model->check_device(device);
  std::vector<int> gpus_per_node(s.devices.size(), 0);
  for (const NodeSpec& n : s.nodes) {
    if (n.gpus == 0) continue;  // a CPU pool's node: no device
    auto& most = gpus_per_node[static_cast<std::size_t>(n.device)];
    most = std::max(most, n.gpus);
  }
  s.model->check_cluster(s.devices, gpus_per_node);
  nlohmann::json declared = nlohmann::json::array();
  for (const auto& p : s.model->parameters()) {
    declared.push_back({{"name", p.name},
                        {"value", parameter_value(p)},
                        {"unit", p.unit},
                        {"source", p.source},
                        {"description", p.description}});
  }
  s.resolved["sharing"] = {{"model", model}, {"params", echo_params}, {"parameters", declared}};
}

}  // namespace gpumux::scenario_sections
