#include "models/sharing_registry.h"

#include "models/exclusive_model.h"

namespace gpumux {

std::vector<SharingModelInfo> sharing_models() {
  return {
      {"exclusive", "one job per GPU at full speed; the baseline for savings"},
  };
}

std::unique_ptr<SharingModel> make_sharing_model(const std::string& name, JsonObject& params,
                                                 const std::string& where) {
  if (name == "exclusive") {
    params.finish();
    return std::make_unique<ExclusiveModel>();
  }
  std::string valid;
  for (const auto& m : sharing_models()) valid += (valid.empty() ? "" : ", ") + m.name;
  throw InputError(where, "model", "unknown sharing model '" + name + "' (valid: " + valid + ")");
}

}  // namespace gpumux
