#include "models/parameter_spec.h"

#include <sstream>

namespace gpumux {

namespace {

// "[0, 1e+06] us" as the range errors print it (JsonObject::required_number).
std::string accepted_range(const NumberSpec& spec) {
  std::ostringstream out;
  out << "[" << spec.min << ", " << spec.max << "]";
  if (!spec.unit.empty()) out << " " << spec.unit;
  if (spec.integer) out << ", whole numbers";
  return out.str();
}

std::string quoted_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += "'" + std::string(names[i]) + "'";
  }
  return out;
}

}  // namespace

NumberSetting read(JsonObject& p, const NumberSpec& spec) {
  return read(p, spec, std::nullopt, "");
}

NumberSetting read(JsonObject& p, const NumberSpec& spec, std::optional<double> calibrated,
                   const std::string& calibration_source) {
  if (p.has(spec.key)) {
    const double value =
        spec.integer
            ? static_cast<double>(p.required_int(spec.key, static_cast<std::int64_t>(spec.min),
                                                 static_cast<std::int64_t>(spec.max)))
            : p.required_number(spec.key, spec.min, spec.max);
    return {value, "scenario", false};
  }
  p.allow(spec.key);
  if (calibrated) return {*calibrated, calibration_source, false};
  return default_setting(spec);
}

NumberSetting default_setting(const NumberSpec& spec) {
  return {spec.fallback, std::string(spec.default_source), true};
}

ChoiceSetting read(JsonObject& p, const ChoiceSpec& spec) {
  if (!p.has(spec.key)) {
    p.allow(spec.key);
    return {spec.fallback, spec.names[static_cast<std::size_t>(spec.fallback)],
            std::string(spec.default_source)};
  }
  const std::string given = p.required_string(spec.key);
  for (std::size_t i = 0; i < spec.names.size(); ++i) {
    if (spec.names[i] == given) return {static_cast<int>(i), spec.names[i], "scenario"};
  }
  throw InputError(p.where(spec.key), std::string(spec.key),
                   "expected " + quoted_names(spec.names) + ", got '" + given + "'");
}

SwitchSetting read(JsonObject& p, const SwitchSpec& spec) {
  const bool given = p.has(spec.key);
  const bool on = p.optional_bool(spec.key, spec.fallback);
  return {on, given ? "scenario" : std::string(spec.default_source)};
}

ModelParameter declare(const NumberSpec& spec, const NumberSetting& setting,
                       std::string_view description) {
  ModelParameter out(std::string(spec.key), setting.value, std::string(spec.unit), setting.source,
                     std::string(description.empty() ? spec.description : description));
  out.accepts = accepted_range(spec);
  return out;
}

ModelParameter declare(const ChoiceSpec& spec, const ChoiceSetting& setting) {
  ModelParameter out = ModelParameter::chosen(std::string(spec.key), setting.index, setting.name,
                                              setting.source, std::string(spec.description));
  out.accepts = "one of " + quoted_names(spec.names);
  return out;
}

ModelParameter declare(const SwitchSpec& spec, const SwitchSetting& setting,
                       std::string_view description) {
  ModelParameter out =
      ModelParameter::on_off(std::string(spec.key), setting.on, setting.source,
                             std::string(description.empty() ? spec.description : description));
  out.accepts = "true or false";
  return out;
}

ModelParameter within(std::string_view object, ModelParameter echo) {
  echo.name = std::string(object) + "." + echo.name;
  return echo;
}

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
