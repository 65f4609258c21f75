#include "analysis/run/model_choice.h"

#include "models/sharing_registry.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"

namespace gpumux {

nlohmann::json with_sharing(const nlohmann::json& document, const std::string& model,
                            const nlohmann::json& params) {
  nlohmann::json doc = document;
  doc["sharing"] = {{"model", model}, {"params", params}};
  return doc;
}

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
          : "exclusive";
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
    const bool has_params = sharing != doc.end() && sharing->is_object() &&
                            sharing->contains("params");
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
        throw InputError("--models", m.name,
                         std::string("needs parameters for this cluster; give them with "
                                     "--model-params ") +
                             m.name + "='{...}' (" + e.what() + ")");
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
