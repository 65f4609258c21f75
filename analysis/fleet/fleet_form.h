// How a fleet plan runs a GPU's endpoints under a sharing model, read from the model's
// capabilities (models/sharing_capabilities.h), never from its name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux {

enum class FleetForm {
  kWhole,       // the savings baseline: one endpoint per GPU
  kInstances,   // MIG instances, each isolated, one endpoint each (no sharing inside)
  kMpsClients,  // MPS clients with the device plugin's equal thread and memory shares
  kTimeSliced,  // time-sliced engines with equal memory shares
};

// The form of the model `name`, or nothing when a fleet plan cannot place endpoints under it
// (fractional shares, MIG instances shared further).
std::optional<FleetForm> fleet_form(std::string_view model);

// The models a fleet plan places endpoints under, in the sharing-model table's order.
std::vector<std::string> fleet_models();

// The model of a form (the first in table order), e.g. for the memory-only packing's
// time-sliced check.
const std::string& fleet_model_of(FleetForm form);

}  // namespace gpumux
