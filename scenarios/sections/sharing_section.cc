// The `sharing` section: the sharing model, its params and their declared echo.
#include <span>

#include "models/calibration_file.h"
#include "models/registry.h"
#include "scenarios/sections/sections.h"
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

// The layout each GPU index of a node starts with, per device type of the cluster: the
// instances' profiles in placement order, [] for a whole GPU. Null unless the model splits some
// GPU into slots (MIG and its hybrids), so that other runs' summaries are unchanged.
nlohmann::json effective_layouts(const SharingModel& model, std::span<const DeviceProfile> devices,
                                 std::span<const int> gpus_per_node) {
  bool slots = false;
  for (const DeviceProfile& d : devices) {
    for (int layout = 0; layout < layout_count(model, d) && !slots; ++layout) {
      slots = slot_count(model, d, layout) > 0;
    }
  }
  if (!slots) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    nlohmann::json by_index = nlohmann::json::array();
    for (int gpu = 0; gpu < gpus_per_node[i]; ++gpu) {
      const int layout = initial_layout(model, devices[i], gpu);
      nlohmann::json profiles = nlohmann::json::array();
      for (int k = 0; k < slot_count(model, devices[i], layout); ++k) {
        profiles.push_back(std::string(model.slot_layout()->slot_info(devices[i], layout, k).name));
      }
      by_index.push_back(std::move(profiles));
    }
    out.push_back({{"device", devices[i].name}, {"by_gpu_index", std::move(by_index)}});
  }
  return out;
}

}  // namespace

void parse_sharing(Scenario& s, JsonObject& root, const std::string& base_dir) {
  std::string model = savings_baseline_model();
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json echo_params = params;  // as written: paths stay relative in the summary
  std::string params_pointer = "/sharing/params";
  if (root.has("sharing")) {
    JsonObject sharing = root.object("sharing");
    model = sharing.optional_string("model", model);
    const SharingModelInfo& info = sharing_models().get(model, sharing.where("model"), "model");
    if (sharing.has("params")) {
      params = sharing.raw("params");
      echo_params = params;
      // Files named in the params (the entry's path parameters) are relative to the scenario,
      // like every other path.
      for (const PathSetting& path : resolve_path_parameters(params, info.paths, base_dir,
                                                             root.file() + "#" + params_pointer)) {
        s.input_files.push_back({"sharing.params." + path.key, path.given, path.resolved});
      }
    } else {
      sharing.allow("params");
    }
    JsonObject p(params, root.file(), params_pointer);
    s.model = info.make(p);
    sharing.finish();
  } else {
    root.allow("sharing");
    JsonObject p(params, root.file(), params_pointer);
    s.model = make_sharing_model(model, p, root.where("sharing"));
  }
  if (s.pool && !capabilities_of(s.model->name()).runs_on_pool) {
    throw InputError(root.has("sharing") ? root.where("sharing") + "/model" : root.where("sharing"),
                     "model",
                     "a pooled cluster (cluster.pool) runs every job at full speed on its share "
                     "of the pool: sharing.model must be '" + savings_baseline_model() +
                         "' (the default), got '" + model + "'");
  }
  for (const auto& device : s.devices) s.model->check_device(device);
  std::vector<int> gpus_per_node(s.devices.size(), 0);
  for (const NodeSpec& n : s.nodes) {
    if (n.gpus == 0) continue;  // a CPU pool's node: no device
    auto& most = gpus_per_node[static_cast<std::size_t>(n.device)];
    most = std::max(most, n.gpus);
  }
  s.model->check_cluster(s.devices, gpus_per_node);
  // A calibration measured on one device and applied to another: allowed (the nearest fit may
  // be all there is), but said, naming both devices.
  if (params.is_object() && params.contains("calibration") && params["calibration"].is_string()) {
    const std::string file = params["calibration"].get<std::string>();
    const std::string measured = calibration_device(file);
    for (std::size_t i = 0; i < s.devices.size(); ++i) {
      if (gpus_per_node[i] == 0) continue;
      const std::string warning = calibration_device_warning(
          file, measured, s.devices[i].name, root.file() + "#" + params_pointer + "/calibration");
      if (!warning.empty()) s.warnings.push_back(warning);
    }
  }
  nlohmann::json declared = nlohmann::json::array();
  for (const auto& p : s.model->parameters()) {
    declared.push_back({{"name", p.name},
                        {"value", parameter_value(p)},
                        {"unit", p.unit},
                        {"source", p.source},
                        {"description", p.description}});
  }
  s.resolved["sharing"] = {{"model", model}, {"params", echo_params}, {"parameters", declared}};
  nlohmann::json layouts = effective_layouts(*s.model, s.devices, gpus_per_node);
  if (!layouts.is_null()) s.resolved["sharing"]["effective_layouts"] = std::move(layouts);
}

}  // namespace gpumux::scenario_sections
