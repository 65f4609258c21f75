// The sharing models by the names scenario files use, in one explicit table
// (registry.cc: name, one line, example params, factory): `gpumux models`, `gpumux models
// NAME`, the scenario validator and every command that builds a model read it, and it is the
// only list of model names. Each model reads its own parameters from the scenario's
// `sharing.params` object and declares them (value, unit, source) for reports; the entry says
// which of them are file paths.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/sharing_capabilities.h"
#include "sim/base/json_fields.h"
#include "sim/base/parameter_spec.h"
#include "sim/base/registry.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

struct SharingModelInfo {
  std::string name;
  std::string summary;
  // The smallest valid `sharing.params` (most models need none; mig needs a layout).
  std::string example_params = "{}";
  // Builds the model from its params, which it finishes (unknown parameters are errors).
  std::function<std::unique_ptr<SharingModel>(JsonObject& params)> make;
  // Its parameters that name files: the scenario parser resolves them against the scenario's
  // folder (and checks that they exist) before `make` reads them, in this order.
  std::vector<PathSpec> paths = {};
  // What other code may know of the model without testing its name.
  SharingCapabilities capabilities = {};
};

// The table, in listing order.
const Registry<SharingModelInfo>& sharing_models();

// Builds the model `name` with its parameters from `params` (which it finishes: unknown
// parameters are errors). Throws InputError at `where` for an unknown name, listing valid ones.
std::unique_ptr<SharingModel> make_sharing_model(const std::string& name, JsonObject& params,
                                                 const std::string& where);

// The capabilities of the model `name`; a name not in the table has none (every field false,
// kNoEquivalent).
SharingCapabilities capabilities_of(std::string_view name);
// The name of the savings baseline (the row with `savings_baseline`; also the default model).
const std::string& savings_baseline_model();
// The models fitted on measurements of processes sharing a GPU (a contention form), in table
// order: the words measured rows, replays and the pairs fit name their sharing by.
std::vector<std::string> contention_model_names();
// The row `name` when it has a contention form; throws InputError at `where`, `field` for an
// unknown name or one without a form, listing the valid names.
const SharingModelInfo& contention_model(const std::string& name, const std::string& where,
                                         const std::string& field);
// The first row, in table order, with contention form `form`, or nullptr.
const SharingModelInfo* first_model_of(ContentionForm form);
// The name of the row whose speeds are fitted on MIG per-profile speeds (fits_mig_speeds).
const std::string& mig_speeds_model();
// The first row, in table order, that deploys as `sharing` with or without MIG instances, or
// nullptr when none does (the way back from a device plugin config to a model).
const SharingModelInfo* model_deployed_as(DeviceSharing sharing, bool mig_instances);

}  // namespace gpumux
