#include "models/measured_parameter.h"

#include <string>

namespace gpumux {

ModelParameter declare_measured(const NumberSpec& spec, const DeviceMeasurement& measured) {
  ModelParameter out(
      std::string(spec.key) + "@" + std::string(measured.device), measured.value,
      std::string(spec.measured_unit.empty() ? spec.unit : spec.measured_unit),
      std::string(measured.source),
      std::string(spec.measured_as) + " on " + std::string(measured.label) + " GPUs");
  out.accepts = "measured: replaces " + std::string(spec.key) + "'s default on " +
                std::string(measured.label) + " GPUs";
  return out;
}

}  // namespace gpumux
