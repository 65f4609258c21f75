// The service engines by the names scenario files use (`services.mode`), in one explicit table
// (registry.cc: name, one line, declared parameters, factory): the scenario parser, `gpumux
// models` and `gpumux models NAME` read it, and it is the only list of engine names. An engine
// reads its parameters from the scenario's `services` object, where they have always been
// (e.g. `"services": {"mode": "request", "time_slicing": "fluid"}`), through the parameter
// specs it declares here (sim/base/parameter_spec.h).
//
// Adding an engine: a folder under sim/services/ with its replica (ServiceReplica) and engine
// (ServiceEngine), and one entry in registry.cc.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/base/json_fields.h"
#include "sim/base/parameter_spec.h"
#include "sim/base/registry.h"
#include "sim/services/service_engine.h"

namespace gpumux {

// One declared parameter of an engine.
using EngineParameterSpec = std::variant<NumberSpec, ChoiceSpec, SwitchSpec>;

struct ServiceEngineInfo {
  std::string_view name;
  std::string_view summary;
  // The keys of the `services` object it reads, with their defaults and accepted values.
  std::vector<EngineParameterSpec> parameters;
  // Builds the engine from the `services` object: reads its declared keys (InputError naming
  // the key for a bad value) and leaves the others to the caller.
  std::function<std::unique_ptr<ServiceEngine>(JsonObject& services)> make;
};

// The table, in listing order; the first entry is the default (`services.mode` omitted).
const Registry<ServiceEngineInfo>& service_engines();

// The default engine with its default parameters (a scenario without a services section).
std::shared_ptr<const ServiceEngine> default_service_engine();

// Each declared parameter's default, as `gpumux models NAME` lists it.
std::vector<ModelParameter> default_parameters(const ServiceEngineInfo& engine);

}  // namespace gpumux
