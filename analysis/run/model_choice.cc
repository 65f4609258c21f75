#include "analysis/run/model_choice.h"

#include <optional>

#include "models/registry.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"

namespace gpumux {

nlohmann::json with_sharing(const nlohmann::json& document, const std::string& model,
                            const nlohmann::json& params) {
  nlohmann::json doc = document;
  doc["sharing"] = {{"model", model}, {"params", params}};
  return doc;
}

namespace {

// {"DEVICE": ["7g.80gb"], ...}: per MIG-capable device of the scenario's cluster, the profile
// with every compute slice (the largest memory among them, so never a +me one); nullopt when
// no device supports MIG.
std::optional<nlohmann::json> whole_gpu_layouts(const nlohmann::json& doc, const std::string& file,
                                                const std::string& base_dir) {
  const Scenario s =
      parse_scenario(with_sharing(doc, savings_baseline_model(), nlohmann::json::object()), file, base_dir);
  nlohmann::json layouts = nlohmann::json::object();
  for (const DeviceProfile& d : s.devices) {
    const MigProfile* best = nullptr;
    for (const MigProfile& p : d.mig_profiles) {
      if (!best || p.compute_slices > best->compute_slices ||
          (p.compute_slices == best->compute_slices && p.memory > best->memory)) {
        best = &p;
      }
    }
    if (best) layouts[d.name] = nlohmann::json::array({best->name});
  }
  if (layouts.empty()) return std::nullopt;
  return layouts;
}

}  // namespace

ModelChoice choose_model_params(const nlohmann::json& doc, const std::string& file,
                                const std::string& base_dir, const ModelRequest& m) {
  ModelChoice r;
  r.model = m.name;
  const SharingModelInfo* info = nullptr;
  const auto& all = sharing_models();
  std::string valid;
  for (const auto& candidate : all) {
    if (candidate.name == m.name) info = &candidate;
    valid += (valid.empty() ? "" : ", ") + candidate.name;
  }
  if (!info) {
    throw InputError("--models", m.name,
                     "unknown sharing model '" + m.name + "' (valid: " + valid + ")");
  }
  const std::string scenario_model =
      doc.contains("sharing") && doc["sharing"].is_object() && doc["sharing"].contains("model")
          ? doc["sharing"]["model"].get<std::string>()
          : savings_baseline_model();
  auto parse_with = [&](const nlohmann::json& params) {
    return parse_scenario(with_sharing(doc, m.name, params), file, base_dir);
  };
  std::optional<Scenario> parsed;
  if (m.params) {
    r.params = *m.params;
    r.params_source = "--model-params";
    try {
      parsed = parse_with(r.params);
    } catch (const InputError& e) {
      // The pointer in the message is where the params land in the scenario; name the option.
      throw InputError("--model-params " + m.name, "", e.what());
    }
  } else if (scenario_model == m.name) {
    // The scenario may name no sharing block at all (its model is then exclusive): a const
    // operator[] on a missing key is undefined behaviour, so look the params up with find.
    const auto sharing = doc.find("sharing");
    const bool has_params =
        sharing != doc.end() && sharing->is_object() && sharing->contains("params");
    r.params = has_params ? sharing->at("params") : nlohmann::json::object();
    r.params_source = "the scenario's sharing.params (its model is " + m.name + ")";
    parsed = parse_with(r.params);
  } else {
    r.params = nlohmann::json::object();
    r.params_source = "the model's defaults (the scenario's model is " + scenario_model + ")";
    try {
      parsed = parse_with(r.params);
    } catch (const InputError& e) {
      if (info->example_params == "{}") throw;
      r.params = nlohmann::json::parse(info->example_params);
      r.params_source = "the example of `gpumux models` (the model has no defaults)";
      try {
        parsed = parse_with(r.params);
      } catch (const InputError&) {
        // A layout model whose example names profiles this cluster's devices lack: each
        // device's whole-GPU instance, a layout every MIG device has (the planner searches
        // others from there).
        std::optional<nlohmann::json> whole;
        if (r.params.contains("layout")) whole = whole_gpu_layouts(doc, file, base_dir);
        if (whole) {
          r.params = {{"layout", *whole}};
          r.params_source =
              "each device's whole-GPU MIG instance (the model has no defaults, and the example "
              "of `gpumux models` names profiles this cluster's devices lack)";
          try {
            parsed = parse_with(r.params);
          } catch (const InputError&) {
            whole.reset();
          }
        }
        if (!whole) {
          throw InputError("--models", m.name,
                           std::string("needs parameters for this cluster; give them with "
                                       "--model-params ") +
                               m.name + "='{...}' (" + e.what() + ")");
        }
      }
    }
  }
  r.parameters = parsed->resolved["sharing"]["parameters"];
  return r;
}

void reject_repeated_models(const std::vector<ModelRequest>& models) {
  for (std::size_t i = 0; i < models.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (models[j].name == models[i].name) {
        throw InputError("--models", models[i].name, "listed twice");
      }
    }
  }
}

}  // namespace gpumux
