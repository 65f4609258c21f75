// Which sharing.params a model runs with when a command (`gpumux plan`, `gpumux compare`) runs
// one scenario under several sharing models: --model-params, else the scenario's own params
// when its model is this one, else the model's defaults, else (for a model that has no
// defaults, such as mig) the example `gpumux models` gives.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gpumux {

struct ModelRequest {
  std::string name;                      // a sharing model of `gpumux models`
  std::optional<nlohmann::json> params;  // from --model-params; else chosen as above
};

struct ModelChoice {
  std::string model;
  nlohmann::json params;      // the sharing.params used
  std::string params_source;  // where they came from, in words
  nlohmann::json parameters;  // the model's declared parameters (value, unit, source)
};

// `document` with its sharing block replaced by {model, params}.
nlohmann::json with_sharing(const nlohmann::json& document, const std::string& model,
                            const nlohmann::json& params);

// Chooses the params of `request` for the scenario `document` (read from `file`, paths
// relative to `base_dir`, overrides already applied) and validates them by parsing the
// scenario with them. Throws InputError naming --models or --model-params for an unknown model
// or params that do not fit.
ModelChoice choose_model_params(const nlohmann::json& document, const std::string& file,
                                const std::string& base_dir, const ModelRequest& request);

// InputError when a model is listed twice.
void reject_repeated_models(const std::vector<ModelRequest>& models);

}  // namespace gpumux
