#include "analysis/fleet/fleet_form.h"

#include <stdexcept>

#include "models/registry.h"

namespace gpumux {

std::optional<FleetForm> fleet_form(std::string_view model) {
  if (sharing_models().find(model) == nullptr) return std::nullopt;
  const SharingCapabilities c = capabilities_of(model);
  if (c.savings_baseline) return FleetForm::kWhole;
  if (c.mig_instances) {
    return c.device_sharing == DeviceSharing::kNone ? std::optional(FleetForm::kInstances)
                                                    : std::nullopt;
  }
  if (c.device_sharing == DeviceSharing::kMps) return FleetForm::kMpsClients;
  if (c.device_sharing == DeviceSharing::kTimeSlicing) return FleetForm::kTimeSliced;
  return std::nullopt;
}

std::vector<std::string> fleet_models() {
  std::vector<std::string> out;
  for (const auto& m : sharing_models()) {
    if (fleet_form(m.name)) out.emplace_back(m.name);
  }
  return out;
}

const std::string& fleet_model_of(FleetForm form) {
  for (const auto& m : sharing_models()) {
    if (fleet_form(m.name) == form) return m.name;
  }
  throw std::logic_error("no sharing model of this fleet form");
}

}  // namespace gpumux
